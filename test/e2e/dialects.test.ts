// Issue 8 acceptance: every demo dialect built end to end by the real CLI gives the same events;
// the envelope dialect's paged lists are mirrored whole; the `custom` dialect, whose start field
// detection cannot find, builds correctly once the `fields` block `calfeed inspect` prints is edited.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ICAL from 'ical.js';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoDialect, type DemoPortal } from '../../src/demo/server.js';
import { paths } from '../../src/paths.js';
import { makeEvents, startPortal } from '../crawl/portal.js';
import { DEMO_WARNINGS, runCli, type CliResult } from '../support/cli.js';

// One "now" for every portal: all dialects then serve the same day's data.
const NOW = Date.now();
const SITE = 'https://events.example.edu/';
const DIALECTS: DemoDialect[] = ['default', 'envelope', 'multilingual', 'custom'];

let work: string;
const portals = new Map<DemoDialect, DemoPortal>();
const builds = new Map<string, CliResult>();

/** Output folder of a named build. */
const outOf = (name: string): string => join(work, name, 'site');

/** Run `calfeed build` against a dialect's portal into its own folder, in its own working dir. */
async function build(name: string, dialect: DemoDialect, extra: string[] = []): Promise<CliResult> {
  const portal = portals.get(dialect)!;
  const cwd = join(work, name);
  await mkdir(cwd, { recursive: true });
  const r = await runCli(['build', '--base-url', portal.url, '--out', outOf(name), '--cache-dir', join(cwd, 'cache'), '--site-url', SITE, '--json', ...extra], {
    env: { CALFEED_TOKEN: portal.tokens.university },
    cwd,
  });
  builds.set(name, r);
  return r;
}

interface Manifest {
  calendars: Array<{ id: string; slug: string; title: string; events: number }>;
}

const manifestOf = async (name: string): Promise<Manifest> => JSON.parse(await readFile(join(outOf(name), 'manifest.json'), 'utf8')) as Manifest;

/** An ical.js time as a comparable string: `DATE:YYYY-MM-DD` for all-day values, UTC ISO otherwise. */
function when(t: ICAL.Time | undefined): string {
  if (!t) return '-';
  return t.isDate ? `DATE:${t.toString()}` : t.toJSDate().toISOString();
}

/** Per calendar id: the sorted event facts read from its calendar.ics with ical.js. */
async function eventsByCalendar(name: string): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>();
  for (const cal of (await manifestOf(name)).calendars) {
    const ics = await readFile(join(outOf(name), paths.calendar(cal.slug, 'calendar.ics')), 'utf8');
    const facts = new ICAL.Component(ICAL.parse(ics)).getAllSubcomponents('vevent').map((v) => {
      const e = new ICAL.Event(v);
      return JSON.stringify([e.uid, e.summary, when(e.startDate), when(e.endDate), e.location ?? '', v.getFirstPropertyValue('status')]);
    });
    result.set(cal.id, facts.sort());
  }
  return result;
}

/** Per calendar id: (title, start, end, location) from its feed.json `_calfeed` extension. */
async function feedFacts(name: string): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>();
  for (const cal of (await manifestOf(name)).calendars) {
    const feed = JSON.parse(await readFile(join(outOf(name), paths.calendar(cal.slug, 'feed.json')), 'utf8')) as { items: Array<{ _calfeed: Record<string, unknown> }> };
    result.set(cal.id, feed.items.map(({ _calfeed: x }) => JSON.stringify([x.eventId, x.title, x.start, x.end, x.allDay, x.location])).sort());
  }
  return result;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-dialects-'));
  for (const dialect of DIALECTS) portals.set(dialect, await startDemoPortal({ now: NOW, dialect }));
  // default and envelope carry offsets or Z; the multilingual dialect's wall times need the zone.
  const results = await Promise.all([
    build('default', 'default'),
    build('envelope', 'envelope'),
    build('multilingual', 'multilingual', ['--time-zone', portals.get('multilingual')!.timeZone]),
  ]);
  for (const r of results) expect(r.code, r.stderr).toBe(0);
});

afterAll(async () => {
  for (const portal of portals.values()) await portal.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('every dialect builds the same events', () => {
  it('publishes every event of every calendar from each dialect, warning only of the demo\'s events without a location', async () => {
    for (const name of ['default', 'envelope', 'multilingual']) {
      const summary = JSON.parse(builds.get(name)!.stdout);
      expect(summary.calendars, name).toBe(5);
      expect(summary.events, name).toBe(59);
      expect(summary.warnings, name).toEqual(DEMO_WARNINGS);
    }
  });

  it('gives identical UIDs, titles, UTC times or all-day dates, locations and statuses in each calendar.ics', async () => {
    const reference = await eventsByCalendar('default');
    expect([...reference.values()].flat()).toHaveLength(59);
    // The comparison must see all-day ranges, timed events, missing ends and both kinds of location.
    const all = [...reference.values()].flat().map((f) => JSON.parse(f) as string[]);
    expect(all.some((f) => f[2]!.startsWith('DATE:') && f[3]!.startsWith('DATE:'))).toBe(true);
    expect(all.some((f) => f[2]!.endsWith('Z'))).toBe(true);
    expect(all.some((f) => f[4]!.includes(', '))).toBe(true);
    expect(all.some((f) => f[5] === 'CANCELLED')).toBe(true);
    expect(await eventsByCalendar('envelope')).toEqual(reference);
    expect(await eventsByCalendar('multilingual')).toEqual(reference);
  });

  it('gives identical upcoming items (title, start, end, location) in each feed.json', async () => {
    const reference = await feedFacts('default');
    expect([...reference.values()].flat().length).toBeGreaterThan(30);
    expect(await feedFacts('envelope')).toEqual(reference);
    expect(await feedFacts('multilingual')).toEqual(reference);
  });

  it('reads the multilingual wall times in the portal zone on both sides of a DST change', async () => {
    // The default dialect states each offset; the multilingual one gives bare wall times. Equal UTC
    // instants above prove the conversion; here we check the data really spans two offsets.
    const offsets = new Set<string>();
    for (const cal of (await manifestOf('default')).calendars) {
      const list = JSON.parse(await readFile(join(outOf('default'), paths.eventsMirror(cal.slug)), 'utf8')) as Array<{ startDateTime?: string }>;
      for (const e of list) if (e.startDateTime) offsets.add(e.startDateTime.slice(-6));
    }
    // Europe/Vilnius is +02:00 in winter and +03:00 in summer; the demo spans about six months.
    expect([...offsets].every((o) => o === '+02:00' || o === '+03:00')).toBe(true);
    if (offsets.size < 2) console.warn('demo data does not cross a DST change today; the DST part of this check is idle');
  });
});

describe('envelope dialect: paging', () => {
  /** Every item of a calendar's event list, following `links.next` page by page over HTTP. */
  async function allPages(portal: DemoPortal, calendarId: string): Promise<{ items: unknown[]; pages: number }> {
    const origin = new URL(portal.url).origin;
    let next: string | undefined = `${portal.url}/event-calendar/${encodeURIComponent(calendarId)}/events`;
    const items: unknown[] = [];
    let pages = 0;
    while (next) {
      const res = await request(next, { headers: { authorization: `Bearer ${portal.tokens.university}` } });
      expect(res.statusCode).toBe(200);
      const body = (await res.body.json()) as { data: unknown[]; links?: { next?: string } };
      items.push(...body.data);
      pages++;
      next = body.links?.next ? new URL(body.links.next, origin).href : undefined;
    }
    return { items, pages };
  }

  it('follows every page, so each events mirror holds the complete list', async () => {
    const portal = portals.get('envelope')!;
    let paged = 0;
    for (const cal of (await manifestOf('envelope')).calendars) {
      const { items, pages } = await allPages(portal, cal.id);
      if (pages > 1) paged++;
      const mirror = JSON.parse(await readFile(join(outOf('envelope'), paths.eventsMirror(cal.slug)), 'utf8')) as { data: unknown[]; meta: { total: number } };
      expect(mirror.data, cal.id).toEqual(items);
      expect(mirror.data.length, cal.id).toBe(mirror.meta.total);
      // The merged mirror is one complete page: it must not send a consumer to pages it lacks.
      const paging = mirror as unknown as { links?: { next?: unknown }; meta: Record<string, unknown> };
      expect(paging.links?.next ?? null, cal.id).toBeNull();
      if (pages > 1) expect(paging.meta.total_pages, cal.id).toBe(paging.meta.page);
      expect(cal.events, cal.id).toBe(items.length);
    }
    // Page size 5 and 11 to 13 events per calendar: every calendar is paged.
    expect(paged).toBe(5);
  });
});

describe('multilingual dialect: --locale', () => {
  it('--locale lt,en picks the Lithuanian titles of calendars and events', async () => {
    const portal = portals.get('multilingual')!;
    const r = await build('lithuanian', 'multilingual', ['--time-zone', portal.timeZone, '--locale', 'lt,en']);
    expect(r.code, r.stderr).toBe(0);
    const calendars = JSON.parse(await readFile(join(outOf('lithuanian'), paths.calendarsMirror()), 'utf8')) as {
      eventCalendars: Array<{ calendarId: string; titleLt: string; titleEn: string }>;
    };
    const manifest = await manifestOf('lithuanian');
    let checked = 0;
    for (const rawCal of calendars.eventCalendars) {
      const cal = manifest.calendars.find((c) => c.id === String(rawCal.calendarId))!;
      expect(cal.title).toBe(rawCal.titleLt);
      expect(cal.title).not.toBe(rawCal.titleEn);
      const ics = new ICAL.Component(ICAL.parse(await readFile(join(outOf('lithuanian'), paths.calendar(cal.slug, 'calendar.ics')), 'utf8')));
      expect(ics.getFirstPropertyValue('x-wr-calname')).toBe(rawCal.titleLt);
      const list = JSON.parse(await readFile(join(outOf('lithuanian'), paths.eventsMirror(cal.slug)), 'utf8')) as { items: Array<{ eventId: number | string; title: { en: string; lt: string } }> };
      const summaries = new Map(ics.getAllSubcomponents('vevent').map((v) => [String(v.getFirstPropertyValue('uid')), String(v.getFirstPropertyValue('summary'))]));
      for (const e of list.items) {
        const summary = [...summaries].find(([uid]) => uid.startsWith(`${cal.id}/${e.eventId}@`))?.[1];
        expect(summary, `${cal.id}/${e.eventId}`).toBe(e.title.lt);
        checked++;
      }
    }
    expect(checked).toBe(59);
    // Pages follow the language too.
    expect(await readFile(join(outOf('lithuanian'), 'index.html'), 'utf8')).toMatch(/<html[^>]*lang="lt"/);
  });
});

describe('custom dialect: a start field detection cannot find', () => {
  // Issue 20: the build failed after 59 identical warnings, one per event, and blamed --max-failed-details (5%).
  it('without a mapping, the build fails with one warning and says which field to map, and publishes nothing', async () => {
    const r = await build('custom-unmapped', 'custom');
    // Every event lacks a detectable start: an empty site must not replace a good one.
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.match(/^warning: /gm)).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^warning: all 59 events skipped, each for the reason the first was: event "[^"]+" of calendar "[^"]+": no start field was detected; set fields\.event\.start in calfeed\.config\.json \(run calfeed inspect\); skipped$/m,
    );
    const error = 'no start field detected in any event: map fields.event.start in calfeed.config.json (run calfeed inspect). Nothing was published.';
    expect(r.stderr).toContain(`\nerror: ${error}\n`);
    expect(r.stderr).not.toMatch(/--max-failed-details/);
    const failure = JSON.parse(r.stdout);
    expect(failure).toMatchObject({ ok: false, error: { code: 'BUILD', exitCode: 1, message: error } });
    await expect(readFile(join(outOf('custom-unmapped'), 'calendar.ics'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  // The error named the last warning of the first skipped event as why, e.g. "no title field found".
  it('with only some events unreadable, warns for each, blames --max-failed-details, and gives why they were skipped', async () => {
    // Three events with neither a start nor a title: skipped for the start, untitled besides.
    const events = makeEvents('a', 10).map((e, i) => (i < 3 ? { id: e.id, title: '' } : e));
    const portal = await startPortal({ token: 'partial-token', calendars: [{ id: 'a', title: 'A' }], events: new Map([['a', events]]) });
    try {
      const cwd = join(work, 'partial');
      await mkdir(cwd, { recursive: true });
      const r = await runCli(['build', '--base-url', portal.url, '--out', join(cwd, 'site'), '--site-url', SITE], { env: { CALFEED_TOKEN: 'partial-token' }, cwd });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr.match(/^warning: event "e[123]" of calendar "a": no start field was detected; .*; skipped$/gm)).toHaveLength(3);
      expect(r.stderr).toMatch(/^warning: event "e1" of calendar "a": no title field found/m);
      expect(r.stderr).toMatch(
        /^error: 3 of 10 events could not be read, more than --max-failed-details \(5%\) allows, so nothing was published\. The first: event "e[123]" of calendar "a": no start field was detected;/m,
      );
    } finally {
      await portal.close();
    }
  });

  it('builds the same events as the default dialect once the printed fields block is edited', async () => {
    const portal = portals.get('custom')!;
    const cwd = join(work, 'custom-mapped');
    await mkdir(cwd, { recursive: true });
    const inspect = await runCli(['inspect', '--base-url', portal.url], { env: { CALFEED_TOKEN: portal.tokens.university }, cwd });
    // No start in any record: inspect fails, and still prints the block to edit.
    expect(inspect.code, inspect.stderr).toBe(1);
    expect(inspect.stdout).toMatch(/warning: no start found in any record: .*kickoff\.at/);
    // The block is everything after the "Paste and edit" line: take it as a user would.
    const marker = inspect.stdout.indexOf('\n', inspect.stdout.indexOf('Paste and edit'));
    const block = JSON.parse(inspect.stdout.slice(marker + 1)) as { fields: { event: Record<string, unknown> } };
    expect(block.fields.event.start).toBe('');
    block.fields.event.start = 'kickoff.at';
    await writeFile(join(cwd, 'calfeed.config.json'), JSON.stringify(block, null, 2));

    const r = await build('custom-mapped', 'custom');
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.events).toBe(59);
    expect(summary.warnings).toEqual(DEMO_WARNINGS);
    expect(await eventsByCalendar('custom-mapped')).toEqual(await eventsByCalendar('default'));
    expect(await feedFacts('custom-mapped')).toEqual(await feedFacts('default'));
  });
});
