// The build store: one file for everything a build leaves the next one, made current in one step,
// read a row at a time, and trusted whole or not at all.

import { existsSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CrawlCache } from '../../src/crawl/index.js';
import type { Calendar } from '../../src/model.js';
import { EventSpool, type EventRef } from '../../src/pipeline/spool.js';
import { BuildStore, headerLine, prepareStore, storeTail, type CalendarNotes } from '../../src/state/build-store.js';
import type { CalendarRecord } from '../../src/state/calendars.js';
import { emptyHistory, HistoryTracker, liveRecord } from '../../src/state/history.js';
import type { LastBuild } from '../../src/state/last-build.js';
import type { RenderedGroup } from '../../src/state/rendered.js';
import { sampleEvent } from '../fixtures/sample.js';
import { recordEntries, recordOf } from '../support/records.js';

const CALENDARS: Calendar[] = [
  { id: 'arts', slug: 'arts', title: 'Arts', timeZone: 'Europe/Vilnius' },
  { id: 'sport', slug: 'sport', title: 'Sport', timeZone: 'UTC' },
];
const RECORDS: CalendarRecord[] = [...CALENDARS.map((calendar) => ({ calendar })), { calendar: { id: 'gone', slug: 'gone', title: 'Gone', timeZone: 'UTC' }, removedAt: 5 }];
const NOTES = new Map<string, CalendarNotes>([
  ['arts', { warnings: [['x', 'event "x" of calendar "arts": no title field found']], unreadable: [['y', 'NO_START', 'event "y" of calendar "arts": no start']] }],
  ['sport', { warnings: [], unreadable: [] }],
]);
const HASH = 'ab'.repeat(32);
const RENDERED = new Map<string, RenderedGroup>([
  ['calendar arts', { input: 'k1', until: Date.UTC(2026, 10, 26, 22), files: { 'calendars/arts/rss.xml': HASH, 'calendars/arts/index.html': 'cd'.repeat(32) } }],
  // Ids are the portal's: any text, quotes and line separators included.
  ['calendar "x"\u2028', { input: 'k2', until: null, files: {} }],
]);
const HEADER = { portal: 'embedded demo', inputs: 'inputs-1' };
const RECORD: LastBuild = {
  inputs: 'inputs-1',
  builtAt: 1000,
  stableUntil: null,
  detailsDueAt: 5000,
  failedDetails: [['arts', 'z']],
  manifest: 'sha',
  lists: [{ mirrorPath: 'event-calendars', entry: { sha256: HASH, pages: [{ url: 'event-calendars', etag: '"1"', sha256: HASH }] } }],
  counts: { calendars: 2, events: 3, unreadable: 1, eventFiles: 6, calendarFiles: 14, files: 40 },
  warnings: ['a warning'],
  siteWarnings: ['a site warning'],
};

let dir: string;
let staging: string;
let cache: string;
const file = (): string => path.join(cache, 'build-store');

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'calfeed-store-'));
  staging = path.join(dir, 'staging');
  cache = path.join(dir, 'cache');
  await mkdir(staging);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const eventOf = (calendarId: string, id: string) => sampleEvent({ calendarId, id, slug: `${id}-slug`, title: `Ąžuolas ${id} "quoted" \u2028 🌳` });

/** A store of three events in two calendars, with every section, committed with RECORD. */
async function saveThree(): Promise<Map<string, EventRef[]>> {
  const spool = EventSpool.create(staging, headerLine(HEADER));
  const tracker = new HistoryTracker(emptyHistory(), 1000, 86_400_000);
  const add = (calendarId: string, id: string, start: number): EventRef => {
    const { event } = tracker.observe(eventOf(calendarId, id));
    const output = { vevent: `BEGIN:VEVENT\r\nUID:${id}\r\nEND:VEVENT\r\n`, items: id === 'a' ? '' : `<item>${id}</item>\0<entry/>\0{}`, record: liveRecord(event, id === 'b' ? 'fingerprint-1' : undefined) };
    return spool.add(eventOf(calendarId, id), output, { start, end: start + 10, stamp: start - 1, pageStart: start, pageEnd: start + 10, cancelled: id === 'b', placeless: id === 'a', categories: id === 'a' ? ['Seminar', 'Ąžuolynas'] : [] });
  };
  const events = new Map([
    ['arts', [add('arts', 'a', 100), add('arts', 'b', 50)]],
    ['sport', [add('sport', 'c', 70)]],
  ]);
  const crawl = CrawlCache.empty();
  crawl.recordDoc('event-calendars', { sha256: HASH, pages: [{ url: 'event-calendars', etag: '"1"', sha256: HASH }] });
  crawl.recordEvent('arts', 'a', { entry: HASH, checkedAt: 7 });
  // One removed event, whose record is not in an event's row.
  const history = [['"[\\"gone\\",\\"g\\"]"', liveRecord({ ...eventOf('gone', 'g'), firstSeen: 1, changedAt: 1, sequence: 1 }, undefined).replace('{', '{"removedAt":5,')]] as Array<[string, string]>;
  const prepared = await prepareStore(cache, spool, storeTail({ crawl, notes: NOTES, history, calendars: RECORDS, rendered: RENDERED }));
  // Moved out of the staging folder at once, made current only on commit.
  expect(await readdir(staging)).toEqual([]);
  expect(existsSync(file())).toBe(false);
  await prepared.commit(RECORD);
  return events;
}

describe('the build store', () => {
  it('gives back every section: the record, calendars, notes, history, render record, crawl cache and the events, by offset', async () => {
    const events = await saveThree();
    expect(await readdir(cache)).toEqual(['build-store']);
    const store = await BuildStore.open(cache);
    expect(store.note).toBeUndefined();
    expect(store.record).toEqual(RECORD);
    const { sections, note } = store.load('embedded demo', true);
    expect(note).toBeUndefined();
    const saved = sections.saved!;
    expect(saved.calendars).toEqual(CALENDARS);
    expect(saved.notes).toEqual(NOTES);
    expect(sections.history.calendars).toEqual(RECORDS);
    expect(recordOf(sections.history.events, '["arts","b"]')).toMatchObject({ rendered: 'fingerprint-1', title: 'Ąžuolas b "quoted" \u2028 🌳', sequence: 0 });
    expect(recordEntries(sections.history.events).map(([key]) => key)).toEqual(['["arts","a"]', '["arts","b"]', '["sport","c"]', '["gone","g"]']);
    expect(recordOf(sections.history.events, '["gone","g"]')).toMatchObject({ removedAt: 5, sequence: 1 });
    expect([...sections.rendered].map(([k, v]) => [k, v.input, v.until, { ...v.files }])).toEqual([...RENDERED].map(([k, v]) => [k, v.input, v.until, v.files]));
    expect(sections.crawl.previousEvent('arts', 'a')).toEqual({ entry: HASH, checkedAt: 7 });
    for (const [calendarId, refs] of events) {
      const back = [...saved.rows.events.get(calendarId)!];
      expect(back).toEqual(refs);
      expect(saved.rows.spool.events(back)).toEqual(refs.map((ref) => eventOf(calendarId, ref.id)));
      expect(saved.rows.spool.vevent(back[0]!).toString()).toBe(`BEGIN:VEVENT\r\nUID:${refs[0]!.id}\r\nEND:VEVENT\r\n`);
    }
    saved.rows.spool.dispose();
    // Reading does not delete it: the next build may read it again.
    expect(existsSync(file())).toBe(true);
    // Without the events asked for, none are read.
    expect(store.load('embedded demo', false).sections.saved).toBeUndefined();
  });

  it('is trusted whole or not at all: a damaged, truncated or foreign store opens empty, with a note', async () => {
    await saveThree();
    const text = await readFile(file(), 'utf8');
    const damages: Array<[string, string, RegExp]> = [
      ['notes', text.replace(/"unreadable":\[[^\]]*\]/, '"unreadable":[1]'), /corrupt/],
      ['an event of a calendar not listed', text.replace(/\["arts","a",/, '["nowhere","a",'), /corrupt/],
      ['a byte count', text.replace(/,(\d+)(,\[[^\]]*\])\]\t/, (_, n: string, categories: string) => `,${Number(n) + 1}${categories}]\t`), /corrupt/],
      ["an event's categories", text.replace(/,\["Seminar","Ąžuolynas"\]\]\t/, ',["Seminar",1]]\t'), /corrupt/],
      ["an event's history record", text.replace(/(\nS\t[^\n]*\t\{"firstSeen":)/, '$1"then"'), /corrupt/],
      ['a history record', text.replace('\nH\t"', '\nH\t"x'), /corrupt/],
      ['a render record', text.replace(/(\nG\t[^\n]*?)abab/, '$1ABAB'), /corrupt/],
      ['a render record without its until', text.replace(/"until":\d+,/, ''), /corrupt/],
      ['a render record with an until that is no instant', text.replace(/"until":\d+/, '"until":"soon"'), /corrupt/],
      ['the record', text.replace('"builtAt":1000', '"builtAt":"then"'), /corrupt/],
      ['rows out of order', text.replace(/\n(K\t[^\n]*)\n([^]*?)\n(G\t)/, '\n$2\n$1\n$3'), /corrupt/],
      ['truncated', text.slice(0, -9), /corrupt/],
      ['cut in an event', text.slice(0, 300), /corrupt/],
      ['empty', '', /corrupt/],
      ['another format', text.replace(/"calfeedStore":(\d+)/, (_, n: string) => `"calfeedStore":${Number(n) + 1}`), /another calfeed version/],
    ];
    for (const [what, damaged, note] of damages) {
      expect(damaged, what).not.toBe(text);
      await writeFile(file(), damaged);
      const store = await BuildStore.open(cache);
      const { sections, note: loadNote } = store.load('embedded demo', true);
      expect(String(store.note ?? loadNote), what).toMatch(note);
      expect(sections.saved, what).toBeUndefined();
      expect(sections.history.events.size, what).toBe(0);
      expect(sections.rendered.size, what).toBe(0);
    }
    await writeFile(file(), text);
    await appendFile(file(), 'more\n');
    expect((await BuildStore.open(cache)).note).toMatch(/corrupt/);
  });

  it('another portal: its HTTP validators are not used, the rest is', async () => {
    await saveThree();
    const { sections, note } = (await BuildStore.open(cache)).load('https://portal.example/api/', false);
    expect(note).toContain('written for another portal (embedded demo)');
    expect(sections.crawl.previousEvent('arts', 'a')).toBeUndefined();
    expect(sections.history.events.size).toBe(4);
  });

  it('discard() leaves the cache folder as it was', async () => {
    await saveThree();
    const before = await readFile(file());
    const spool = EventSpool.create(staging, headerLine(HEADER));
    spool.add(sampleEvent(), { vevent: 'V', items: '', record: '{}' }, { start: 1, end: 2, stamp: 0, pageStart: 1, pageEnd: 2, cancelled: false, placeless: false, categories: [] });
    const prepared = await prepareStore(cache, spool, storeTail({ history: [], calendars: [], rendered: new Map() }));
    await prepared.discard();
    expect(await readdir(cache)).toEqual(['build-store']);
    expect(await readFile(file())).toEqual(before);
    expect(await readdir(staging)).toEqual([]);
  });

  it('the state files of an earlier calfeed: removed, and said once', async () => {
    await mkdir(cache);
    for (const name of ['crawl.json', 'history.json', 'rendered.json', 'last-build.json', 'events.spool', 'events.spool.json']) await writeFile(path.join(cache, name), '{}');
    const first = await BuildStore.open(cache);
    expect(first.note).toMatch(/found the state files of an earlier calfeed in .* \(crawl.json, history.json, rendered.json, last-build.json, events.spool, events.spool.json\): starting from an empty build store/);
    expect(first.missing).toBe(false);
    expect(await readdir(cache)).toEqual([]);
    const again = await BuildStore.open(cache);
    expect(again.note).toMatch(/no build store/);
    expect(again.missing).toBe(true);
  });
});
