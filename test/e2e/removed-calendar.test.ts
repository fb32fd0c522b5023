// A calendar the portal stops listing: subscribers must learn that its events are cancelled, not hit
// a 404 and keep them forever. Its folder stays for --keep-removed-days (calendar.ics with every
// event cancelled, event pages and .ics, pages saying it was removed); its API mirror goes at once,
// as the portal's own paths do. Real builds over real HTTP; see docs/incremental.md.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import ICAL from 'ical.js';
import { afterEach, describe, expect, it } from 'vitest';
import { runBuild } from '../../src/pipeline/build.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { BASE_NOW, modelEvent, portalState, type ModelCalendar, type ModelEvent } from '../support/differential/model.js';
import { startHistoryPortal, type HistoryPortal } from '../support/differential/portal.js';
import { listFiles } from '../support/tree.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const event = (id: string, start: number): ModelEvent => modelEvent(id, { title: `Lecture ${id}`, start });
const calendar = (id: string, events: ModelEvent[]): ModelCalendar => ({ id, title: `Calendar ${id}`, validators: 'etag', pageSize: 0, events, brokenDetails: [], details: 'full' });

let portal: HistoryPortal | undefined;
let work: string | undefined;
afterEach(async () => {
  await portal?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

async function build(now: number): Promise<void> {
  const loaded = await loadConfig(
    'build',
    { baseUrl: portal!.url, out: join(work!, 'site'), cacheDir: join(work!, 'cache'), timeZone: 'Europe/Vilnius', siteUrl: 'https://events.example.edu/', keepRemovedDays: '2', allowShrink: 'true' },
    { CALFEED_TOKEN: portal!.token },
    work!,
  );
  const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
  await runBuild({ loaded, log: createLogger({ stream: quiet, quiet: true, secrets: [] }), now });
}

const read = (path: string): Promise<string> => readFile(join(work!, 'site', path), 'utf8');

describe('a calendar removed from the portal', () => {
  it('keeps its calendar.ics (every event cancelled), event pages and .ics for --keep-removed-days, then goes', async () => {
    work = await mkdtemp(join(tmpdir(), 'calfeed-removed-'));
    const physics = calendar('physics', [event('1', 24 * 60), event('2', 48 * 60)]);
    const arts = calendar('arts', [event('9', 24 * 60)]);
    portal = await startHistoryPortal(portalState([physics, arts]));
    await build(BASE_NOW);
    const before = ICAL.Component.fromString(await read('calendars/physics/calendar.ics'));
    expect(before.getAllSubcomponents('vevent').map((v) => v.getFirstPropertyValue('status'))).toEqual(['CONFIRMED', 'CONFIRMED']);

    portal.set(portalState([arts]));
    await build(BASE_NOW + HOUR);
    const files = await listFiles(join(work, 'site'));
    // The mirror follows the API: the calendar is gone from it.
    expect(files.filter((f) => f.startsWith('event-calendar/physics/'))).toEqual([]);
    expect(await read('event-calendars')).not.toContain('physics');
    // Its calendar.ics stays, each event cancelled with a higher SEQUENCE, so apps drop them.
    const after = ICAL.Component.fromString(await read('calendars/physics/calendar.ics'));
    const vevents = after.getAllSubcomponents('vevent');
    expect(vevents.map((v) => [v.getFirstPropertyValue('status'), v.getFirstPropertyValue('sequence')])).toEqual([
      ['CANCELLED', 1],
      ['CANCELLED', 1],
    ]);
    // Every link in it still resolves: the event pages and .ics stay, marked cancelled.
    for (const v of vevents) {
      const url = String(v.getFirstPropertyValue('url'));
      const path = url.replace('https://events.example.edu/', '');
      expect(files, url).toContain(path);
      expect(files).toContain(path.replace(/\.html$/, '.ics'));
      expect(await read(path)).toMatch(/[Cc]ancelled/);
    }
    // Its page says so; the home page lists only the calendars the portal lists.
    expect(await read('calendars/physics/index.html')).toContain('The portal no longer publishes this calendar.');
    expect(await read('index.html')).not.toContain('calendars/physics/');
    // The combined calendar.ics has the cancellations too.
    const combined = ICAL.Component.fromString(await read('calendar.ics'));
    const statuses = combined.getAllSubcomponents('vevent').map((v) => `${v.getFirstPropertyValue('uid')} ${v.getFirstPropertyValue('status')}`);
    expect(statuses.filter((s) => s.endsWith('CANCELLED'))).toHaveLength(2);

    // A day later it is still there; past --keep-removed-days (2) the folder goes.
    await build(BASE_NOW + DAY + HOUR);
    expect(await listFiles(join(work, 'site'))).toContain('calendars/physics/calendar.ics');
    await build(BASE_NOW + 3 * DAY);
    expect((await listFiles(join(work, 'site'))).filter((f) => f.startsWith('calendars/physics/'))).toEqual([]);
  });

  it('comes back as a listed calendar when the portal lists it again', async () => {
    work = await mkdtemp(join(tmpdir(), 'calfeed-removed-'));
    const physics = calendar('physics', [event('1', 24 * 60)]);
    portal = await startHistoryPortal(portalState([physics]));
    await build(BASE_NOW);
    portal.set(portalState([]));
    await build(BASE_NOW + HOUR);
    expect(await read('calendars/physics/index.html')).toContain('no longer publishes');
    portal.set(portalState([physics]));
    await build(BASE_NOW + 2 * HOUR);
    expect(await read('calendars/physics/index.html')).not.toContain('no longer publishes');
    const vevents = ICAL.Component.fromString(await read('calendars/physics/calendar.ics')).getAllSubcomponents('vevent');
    expect(vevents.map((v) => [v.getFirstPropertyValue('status'), v.getFirstPropertyValue('sequence')])).toEqual([['CONFIRMED', 2]]);
  });
});
