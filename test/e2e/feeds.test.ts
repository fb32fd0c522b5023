// Issue 3 acceptance: the feeds of real demo-portal builds, read by real client parsers (ical.js,
// Thunderbird's parser, and rss-parser), over several builds into the same --out with one cache:
// byte-identical rebuilds, SEQUENCE after a change, removed events cancelled then dropped.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ICAL from 'ical.js';
import Parser from 'rss-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { paths } from '../../src/paths.js';
import { runCli, type CliResult } from '../support/cli.js';
import { listFiles } from '../support/tree.js';

const NOW = Date.now();
const SITE = 'https://events.example.edu/feeds/';
const DAY = 86_400_000;
let portal: DemoPortal;
let work: string;
let out: string;

/** A build into the shared --out with the shared cache; --refresh 90m to see it reach the headers. */
function build(extra: string[] = [], into = out, cache = join(work, 'cache')): Promise<CliResult> {
  return runCli(['build', '--base-url', portal.url, '--out', into, '--cache-dir', cache, '--site-url', SITE, '--time-zone', portal.timeZone, '--refresh', '90m', '--json', ...extra], {
    env: { CALFEED_TOKEN: portal.tokens.university },
    cwd: work,
  });
}

async function mustBuild(extra: string[] = [], into = out, cache?: string): Promise<{ summary: Record<string, unknown> & { events: number; changes: Record<string, number> } }> {
  const r = await build(extra, into, cache);
  expect(r.code, r.stderr).toBe(0);
  return { summary: JSON.parse(r.stdout) };
}

interface Manifest {
  calendars: Array<{ id: string; slug: string; title: string; events: number }>;
}
const manifest = async (dir = out): Promise<Manifest> => JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest;

/** The portal's own record of an event (default dialect), read from the mirror calfeed wrote. */
interface RawEvent {
  eventId: number | string;
  title: string;
  startDateTime?: string;
  endDateTime?: string | null;
  startDate?: string;
  endDate?: string;
  allDay: boolean;
  location?: string | { name: string; address: string };
  status: string;
  updatedAt: string;
  url: string;
  categories: string[];
  organizer?: { name: string; email?: string };
}

async function rawEvents(dir = out): Promise<Array<RawEvent & { calendar: string; slug: string }>> {
  const result: Array<RawEvent & { calendar: string; slug: string }> = [];
  for (const cal of (await manifest(dir)).calendars) {
    const list = JSON.parse(await readFile(join(dir, paths.eventsMirror(cal.slug)), 'utf8')) as Array<{ eventId: number | string }>;
    for (const entry of list) {
      const details = JSON.parse(await readFile(join(dir, paths.detailsMirror(cal.slug, String(entry.eventId))), 'utf8')) as RawEvent;
      result.push({ ...details, calendar: cal.id, slug: cal.slug });
    }
  }
  return result;
}

const parseIcs = async (file: string, dir = out): Promise<ICAL.Component> => new ICAL.Component(ICAL.parse(await readFile(join(dir, file), 'utf8')));
const vevents = (c: ICAL.Component): ICAL.Component[] => c.getAllSubcomponents('vevent');
const prop = (v: ICAL.Component, name: string): string => String(v.getFirstPropertyValue(name) ?? '');
/** VEVENTs of a calendar file keyed by UID, as jCal (everything the parser saw). */
const byUid = (c: ICAL.Component): Map<string, unknown> => new Map(vevents(c).map((v) => [prop(v, 'uid'), v.toJSON()]));
const addDays = (date: string, n: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);
const icsFiles = async (dir = out): Promise<string[]> => (await listFiles(dir)).filter((f) => f.endsWith('.ics'));
const rfc822 = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} (GMT|[+-]\d{4})$/;
const rss = new Parser();
const unescapeHtml = (s: string): string => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');

/** sha256 of every file of the output except the manifest (which lists the same hashes). */
async function hashes(dir = out): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  for (const f of await listFiles(dir)) result.set(f, createHash('sha256').update(await readFile(join(dir, f))).digest('hex'));
  return result;
}

let first: Map<string, string>;

beforeAll(async () => {
  portal = await startDemoPortal({ now: NOW });
  work = await mkdtemp(join(tmpdir(), 'calfeed-feeds-'));
  out = join(work, 'site');
  await mustBuild();
  first = await hashes();
});

afterAll(async () => {
  await portal?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('feeds of unchanged data', () => {
  it('a second build of unchanged data writes byte-identical feeds, calendars and pages', async () => {
    const { summary } = await mustBuild();
    expect(summary.changes).toEqual({ newEvents: 0, changedEvents: 0, removedEvents: 0 });
    const second = await hashes();
    expect([...second.keys()]).toEqual([...first.keys()]);
    // Combined and per-calendar feeds, one .ics per event, every page (categories' in their own test).
    const feeds = [...first.keys()].filter((f) => /(rss\.xml|atom\.xml|feed\.json|\.ics|\.html)$/.test(f) && !f.startsWith('categories/'));
    expect(feeds.filter((f) => f.endsWith('calendar.ics'))).toHaveLength(6);
    expect(feeds.filter((f) => f.endsWith('rss.xml'))).toHaveLength(6);
    expect(feeds.filter((f) => /events\/[^/]+\.ics$/.test(f)).length).toBe(59);
    for (const f of [...first.keys()]) expect(second.get(f), f).toBe(first.get(f));
  });

  it('every .ics has CRLF lines of at most 75 octets, folded between whole UTF-8 characters', async () => {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let folded = 0;
    const files = await icsFiles();
    // Combined, per calendar, per event, per category.
    const categories = files.filter((f) => f.startsWith('categories/')).length;
    expect(categories).toBeGreaterThan(40);
    expect(files.length).toBe(6 + 59 + categories);
    for (const file of files) {
      const bytes = await readFile(join(out, file));
      const text = bytes.toString('utf8');
      expect(text.endsWith('\r\n'), file).toBe(true);
      expect(/\r(?!\n)|(?<!\r)\n/.test(text), `${file}: bare CR or LF`).toBe(false);
      let start = 0;
      while (start < bytes.length) {
        const end = bytes.indexOf('\r\n', start);
        const line = bytes.subarray(start, end);
        start = end + 2;
        expect(line.length, `${file}: ${line.toString()}`).toBeLessThanOrEqual(75);
        // A continuation line starts with one space; the byte after it must begin a character.
        if (line[0] === 0x20) {
          folded++;
          expect((line[1]! & 0xc0) !== 0x80, `${file}: fold splits a character: ${line.toString()}`).toBe(true);
        }
        expect((line[0]! & 0xc0) !== 0x80, file).toBe(true);
        expect(() => decoder.decode(line), `${file}: a physical line is not valid UTF-8 on its own`).not.toThrow();
      }
      expect(() => ICAL.parse(text), file).not.toThrow();
    }
    expect(folded).toBeGreaterThan(100);
  });

  it('the emoji-heavy title is folded over several lines and unfolds to exactly the portal title', async () => {
    const raw = (await rawEvents()).find((e) => e.title.startsWith('🎉'))!;
    expect(Buffer.byteLength(`SUMMARY:${raw.title}`)).toBeGreaterThan(75);
    for (const file of [paths.calendar(raw.slug, 'calendar.ics'), 'calendar.ics', `calendars/${raw.slug}/events/${raw.eventId}.ics`]) {
      const v = vevents(await parseIcs(file)).find((x) => prop(x, 'url') === raw.url)!;
      expect(prop(v, 'summary'), file).toBe(raw.title);
    }
    const text = await readFile(join(out, paths.calendar(raw.slug, 'calendar.ics')), 'utf8');
    const at = text.indexOf('SUMMARY:🎉');
    const physical = text.slice(at, text.indexOf('\r\n', at + 1));
    expect(physical.length).toBeLessThan(`SUMMARY:${raw.title}`.length);
    expect(text.slice(at).split('\r\n')[1]!.startsWith(' ')).toBe(true);
  });

  it('calendar headers: names, zone, refresh from --refresh, PRODID', async () => {
    for (const cal of (await manifest()).calendars) {
      const c = await parseIcs(paths.calendar(cal.slug, 'calendar.ics'));
      expect(prop(c, 'x-wr-calname')).toBe(cal.title);
      expect(prop(c, 'name')).toBe(cal.title);
      expect(prop(c, 'x-wr-timezone')).toBe('Europe/Vilnius');
      expect(prop(c, 'x-wr-caldesc')).toBeTruthy();
      expect(prop(c, 'prodid')).toMatch(/calfeed/);
      expect(prop(c, 'refresh-interval')).toBe('PT1H30M');
      expect(c.getFirstProperty('refresh-interval')!.type).toBe('duration');
      expect(prop(c, 'x-published-ttl')).toBe('PT1H30M');
    }
    const text = await readFile(join(out, 'calendar.ics'), 'utf8');
    expect(text).toMatch(/^REFRESH-INTERVAL;VALUE=DURATION:PT1H30M\r$/m);
    expect(text).toMatch(/^X-PUBLISHED-TTL:PT1H30M\r$/m);
  });

  it('each VEVENT says what the portal says: escaped text, UTC times, exclusive all-day ends, status, stamps from data', async () => {
    const combined = vevents(await parseIcs('calendar.ics'));
    const raws = await rawEvents();
    expect(combined).toHaveLength(raws.length);
    let allDayMulti = 0;
    for (const raw of raws) {
      const v = combined.find((x) => prop(x, 'url') === raw.url)!;
      const label = `${raw.calendar}/${raw.eventId}`;
      expect(v, label).toBeDefined();
      expect(prop(v, 'summary'), label).toBe(raw.title);
      const location = raw.location === undefined ? '' : typeof raw.location === 'string' ? raw.location : `${raw.location.name}, ${raw.location.address}`;
      expect(prop(v, 'location'), label).toBe(location);
      expect(v.getFirstProperty('categories')?.getValues() ?? [], label).toEqual(raw.categories);
      expect(prop(v, 'description'), label).not.toMatch(/<[a-z/][^>]*>/i);
      expect(prop(v, 'status'), label).toBe(raw.status === 'cancelled' ? 'CANCELLED' : 'CONFIRMED');
      const start = v.getFirstPropertyValue('dtstart') as ICAL.Time;
      const end = v.getFirstPropertyValue('dtend') as ICAL.Time | null;
      if (raw.allDay) {
        expect(start.isDate, label).toBe(true);
        expect(start.toString(), label).toBe(raw.startDate);
        // The portal's end date is inclusive; iCalendar's DTEND is exclusive: the next day.
        expect(end?.toString(), label).toBe(addDays(raw.endDate!, 1));
        if (raw.endDate !== raw.startDate) allDayMulti++;
      } else {
        expect(start.isDate, label).toBe(false);
        expect(start.zone?.tzid, label).toBe('UTC');
        expect(start.toJSDate().getTime(), label).toBe(Date.parse(raw.startDateTime!));
        if (raw.endDateTime) expect(end!.toJSDate().getTime(), label).toBe(Date.parse(raw.endDateTime));
      }
      // Stamps come from the portal's updated time, never the clock.
      const updated = Date.parse(raw.updatedAt);
      expect((v.getFirstPropertyValue('last-modified') as ICAL.Time).toJSDate().getTime(), label).toBe(updated);
      expect((v.getFirstPropertyValue('dtstamp') as ICAL.Time).toJSDate().getTime(), label).toBe(updated);
      expect((v.getFirstPropertyValue('created') as ICAL.Time).toJSDate().getTime(), label).toBeLessThanOrEqual(updated);
      expect(prop(v, 'sequence'), label).toBe('0');
      if (raw.organizer?.email) expect(prop(v, 'organizer'), label).toBe(`mailto:${raw.organizer.email}`);
      else expect(v.getFirstProperty('organizer'), label).toBeNull();
    }
    // The data has multi-day all-day events, e.g. the three-day festival.
    expect(allDayMulti).toBeGreaterThan(2);
    const festival = combined.find((x) => prop(x, 'summary').startsWith('Science Festival'))!;
    const fs = festival.getFirstPropertyValue('dtstart') as ICAL.Time;
    const fe = festival.getFirstPropertyValue('dtend') as ICAL.Time;
    expect(fe.subtractDate(fs).toSeconds()).toBe(3 * 86_400);
    expect(combined.filter((x) => prop(x, 'status') === 'CANCELLED').map((x) => prop(x, 'summary'))).toEqual(['Guest Lecture: CRISPR Gene Editing']);
  });

  it('RSS and Atom parse with rss-parser: self links, stable guids, RFC 822 dates, absolute links, updated time as item date', async () => {
    const raws = await rawEvents();
    const byPage = new Map(raws.map((r) => [`${SITE}calendars/${r.slug}/events/${r.eventId}.html`, r]));
    const dirs = ['', ...(await manifest()).calendars.map((c) => `calendars/${c.slug}/`)];
    let items = 0;
    for (const dir of dirs) {
      const rssText = await readFile(join(out, dir, 'rss.xml'), 'utf8');
      const feed = await rss.parseString(rssText);
      expect(feed.feedUrl).toBe(`${SITE}${dir}rss.xml`);
      expect(feed.link).toBe(`${SITE}${dir}`);
      expect(feed.lastBuildDate).toMatch(rfc822);
      expect(rssText).toContain(`<atom:link href="${SITE}${dir}rss.xml" rel="self" type="application/rss+xml"/>`);
      const guids = [...rssText.matchAll(/<guid([^>]*)>/g)].map((m) => m[1]);
      expect(guids.length).toBe(feed.items.length);
      for (const attrs of guids) expect(attrs).toBe(' isPermaLink="false"');
      let lastStart = -Infinity;
      for (const item of feed.items) {
        items++;
        const raw = byPage.get(item.link!)!;
        expect(raw, item.link).toBeDefined();
        expect(item.pubDate).toMatch(rfc822);
        // The item date is when the event last changed, not its (future) start.
        expect(Date.parse(item.pubDate!), item.link).toBe(Date.parse(raw.updatedAt));
        expect(Date.parse(item.pubDate!)).toBeLessThanOrEqual(NOW);
        expect(item.guid).toMatch(new RegExp(`^${raw.calendar}/${raw.eventId}@`));
        // Titles are HTML in CDATA (Atom marks them type="html"; RSS readers treat them so too).
        expect(unescapeHtml(item.title!)).toContain(raw.title);
        expect(item.title!.startsWith('Cancelled'), item.title).toBe(raw.status === 'cancelled');
        for (const href of (item.content ?? '').matchAll(/href="([^"]+)"/g)) {
          expect(href[1]!.startsWith(SITE) || href[1]!.startsWith('https://portal.example.edu/'), href[1]).toBe(true);
        }
        expect(item.content).toContain(`${SITE}calendars/${raw.slug}/events/${raw.eventId}.ics`);
        // Upcoming only, by start.
        const start = Date.parse(raw.startDateTime ?? `${raw.startDate}T00:00:00Z`);
        expect(start).toBeGreaterThanOrEqual(lastStart - DAY);
        lastStart = Math.max(lastStart, start);
      }
      const atom = await rss.parseString(await readFile(join(out, dir, 'atom.xml'), 'utf8'));
      expect(atom.feedUrl).toBe(`${SITE}${dir}atom.xml`);
      expect(atom.items.map((i) => i.link)).toEqual(feed.items.map((i) => i.link));
      for (const entry of atom.items) {
        // rss-parser reads <published> before <updated>; neither may be later than the last change.
        expect(Date.parse(entry.isoDate!)).toBeLessThanOrEqual(Date.parse(byPage.get(entry.link!)!.updatedAt));
        expect(entry.id).toMatch(/^urn:uuid:[0-9a-f-]{36}$/);
      }
      const json = JSON.parse(await readFile(join(out, dir, 'feed.json'), 'utf8')) as { version: string; feed_url: string; items: Array<{ url: string }> };
      expect(json.version).toBe('https://jsonfeed.org/version/1.1');
      expect(json.feed_url).toBe(`${SITE}${dir}feed.json`);
      expect(json.items.map((i) => i.url)).toEqual(feed.items.map((i) => i.link));
    }
    expect(items).toBeGreaterThan(60);
    const cancelled = (await rss.parseString(await readFile(join(out, 'rss.xml'), 'utf8'))).items.filter((i) => /Cancelled/.test(i.title!));
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]!.title).toContain('Guest Lecture: CRISPR Gene Editing');
  });
});

describe('--feed-limit and --ical-past-days', () => {
  it('--feed-limit 3 keeps the 3 earliest upcoming items; --ical-past-days 0 drops ended events from .ics', async () => {
    const other = join(work, 'limited');
    await mustBuild(['--feed-limit', '3', '--ical-past-days', '0'], other, join(work, 'limited-cache'));
    for (const dir of ['', ...(await manifest(other)).calendars.map((c) => `calendars/${c.slug}/`)]) {
      const limited = await rss.parseString(await readFile(join(other, dir, 'rss.xml'), 'utf8'));
      const full = await rss.parseString(await readFile(join(out, dir, 'rss.xml'), 'utf8'));
      expect(full.items.length).toBeGreaterThan(3);
      expect(limited.items.map((i) => i.link)).toEqual(full.items.slice(0, 3).map((i) => i.link));
      expect(JSON.parse(await readFile(join(other, dir, 'feed.json'), 'utf8')).items).toHaveLength(3);
    }
    const full = vevents(await parseIcs('calendar.ics'));
    const recent = vevents(await parseIcs('calendar.ics', other));
    const ended = (v: ICAL.Component): boolean => {
      const e = new ICAL.Event(v);
      return e.endDate.toJSDate().getTime() <= NOW;
    };
    expect(full.filter(ended).length).toBeGreaterThan(10);
    expect(recent.filter(ended)).toEqual([]);
    expect(recent.length).toBe(full.length - full.filter(ended).length);
  });
});

describe('changes between builds', () => {
  it('a changed event gets SEQUENCE + 1 and a new LAST-MODIFIED under the same UID; others stay as they were', async () => {
    const before = await parseIcs('calendar.ics');
    const beforeByUid = byUid(before);
    const [[calId, evId]] = portal.changeEvents(1) as [[string, string]];
    const { summary } = await mustBuild();
    expect(summary.changes).toMatchObject({ changedEvents: 1, newEvents: 0, removedEvents: 0 });
    const after = await parseIcs('calendar.ics');
    const raw = (await rawEvents()).find((e) => e.calendar === calId && String(e.eventId) === evId)!;
    const changed = vevents(after).find((v) => prop(v, 'url') === raw.url)!;
    const uid = prop(changed, 'uid');
    const old = vevents(before).find((v) => prop(v, 'uid') === uid)!;
    expect(old, 'same UID as before').toBeDefined();
    expect(prop(changed, 'summary')).toBe(raw.title);
    expect(raw.title).toMatch(/\(updated\)$/);
    expect(Number(prop(changed, 'sequence'))).toBe(Number(prop(old, 'sequence')) + 1);
    const lm = (v: ICAL.Component): number => (v.getFirstPropertyValue('last-modified') as ICAL.Time).toJSDate().getTime();
    expect(lm(changed)).toBe(Date.parse(raw.updatedAt));
    expect(lm(changed)).toBeGreaterThan(lm(old));
    const afterByUid = byUid(after);
    expect([...afterByUid.keys()].sort()).toEqual([...beforeByUid.keys()].sort());
    for (const [id, jcal] of beforeByUid) if (id !== uid) expect(afterByUid.get(id), id).toEqual(jcal);
  });

  it('a removed event stays in .ics as CANCELLED, leaves RSS and pages; --keep-removed-days 0 drops it', async () => {
    const raw = (await rawEvents()).find((e) => e.calendar === 'sports' && e.title === 'University Basketball Cup: Final')!;
    const calIcs = paths.calendar(raw.slug, 'calendar.ics');
    const live = vevents(await parseIcs(calIcs)).find((v) => prop(v, 'url') === raw.url)!;
    const uid = prop(live, 'uid');
    // The combined feeds, and the calendar's feeds, upcoming page and widget (the site index lists calendars only).
    const files = [...['rss.xml', 'atom.xml', 'feed.json'], ...['rss.xml', 'atom.xml', 'feed.json', 'index.html', 'widget.html'].map((f) => `calendars/${raw.slug}/${f}`)];
    const inFeeds = async (): Promise<boolean[]> => Promise.all(files.map(async (f) => (await readFile(join(out, f), 'utf8')).includes(raw.title)));
    expect(await inFeeds()).toEqual(files.map(() => true));

    portal.removeEvent(raw.calendar, String(raw.eventId));
    const { summary } = await mustBuild();
    expect(summary.changes).toMatchObject({ removedEvents: 1 });
    for (const file of [calIcs, 'calendar.ics']) {
      const v = vevents(await parseIcs(file)).find((x) => prop(x, 'uid') === uid);
      expect(v, file).toBeDefined();
      expect(prop(v!, 'status'), file).toBe('CANCELLED');
      expect(prop(v!, 'summary'), file).toContain(raw.title);
      // A status change is a change: calendar apps apply it only with a higher SEQUENCE.
      expect(Number(prop(v!, 'sequence')), file).toBeGreaterThan(Number(prop(live, 'sequence')));
    }
    expect(await inFeeds()).toEqual(files.map(() => false));
    // No other page links to it any more; its own page stays, marked cancelled, so old links work.
    const ownPage = `calendars/${raw.slug}/events/${raw.eventId}.html`;
    for (const page of (await listFiles(out)).filter((f) => f.endsWith('.html') && f !== ownPage)) {
      expect(await readFile(join(out, page), 'utf8'), page).not.toContain(`events/${raw.eventId}.html`);
    }
    expect(await readFile(join(out, ownPage), 'utf8')).toMatch(/Cancelled/);

    await mustBuild(['--keep-removed-days', '0']);
    for (const file of [calIcs, 'calendar.ics']) {
      expect(vevents(await parseIcs(file)).some((x) => prop(x, 'uid') === uid), file).toBe(false);
    }
    expect(vevents(await parseIcs('calendar.ics'))).toHaveLength(58);
  });
});
