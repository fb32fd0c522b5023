// Issue 5: a rebuild renders a calendar's calendar.ics, feeds and pages (and the combined files)
// only when something they are rendered from changed, "now" included, and its output is always
// byte for byte what a full render of the same data at the same time gives.
//
// Builds run in this process against the demo portal, each at a "now" the test chooses, so the
// moment an event ends is known exactly. A "cold" build is the full render to compare with: a new
// output folder and a cache holding only the event history (first-seen times, sequences) of the
// build it is compared with, so the events are the same and nothing can be kept.

import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuildSummary } from '../../src/pipeline/summary.js';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { categoryKey, paths } from '../../src/paths.js';
import { buildAt } from '../support/build-at.js';
import { snapshotTree } from '../support/tree.js';
import { copyHistory, replaceRecord, storeFile } from '../support/store.js';

const HOUR = 3_600_000;
// The demo portal's day: 2026-03-10 in Europe/Vilnius (UTC+2 then). Its events sit at wall times
// on days counted from it; the library's tour on day 1 runs 12:00-12:45, and nothing else starts
// or ends on day 1 between 09:00 and 13:00.
const PORTAL_NOW = Date.UTC(2026, 2, 10, 7, 0);
const DAY1_0900 = Date.UTC(2026, 2, 11, 7, 0);
const DAY1_1000 = DAY1_0900 + HOUR;
const DAY1_1250 = Date.UTC(2026, 2, 11, 10, 50);
const TOUR = 'lib-0010';

let portal: DemoPortal;
let work: string;

/** Build in this process at `now`; returns the summary and what the build logged. */
function build(site: string, cache: string, now: number, flags: Record<string, string> = {}): ReturnType<typeof buildAt> {
  return buildAt({ portal, work, site, cache, now, flags });
}

/** A full render of the same data at `now`: new output folder, a cache with only `cache`'s event history. */
async function coldBuild(cache: string, now: number, flags: Record<string, string> = {}): Promise<{ site: string; summary: BuildSummary }> {
  const dir = await mkdtemp(join(work, 'cold-'));
  await mkdir(join(dir, 'cache'));
  await copyHistory(cache, join(dir, 'cache'));
  const { summary } = await build(join(dir, 'site'), join(dir, 'cache'), now, flags);
  expect(summary.calendarFiles.kept).toBe(0);
  return { site: join(dir, 'site'), summary };
}

/** The output folder name of a calendar, by its title, from the manifest. */
async function slugOf(site: string, title: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(site, 'manifest.json'), 'utf8')) as { calendars: Array<{ slug: string; title: string }> };
  const cal = manifest.calendars.find((c) => c.title === title);
  if (!cal) throw new Error(`no calendar "${title}" in the demo portal's output`);
  return cal.slug;
}

/** path -> SHA-256 of every file in a folder. */
async function contents(dir: string): Promise<Record<string, string>> {
  return Object.fromEntries([...(await snapshotTree(dir))].map(([p, info]) => [p, info.sha256]));
}

/** The categories of a build: how many (each has five files of its own, and categories/index.html lists them). */
async function categoryCount(site: string): Promise<number> {
  return (await readdir(join(site, 'categories'), { withFileTypes: true })).filter((d) => d.isDirectory()).length;
}

/** The files of an event's categories, five each: they render again with the event. */
async function categoryShare(site: string, calendarSlug: string, eventId: string): Promise<number> {
  const details = JSON.parse(await readFile(join(site, paths.detailsMirror(calendarSlug, eventId)), 'utf8')) as { categories?: string[] };
  return 5 * new Set((details.categories ?? []).map(categoryKey).filter((k) => k !== '')).size;
}

/** A new output folder and cache, built once at `now`. */
async function fresh(now: number, flags: Record<string, string> = {}): Promise<{ site: string; cache: string; all: number }> {
  const dir = await mkdtemp(join(work, 'run-'));
  const site = join(dir, 'site');
  const cache = join(dir, 'cache');
  const { summary } = await build(site, cache, now, flags);
  // Each calendar's seven files; the combined calendar.ics, three feeds, index.html and search.json; the categories'.
  const all = summary.calendars * 7 + 6 + (await categoryCount(site)) * 5 + 1;
  expect(summary.calendarFiles).toEqual({ rendered: all, kept: 0 });
  return { site, cache, all };
}

beforeAll(async () => {
  portal = await startDemoPortal({ now: PORTAL_NOW });
  work = await mkdtemp(join(tmpdir(), 'calfeed-calfiles-'));
});

afterAll(async () => {
  await portal?.close();
  await rm(work, { recursive: true, force: true });
});

describe('calendar files are rendered only when what they show changes', () => {
  it('an hour later with nothing ending keeps them all; once an event ends, its calendar and the combined files render again, as a cold build would', async () => {
    const { site, cache, all } = await fresh(DAY1_0900);
    const tourPage = `events/${TOUR}.html`;
    const library = await slugOf(site, 'University Library');
    const libraryIndex = (): Promise<string> => readFile(join(site, paths.calendar(library, 'index.html')), 'utf8');
    expect(await libraryIndex()).toContain(tourPage);

    const before = await snapshotTree(site);
    const later = await build(site, cache, DAY1_1000);
    expect(later.summary.calendarFiles).toEqual({ rendered: 0, kept: all });
    expect(later.summary.files.written).toBe(0);
    expect(await snapshotTree(site)).toEqual(before);
    expect(await contents(site)).toEqual(await contents((await coldBuild(cache, DAY1_1000)).site));

    // 12:50: the tour (12:00-12:45) is over. Same day, so only the library's calendar files (it
    // moves from the upcoming list to past.html), the combined feeds (it leaves them),
    // index.html (the library has one upcoming event fewer), search.json (it leaves it), the tour's
    // categories' files and categories/index.html (their counts) depend on that.
    const ended = await build(site, cache, DAY1_1250);
    expect(await libraryIndex()).not.toContain(tourPage);
    expect(await readFile(join(site, paths.calendar(library, 'past.html')), 'utf8')).toContain(tourPage);
    const tour = 7 + 3 + 1 + 1 + (await categoryShare(site, library, TOUR)) + 1;
    expect(ended.summary.calendarFiles).toEqual({ rendered: tour, kept: all - tour });
    expect(await contents(site)).toEqual(await contents((await coldBuild(cache, DAY1_1250)).site));
  });

  it('an event leaving the iCalendar window renders its calendar and the combined calendar.ics, as a cold build would', async () => {
    // With 3 days of past events in calendar.ics, the library's workshop of day -2 (10:00-11:00)
    // leaves it at 11:00 on day 1; nothing else starts, ends or leaves a window from 10:00 to 11:30.
    const flags = { icalPastDays: '3' };
    const { site, cache, all } = await fresh(DAY1_1000, flags);
    const libraryIcs = paths.calendar(await slugOf(site, 'University Library'), 'calendar.ics');
    expect(await readFile(join(site, libraryIcs), 'utf8')).toContain('/lib-0009@');
    const { summary } = await build(site, cache, Date.UTC(2026, 2, 11, 9, 30), flags);
    expect(await readFile(join(site, libraryIcs), 'utf8')).not.toContain('/lib-0009@');
    // The calendar's files, the combined calendar.ics and the workshop's categories'.
    const workshop = 7 + 1 + (await categoryShare(site, await slugOf(site, 'University Library'), 'lib-0009'));
    expect(summary.calendarFiles).toEqual({ rendered: workshop, kept: all - workshop });
    expect(await contents(site)).toEqual(await contents((await coldBuild(cache, Date.UTC(2026, 2, 11, 9, 30), flags)).site));
  });

  it('after midnight, with nothing starting or ending, the calendar pages show the new day, as a cold build would', async () => {
    // 23:30 on day 1 and 00:30 on day 2 in Vilnius: no event starts or ends between them, but the
    // exhibition that opened on day -4 is in progress, listed under "today" on its calendar's page.
    const { site, cache, all } = await fresh(Date.UTC(2026, 2, 11, 21, 30));
    const arts = paths.calendar(await slugOf(site, 'Arts & Culture'), 'index.html');
    const before = await snapshotTree(site);
    const { summary } = await build(site, cache, Date.UTC(2026, 2, 11, 22, 30));
    // Every calendar's and category's files and the home page (each page's "today" moved), none of
    // the combined feeds and calendar.ics, nor search.json (no event started or ended), nor
    // categories/index.html (no count changed).
    expect(summary.calendarFiles).toEqual({ rendered: all - 6, kept: 6 });
    expect((await snapshotTree(site)).get(arts)!.sha256).not.toBe(before.get(arts)!.sha256);
    expect(await contents(site)).toEqual(await contents((await coldBuild(cache, Date.UTC(2026, 2, 11, 22, 30))).site));
  });

  it("a changed event renders its calendar's files and the combined ones it is in again, as a cold build would", async () => {
    const { site, cache, all } = await fresh(DAY1_0900);
    const steps = [
      // A lecture 45 days ago: in its calendar's calendar.ics and past.html, and in the combined
      // calendar.ics (90 days back); in no feed, and no upcoming count changes. search.json is
      // rendered again for any change of a calendar's events (to the same bytes here).
      { event: 'science/1001', title: 'Faculty of Science', combined: 1 + 1, changes: ['calendar.ics', 'past.html'] },
      // A gala in 12 days: in the feeds as well, its calendar's and the combined ones, on the home page and in search.json.
      { event: 'arts-culture/2001', title: 'Arts & Culture', combined: 1 + 3 + 1 + 1, changes: ['calendar.ics', 'rss.xml', 'index.html'] },
    ] as const;
    for (const step of steps) {
      const before = await snapshotTree(site);
      expect(portal.changeEvents(1).map((pair) => pair.join('/'))).toEqual([step.event]);
      const { summary } = await build(site, cache, DAY1_0900);
      expect(summary.changes.changedEvents).toBe(1);
      const [calendarSlug, eventId] = step.event.split('/') as [string, string];
      const rendered = 7 + step.combined + (await categoryShare(site, calendarSlug, eventId));
      expect(summary.calendarFiles, step.event).toEqual({ rendered, kept: all - rendered });
      const slug = await slugOf(site, step.title);
      const after = await snapshotTree(site);
      for (const name of step.changes) {
        const p = paths.calendar(slug, name);
        expect(after.get(p)!.sha256, p).not.toBe(before.get(p)!.sha256);
      }
      for (const [p, info] of after) {
        if (p.startsWith('calendars/') && !p.startsWith(`calendars/${slug}/`)) expect(info, p).toEqual(before.get(p));
      }
      expect(await contents(site)).toEqual(await contents((await coldBuild(cache, DAY1_0900)).site));
    }
  });

  // Seventeen builds, each rendering every calendar file: past the default minute on a busy 2-core machine.
  it('other templates or site settings render every calendar file again, and so does going back', { timeout: 180_000 }, async () => {
    const { site, cache, all } = await fresh(DAY1_0900);
    const templates = join(work, 'templates', 'partials');
    await mkdir(templates, { recursive: true });
    const builtin = await readFile(new URL('../../templates/partials/day-list.hbs', import.meta.url), 'utf8');
    await writeFile(join(templates, 'day-list.hbs'), `<!-- local -->\n${builtin}`);
    const withTemplates = { templates: join(work, 'templates') };

    const changed = await build(site, cache, DAY1_0900, withTemplates);
    expect(changed.summary.calendarFiles).toEqual({ rendered: all, kept: 0 });
    expect(await readFile(join(site, paths.calendar(await slugOf(site, 'University Library'), 'index.html')), 'utf8')).toContain('<!-- local -->');
    expect((await build(site, cache, DAY1_0900, withTemplates)).summary.calendarFiles).toEqual({ rendered: 0, kept: all });

    const settings: Array<Record<string, string>> = [{ title: 'Campus Events' }, { feedLimit: '3' }, { icalPastDays: '1' }, { refresh: '1h' }, { locale: 'lt' }, { siteUrl: 'https://other.example.edu/' }];
    for (const flags of settings) {
      const { summary } = await build(site, cache, DAY1_0900, flags);
      expect(summary.calendarFiles, JSON.stringify(flags)).toEqual({ rendered: all, kept: 0 });
      expect(await contents(site), JSON.stringify(flags)).toEqual(await contents((await coldBuild(cache, DAY1_0900, flags)).site));
    }
    const back = await build(site, cache, DAY1_0900);
    expect(back.summary.calendarFiles).toEqual({ rendered: all, kept: 0 });
    expect(await contents(site)).toEqual(await contents((await coldBuild(cache, DAY1_0900)).site));
  });

  it('a store without a record of rendered files renders everything, to the same bytes; a damaged one is a full build', async () => {
    const { site, cache, all } = await fresh(DAY1_0900);
    const before = await snapshotTree(site);
    const text = await readFile(storeFile(cache), 'utf8');
    // The store without its render record (G rows) and without its record of the last build,
    // which would find nothing changed and stop before the render record is read.
    await writeFile(storeFile(cache), text.split('\n').filter((row) => !row.startsWith('G\t')).join('\n'));
    await replaceRecord(cache);
    const { summary } = await build(site, cache, DAY1_0900);
    expect(summary.calendarFiles).toEqual({ rendered: all, kept: 0 });
    // Same bytes as published, so nothing is written and every mtime stays.
    expect(summary.files.written).toBe(0);
    expect(await snapshotTree(site)).toEqual(before);
    expect((await build(site, cache, DAY1_0900)).summary.calendarFiles).toEqual({ rendered: 0, kept: all });
    // A damaged render record is a damaged store: everything is rendered, to a cold build's bytes.
    for (const damage of [(t: string) => t.replace(/(\nG\t"[^"]*"\t\{"input":)/, '$1"x'), (t: string) => t.replace(/(\nG\t[^\n]*?"files":\{"[^"]*":")[0-9a-f]/, '$1Z')]) {
      const good = await readFile(storeFile(cache), 'utf8');
      expect(damage(good)).not.toBe(good);
      await writeFile(storeFile(cache), damage(good));
      // (With its record, the rebuild would find nothing changed and read no further.)
      await replaceRecord(cache);
      const { summary: again, log } = await build(site, cache, DAY1_0900);
      expect(log).toMatch(/build store: .* is corrupt or truncated/);
      expect(again.calendarFiles).toEqual({ rendered: all, kept: 0 });
      expect(await contents(site)).toEqual(await contents((await coldBuild(join(site, '..', 'no-cache'), DAY1_0900)).site));
    }
  });

  // Also a regression: event pages and .ics were kept by the render fingerprints of a store that no
  // longer described --out, so the pages published with the other title stayed.
  it('regression: a store that does not describe the published files (a build stopped between publishing and saving it) renders them, event pages too', async () => {
    const { site, cache, all } = await fresh(DAY1_0900);
    const saved = await readFile(storeFile(cache));
    // Published with another title, then the store of the first build put back: every input
    // matches its render record, but the published pages and feeds are not the ones it describes.
    await build(site, cache, DAY1_0900, { title: 'Campus Events' });
    await writeFile(storeFile(cache), saved);
    const { summary } = await build(site, cache, DAY1_0900);
    // Per calendar, calendar.ics does not show the site title, but the group is rendered whole;
    // search.json does not show it either, and is a group of its own: kept, the bytes published.
    expect(summary.calendarFiles).toEqual({ rendered: all - 1, kept: 1 });
    expect(await readFile(join(site, 'index.html'), 'utf8')).not.toContain('Campus Events');
    const page = [...(await snapshotTree(site)).keys()].find((p) => /^calendars\/[^/]+\/events\/[^/]+\.html$/.test(p))!;
    expect(await readFile(join(site, page), 'utf8')).not.toContain('Campus Events');
    expect(await contents(site)).toEqual(await contents((await coldBuild(cache, DAY1_0900)).site));
  });
});
