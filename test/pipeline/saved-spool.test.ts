import { existsSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSavedSpool, prepareSavedSpool } from '../../src/pipeline/saved-spool.js';
import { EventSpool, type EventRef } from '../../src/pipeline/spool.js';
import type { Calendar } from '../../src/model.js';
import { sampleEvent } from '../fixtures/sample.js';

const CALENDARS: Calendar[] = [
  { id: 'arts', slug: 'arts', title: 'Arts', timeZone: 'Europe/Vilnius' },
  { id: 'sport', slug: 'sport', title: 'Sport', timeZone: 'UTC' },
];
const NOTES = new Map([
  ['arts', { warnings: [['x', 'event "x" of calendar "arts": no title field found']] as Array<[string, string]>, unreadable: ['event "y" of calendar "arts": no start'] }],
  ['sport', { warnings: [] as Array<[string, string]>, unreadable: [] }],
]);

describe('the spool a build leaves in the cache folder', () => {
  let dir: string;
  let staging: string;
  let cache: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'calfeed-saved-spool-'));
    staging = path.join(dir, 'staging');
    cache = path.join(dir, 'cache');
    await mkdir(staging);
    await mkdir(cache);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A spool of three events in two calendars, saved and committed; returns what the build had. */
  async function saveThree(): Promise<{ stamp: { id: string; bytes: number }; events: Map<string, EventRef[]> }> {
    const spool = EventSpool.create(staging);
    const add = (calendarId: string, id: string, start: number): EventRef =>
      spool.add(sampleEvent({ calendarId, id, slug: `${id}-slug`, title: `Ąžuolas ${id} 🌳` }), `BEGIN:VEVENT\r\nUID:${id}\r\nEND:VEVENT\r\n`, {
        start,
        end: start + 10,
        stamp: start - 1,
        pageStart: start,
        pageEnd: start + 10,
        cancelled: id === 'b',
      });
    const events = new Map([
      ['arts', [add('arts', 'a', 100), add('arts', 'b', 50)]],
      ['sport', [add('sport', 'c', 70)]],
    ]);
    const prepared = await prepareSavedSpool(cache, spool, CALENDARS, events, NOTES);
    // Moved out of the staging folder at once, made current only on commit.
    expect(await readdir(staging)).toEqual([]);
    expect(existsSync(path.join(cache, 'events.spool'))).toBe(false);
    await prepared.commit();
    return { stamp: prepared.stamp, events };
  }

  it('gives back the calendars and every ref, reading the same bytes', async () => {
    const { stamp, events } = await saveThree();
    expect((await readdir(cache)).sort()).toEqual(['events.spool', 'events.spool.json']);
    const saved = await loadSavedSpool(cache, stamp);
    expect(saved).toBeDefined();
    expect(saved!.calendars).toEqual(CALENDARS);
    expect(saved!.notes).toEqual(NOTES);
    for (const [calendarId, refs] of events) {
      const back = saved!.events.get(calendarId)!;
      expect(back).toEqual(refs);
      expect(saved!.spool.events(back)).toEqual(refs.map((ref) => sampleEvent({ calendarId, id: ref.id, slug: `${ref.id}-slug`, title: `Ąžuolas ${ref.id} 🌳` })));
      expect(saved!.spool.vevent(back[0]!).toString()).toBe(`BEGIN:VEVENT\r\nUID:${refs[0]!.id}\r\nEND:VEVENT\r\n`);
    }
    saved!.spool.dispose();
    // Reading does not delete it: the next build may read it again.
    expect(existsSync(path.join(cache, 'events.spool'))).toBe(true);
  });

  it('is not used when it is not the one the record names, or is damaged', async () => {
    // (the notes of each calendar are part of the header: a damaged one makes the spool unusable)
    const { stamp } = await saveThree();
    expect(await loadSavedSpool(cache, { ...stamp, id: 'another build' })).toBeUndefined();
    expect(await loadSavedSpool(cache, { ...stamp, bytes: stamp.bytes + 1 })).toBeUndefined();
    const index = path.join(cache, 'events.spool.json');
    const text = await readFile(index, 'utf8');
    for (const damaged of [text.replace(/"unreadable":\[[^\]]*\]/, '"unreadable":[1]'), text.replace(/"arts","a",/, '"nowhere","a",'), text.slice(0, -9), text.replace(/,(\d+)\]\n$/, ',99999]\n'), '']) {
      await writeFile(index, damaged);
      expect(await loadSavedSpool(cache, stamp), damaged.slice(-40)).toBeUndefined();
    }
    await writeFile(index, text);
    await appendFile(path.join(cache, 'events.spool'), 'more');
    expect(await loadSavedSpool(cache, stamp)).toBeUndefined();
  });

  it('discard() leaves the cache folder as it was', async () => {
    const spool = EventSpool.create(staging);
    spool.add(sampleEvent(), 'V', { start: 1, end: 2, stamp: 0, pageStart: 1, pageEnd: 2, cancelled: false });
    const prepared = await prepareSavedSpool(cache, spool, CALENDARS, new Map(), new Map());
    await prepared.discard();
    expect(await readdir(cache)).toEqual([]);
    expect(await readdir(staging)).toEqual([]);
  });
});
