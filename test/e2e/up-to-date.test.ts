// Issue 5: a rebuild that would change nothing is a check, not a build. When the settings are the
// same, --out is as the last build published it, no "now" decision has moved (no event started or
// ended, no new day, no details due) and the portal answers that no list changed, the build stops
// after one conditional request per list, reading, rendering and writing nothing. And it is sound:
// whenever it says "up to date", a cold build at that moment gives exactly the bytes --out holds.
//
// Builds run in this process against the demo portal at a "now" the test chooses (see
// calendar-files.test.ts, whose day and helpers these follow).

import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSummary, type BuildSummary } from '../../src/pipeline/summary.js';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { paths } from '../../src/paths.js';
import { buildAt } from '../support/build-at.js';
import { makeEvents, startPortal } from '../crawl/portal.js';
import { snapshotTree } from '../support/tree.js';
import { copyHistory, lastBuild, replaceRecord, storeFile } from '../support/store.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
// The demo portal's day is 2026-03-10 in Europe/Vilnius (UTC+2). On day 1 between 09:00 and 13:00
// nothing starts or ends but the library's tour, 12:00-12:45.
const PORTAL_NOW = Date.UTC(2026, 2, 10, 7, 0);
const DAY1_0900 = Date.UTC(2026, 2, 11, 7, 0);

let work: string;

/** Build in this process at `now`; returns the summary and what the build logged. */
function build(portal: DemoPortal, site: string, cache: string, now: number, flags: Record<string, string> = {}): ReturnType<typeof buildAt> {
  return buildAt({ portal, work, site, cache, now, flags });
}

/** A full render of the same data at `now`: new output folder, a cache with only `cache`'s event history. */
async function coldBuild(portal: DemoPortal, cache: string, now: number, flags: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(join(work, 'cold-'));
  await mkdir(join(dir, 'cache'));
  await copyHistory(cache, join(dir, 'cache'));
  const { summary } = await build(portal, join(dir, 'site'), join(dir, 'cache'), now, flags);
  expect(summary.upToDate).toBe(false);
  expect(summary.calendarFiles.kept).toBe(0);
  return join(dir, 'site');
}

/** path -> SHA-256 of every file in a folder. */
async function contents(dir: string): Promise<Record<string, string>> {
  return Object.fromEntries([...(await snapshotTree(dir))].map(([p, info]) => [p, info.sha256]));
}

/** A portal of its own (tests change its events), a new output folder and cache, built once at `now`. */
async function fresh(now: number, flags: Record<string, string> = {}): Promise<{ portal: DemoPortal; site: string; cache: string; first: BuildSummary }> {
  const portal = await startDemoPortal({ now: PORTAL_NOW });
  portals.push(portal);
  const dir = await mkdtemp(join(work, 'run-'));
  const site = join(dir, 'site');
  const cache = join(dir, 'cache');
  const { summary } = await build(portal, site, cache, now, flags);
  expect(summary.upToDate).toBe(false);
  portal.resetStats();
  return { portal, site, cache, first: summary };
}


const portals: DemoPortal[] = [];
const TEST_TOKEN = 'up-to-date-token';
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-uptodate-'));
});

afterAll(async () => {
  await Promise.all([...portals.map((p) => p.close()), ...closers.map((close) => close())]);
  await rm(work, { recursive: true, force: true });
});

describe('a rebuild that would change nothing stops at "up to date"', () => {
  it('asks one conditional request per list, reads no details, writes nothing and touches no mtime, in --out or the cache', async () => {
    const { portal, site, cache, first } = await fresh(DAY1_0900);
    const out = await snapshotTree(site);
    const state = await snapshotTree(cache);

    const { summary } = await build(portal, site, cache, DAY1_0900 + 10 * MINUTE);
    expect(summary.upToDate).toBe(true);
    expect(formatSummary(summary)).toMatch(/^\S+ is up to date with .*: nothing changed since the last build \(checked in [\d.]+ s, nothing written\)\n/);
    const stats = portal.stats();
    expect(stats.byKind).toEqual({ calendars: 1, events: first.calendars, details: 0, other: 0 });
    expect(stats.notModified).toBe(1 + first.calendars);
    expect(summary.requests.total).toBe(1 + first.calendars);
    expect(summary).toMatchObject({
      calendars: first.calendars,
      events: first.events,
      files: { written: 0, removed: 0, unchanged: first.files.files, files: first.files.files },
      eventFiles: { rendered: 0, kept: first.eventFiles.rendered + first.eventFiles.kept },
      calendarFiles: { rendered: 0, kept: first.calendarFiles.rendered },
    });
    expect(await snapshotTree(site)).toEqual(out);
    expect(await snapshotTree(cache)).toEqual(state);
  });

  it('is sound: up to date just before the recorded instant and a cold build there gives the same bytes; at it, the build renders again from the last build\'s events, as a cold build does', async () => {
    const { portal, site, cache, first } = await fresh(DAY1_0900);
    const { stableUntil: until } = await lastBuild(cache);
    // The library's tour ends at 12:45 on day 1 (10:45 UTC): it leaves the feeds and becomes past.
    expect(until).toBe(Date.UTC(2026, 2, 11, 10, 45));
    const published = await contents(site);

    const before = await build(portal, site, cache, until! - 1);
    expect(before.summary.upToDate).toBe(true);
    expect(await contents(await coldBuild(portal, cache, until! - 1))).toEqual(published);

    portal.resetStats();
    const at = await build(portal, site, cache, until!);
    expect(at.summary.upToDate).toBe(false);
    expect(at.log).toContain('Building: nothing changed at the portal, but time moved on');
    // Every event taken from the last build's row: the lists are asked about once, no event's details.
    expect(at.log).toContain(`${first.events} of ${first.events} events unchanged at the portal, taken from the last build as they were (${first.calendars} of ${first.calendars} calendars whole)`);
    expect(portal.stats().byKind).toEqual({ calendars: 1, events: first.calendars, details: 0, other: 0 });
    expect(at.summary.calendarFiles.rendered).toBeGreaterThan(0);
    expect(at.summary.eventFiles).toEqual({ rendered: 0, kept: first.events });
    expect(await contents(site)).toEqual(await contents(await coldBuild(portal, cache, until!)));
    // And it leaves a record as good as a full build's: an hour later (nothing else ends before
    // 13:00), nothing to do.
    expect((await build(portal, site, cache, until! + 5 * MINUTE)).summary.upToDate).toBe(true);
  });

  it('a change at the portal means a build, and no list is asked for twice', async () => {
    const { portal, site, cache, first } = await fresh(DAY1_0900);
    portal.changeEvents(1);
    const { summary, log } = await build(portal, site, cache, DAY1_0900 + MINUTE);
    expect(summary.upToDate).toBe(false);
    expect(log).toMatch(/Building: .* changed since the last build\./);
    expect(summary.changes.changedEvents).toBe(1);
    const { byKind } = portal.stats();
    expect(byKind.calendars).toBe(1);
    expect(byKind.events).toBe(first.calendars);
    expect((await build(portal, site, cache, DAY1_0900 + 2 * MINUTE)).summary.upToDate).toBe(true);
  });

  it("a change in one calendar: the other calendars' events are taken from the last build, and the output is a cold build's", async () => {
    const { portal, site, cache, first } = await fresh(DAY1_0900);
    const [[calendarId]] = portal.changeEvents(1) as [[string, string]];
    const now = DAY1_0900 + MINUTE;
    const { summary, log } = await build(portal, site, cache, now);
    expect(summary.upToDate).toBe(false);
    // Every unchanged event from its row (the other calendars whole, by the same decision).
    expect(log).toContain(`${first.events - 1} of ${first.events} events unchanged at the portal, taken from the last build as they were (${first.calendars - 1} of ${first.calendars} calendars whole).`);
    expect(summary.changes).toEqual({ newEvents: 0, changedEvents: 1, removedEvents: 0 });
    expect(summary.eventFiles).toEqual({ rendered: 1, kept: first.events - 1 });
    expect(await contents(site)).toEqual(await contents(await coldBuild(portal, cache, now)));
    // The changed calendar's events were read again; the next build finds nothing to do.
    expect(calendarId).toBeTruthy();
    expect((await build(portal, site, cache, now + MINUTE)).summary.upToDate).toBe(true);
  });

  it('details due for a check (--details-max-age) mean a build that asks for them', async () => {
    const { portal, site, cache } = await fresh(DAY1_0900, { detailsMaxAge: '1h' });
    expect((await lastBuild(cache)).detailsDueAt).toBe(DAY1_0900 + HOUR);
    expect((await build(portal, site, cache, DAY1_0900 + HOUR - 1, { detailsMaxAge: '1h' })).summary.upToDate).toBe(true);
    portal.resetStats();
    const due = await build(portal, site, cache, DAY1_0900 + HOUR, { detailsMaxAge: '1h' });
    expect(due.summary.upToDate).toBe(false);
    expect(portal.stats().byKind.details).toBe(due.summary.events);
  });

  it('details that failed are asked for again: once the portal answers them, the build reads them', async () => {
    // The flaky portal fails the first request of about 3 in 10 URLs once (the calendar list's
    // always). Without retries, builds fail at a list until every list has had its failure; in
    // the build that gets through, details fail (published from their list entries), and they
    // succeed the next time they are asked for.
    const portal = await startDemoPortal({ now: PORTAL_NOW, faults: 'flaky' });
    portals.push(portal);
    const dir = await mkdtemp(join(work, 'flaky-'));
    const flags = { retries: '0', maxFailedDetails: '90%' };
    const site = join(dir, 'site');
    const cache = join(dir, 'cache');
    let first: Awaited<ReturnType<typeof build>> | undefined;
    for (let attempt = 0; first === undefined && attempt < 10; attempt++) first = await build(portal, site, cache, DAY1_0900, flags).catch(() => undefined);
    if (!first) throw new Error('the flaky portal never let a build through');
    expect(first.summary.details.failed).toBeGreaterThan(0);
    expect((await lastBuild(cache)).failedDetails).toHaveLength(first.summary.details.failed);
    portal.resetStats();
    const again = await build(portal, site, cache, DAY1_0900, flags);
    expect(again.summary.upToDate).toBe(false);
    expect(portal.stats().byKind.details).toBeGreaterThanOrEqual(first.summary.details.failed);
    expect(again.summary.details).toMatchObject({ failed: 0, fetched: first.summary.details.failed });
    expect((await build(portal, site, cache, DAY1_0900 + MINUTE, flags)).summary.upToDate).toBe(true);
  });

  it('details that still fail do not stop "up to date": they are asked for again, and once they can be read, the build reads them', async () => {
    // A portal that answers one event's details with 404, whatever is asked: that event is published
    // from its list entry, and so it is every time, until the portal answers.
    const broken = new Set(['a/e2']);
    const testPortal = await startPortal({
      token: TEST_TOKEN,
      calendars: [
        { id: 'a', title: 'A' },
        { id: 'b', title: 'B' },
      ],
      events: new Map([
        ['a', makeEvents('a', 3)],
        ['b', makeEvents('b', 2)],
      ]),
      detailsStatus: (calendarId, eventId) => (broken.has(`${calendarId}/${eventId}`) ? 404 : undefined),
    });
    closers.push(() => testPortal.close());
    const portal = { url: testPortal.url, timeZone: 'UTC', tokens: { university: TEST_TOKEN } };
    const dir = await mkdtemp(join(work, 'broken-'));
    const site = join(dir, 'site');
    const cache = join(dir, 'cache');
    // One failure in five events is past the default share that fails a build.
    const flags = { maxFailedDetails: '50%' };
    const at = (now: number) => buildAt({ portal, work, site, cache, now, flags });
    const detailsAsked = () => testPortal.detailsRequests().length;

    const first = await at(DAY1_0900);
    expect(first.summary.details.failed).toBe(1);
    expect((await lastBuild(cache)).failedDetails).toEqual([['a', 'e2']]);
    const published = await snapshotTree(site);

    // Still failing: up to date, after the list probes and one request for those details.
    const asked = detailsAsked();
    const again = await at(DAY1_0900 + MINUTE);
    expect(again.summary.upToDate).toBe(true);
    expect(again.summary.details).toMatchObject({ failed: 1, reused: 4 });
    expect(detailsAsked() - asked).toBe(1);
    expect(again.log).toContain('details failed');
    expect(await snapshotTree(site)).toEqual(published);

    // What a cold build at `now` publishes (with the same event history).
    const cold = async (now: number) => {
      const coldDir = await mkdtemp(join(work, 'broken-cold-'));
      await mkdir(join(coldDir, 'cache'));
      await copyHistory(cache, join(coldDir, 'cache'));
      await buildAt({ portal, work, site: join(coldDir, 'site'), cache: join(coldDir, 'cache'), now, flags });
      return contents(join(coldDir, 'site'));
    };

    // Time moves on (a new day): the others taken from the last build's rows, the failing one
    // (found still failing, not asked again) from its list entry and still listed as failed, as a
    // cold build has it.
    const nextDay = (await lastBuild(cache)).stableUntil!;
    const askedBefore = detailsAsked();
    const moved = await at(nextDay);
    expect(moved.log).toContain('4 of 5 events unchanged at the portal, taken from the last build as they were');
    expect(detailsAsked() - askedBefore).toBe(1);
    expect(moved.summary.details).toMatchObject({ failed: 1, reused: 4 });
    expect((await lastBuild(cache)).failedDetails).toEqual([['a', 'e2']]);
    expect(await contents(site)).toEqual(await cold(nextDay));

    // The portal answers now: the build reads them, and publishes what a cold build does.
    broken.clear();
    const fixed = await at(nextDay + MINUTE);
    expect(fixed.summary.upToDate).toBe(false);
    expect(fixed.log).toContain('the details of event "e2" in calendar "a", which could not be read at the last build, can now be read');
    expect(fixed.summary.details.failed).toBe(0);
    expect((await lastBuild(cache)).failedDetails).toEqual([]);
    expect(await contents(site)).toEqual(await cold(nextDay + MINUTE));
    expect((await at(nextDay + 2 * MINUTE)).summary.upToDate).toBe(true);
  });

  it('past 500 failed details the record lists none, and the next build reads everything again', async () => {
    const testPortal = await startPortal({
      token: TEST_TOKEN,
      calendars: [{ id: 'a', title: 'A' }],
      events: new Map([['a', makeEvents('a', 502)]]),
      // Every event's details but the first fail: 501 of them.
      detailsStatus: (_calendarId, eventId) => (eventId === 'e1' ? undefined : 404),
    });
    closers.push(() => testPortal.close());
    const portal = { url: testPortal.url, timeZone: 'UTC', tokens: { university: TEST_TOKEN } };
    const dir = await mkdtemp(join(work, 'many-broken-'));
    const run = { portal, work, site: join(dir, 'site'), cache: join(dir, 'cache'), flags: { maxFailedDetails: '100%' } };
    const first = await buildAt({ ...run, now: DAY1_0900 });
    expect(first.summary.details.failed).toBe(501);
    const record = await lastBuild(run.cache);
    expect(record.failedDetails).toEqual([]);
    expect(record.detailsDueAt).toBe(DAY1_0900);
    const again = await buildAt({ ...run, now: DAY1_0900 + MINUTE });
    expect(again.summary.upToDate).toBe(false);
    expect(again.log).toContain("some events' details are due for a check");
    expect(again.summary.details.failed).toBe(501);
  });

  it('a cancellation that expires while nothing changes at the portal: every event taken from the last build, its page and .ics are removed, as a cold build has it', async () => {
    const flags = { keepRemovedDays: '1', detailsMaxAge: '30d' };
    const { portal, site, cache, first } = await fresh(DAY1_0900, flags);
    const manifest = JSON.parse(await readFile(join(site, 'manifest.json'), 'utf8')) as { calendars: Array<{ id: string; slug: string }> };
    const cal = manifest.calendars[0]!;
    // The demo's event ids are safe path segments, so its folder names are its ids.
    const eventSlug = (await readdir(join(site, 'event-calendar', cal.slug, 'event'))).sort().at(-1)!;
    portal.removeEvent(cal.id, eventSlug);

    const removedAt = DAY1_0900 + MINUTE;
    const removal = await build(portal, site, cache, removedAt, flags);
    expect(removal.summary.changes.removedEvents).toBe(1);
    const { stableUntil: until } = await lastBuild(cache);
    expect(until).toBeLessThanOrEqual(removedAt + 86_400_000 + 1);
    // Walk from one recorded instant to the next until the cancellation has expired: each step
    // takes every event from the last build, and each equals a cold build at that moment.
    let now = until!;
    for (let step = 0; step < 20 && now <= removedAt + 86_400_000 + 1; step++) {
      const built = await build(portal, site, cache, now, flags);
      expect(built.summary.upToDate).toBe(false);
      expect(built.log).toMatch(/(\d+) of \1 events unchanged at the portal, taken from the last build as they were/);
      expect(await contents(site)).toEqual(await contents(await coldBuild(portal, cache, now, flags)));
      now = (await lastBuild(cache)).stableUntil!;
    }
    const files = await snapshotTree(site);
    expect(files.has(paths.eventPage(cal.slug, eventSlug))).toBe(false);
    expect(files.has(paths.eventIcs(cal.slug, eventSlug))).toBe(false);
    expect(first.events).toBeGreaterThan(1);
  });

  it('other settings, or an output folder changed by hand, mean a build that puts it right', async () => {
    const { portal, site, cache } = await fresh(DAY1_0900);
    const published = await contents(site);
    const retitled = await build(portal, site, cache, DAY1_0900, { title: 'Campus Events' });
    expect(retitled.summary.upToDate).toBe(false);
    expect(retitled.log).toContain('Building: settings, templates, token or calfeed changed since the last build.');
    expect((await build(portal, site, cache, DAY1_0900)).summary.upToDate).toBe(false);
    expect(await contents(site)).toEqual(published);

    const manifest = JSON.parse(await readFile(join(site, 'manifest.json'), 'utf8')) as { files: Array<{ path: string }> };
    const some = manifest.files.find((f) => f.path.endsWith('.html'))!.path;
    const edits: Array<[string, () => Promise<void>, RegExp]> = [
      ['a file removed', () => rm(join(site, some)), /1 of the files its manifest.json lists are missing/],
      ['a file grown', () => appendFile(join(site, some), '<!-- edited -->'), /is not as published/],
      ['a file added', () => writeFile(join(site, 'calendars', 'extra.html'), 'hello'), /calendars\/extra.html is not in its manifest.json/],
      ['manifest.json edited', () => appendFile(join(site, 'manifest.json'), '\n'), /its manifest.json is not the one the last build published/],
    ];
    for (const [what, edit, why] of edits) {
      await edit();
      const { summary, log } = await build(portal, site, cache, DAY1_0900);
      expect(summary.upToDate, what).toBe(false);
      expect(log, what).toMatch(why);
      expect(await contents(site), what).toEqual(published);
      expect((await build(portal, site, cache, DAY1_0900)).summary.upToDate, what).toBe(true);
    }
  });

  // Nine builds: 12 s on a calm 2-core machine, past the default minute at load 20.
  it('when only time moved but the build store is damaged, everything is read again, to the bytes of a build with no history', { timeout: 180_000 }, async () => {
    const damages: Array<[string, (file: string) => Promise<void>]> = [
      ['an event row cut short', async (file) => {
        const bytes = await readFile(file);
        const row = bytes.indexOf('\nS\t') + 1;
        await writeFile(file, Buffer.concat([bytes.subarray(0, row + 40), bytes.subarray(row + 60)]));
      }],
      ["an event's history record damaged", async (file) => writeFile(file, (await readFile(file, 'utf8')).replace(/(\nS\t[^\n]*\t\{"firstSeen":)/, '$1"then"'))],
      ['the store truncated', async (file) => writeFile(file, (await readFile(file)).subarray(0, 5000))],
    ];
    for (const [what, damage] of damages) {
      const { portal, site, cache, first } = await fresh(DAY1_0900);
      const before = await readFile(storeFile(cache));
      const { stableUntil: until } = await lastBuild(cache);
      const coldDir = await mkdtemp(join(work, 'damaged-cold-'));
      await buildAt({ portal, work, site: join(coldDir, 'site'), cache: join(coldDir, 'cache'), now: until! });
      await damage(storeFile(cache));
      expect(await readFile(storeFile(cache)), what).not.toEqual(before);
      const built = await build(portal, site, cache, until!);
      expect(built.log, what).toMatch(/build store: .* is corrupt or truncated: starting empty, full build/);
      expect(built.log, what).not.toContain('taken from the last build as they were');
      // Without the history every event is new again: the bytes are those of a build with none.
      expect(built.summary.changes.newEvents, what).toBe(first.events);
      expect(await contents(site), what).toEqual(await contents(join(coldDir, 'site')));
    }
  });

  it('a missing or damaged record of the last build means a build, never an error', async () => {
    const { portal, site, cache } = await fresh(DAY1_0900);
    // A store without a record: its history and render record still stand, so nothing is written.
    await replaceRecord(cache);
    const { summary } = await build(portal, site, cache, DAY1_0900);
    expect(summary.upToDate).toBe(false);
    expect(summary.files.written).toBe(0);
    expect((await build(portal, site, cache, DAY1_0900)).summary.upToDate).toBe(true);
    // A damaged record is a damaged store: a full build, and the next one is up to date.
    for (const damage of [(at: number) => `R\t{"at":${at},"build":{"builtAt":`, (at: number) => `R\t{"at":${at},"build":{}}`, (at: number) => `R\t{"at":${at + 1},"build":null}`]) {
      await replaceRecord(cache, (at) => `${damage(at)}\n`);
      const { summary: again, log } = await build(portal, site, cache, DAY1_0900);
      expect(again.upToDate).toBe(false);
      expect(log).toMatch(/build store: .* is corrupt or truncated/);
      expect((await build(portal, site, cache, DAY1_0900)).summary.upToDate).toBe(true);
    }
  });

});
