// Issue 19, categories: every category of the demo portal's events (upcoming and past)
// gets a page, RSS, Atom, JSON Feed and calendar.ics, read here with the parsers the other feed
// tests use (ical.js, rss-parser, JSON.parse); spellings that differ only in case are one
// category named by its most used spelling, and a name that is not plain ASCII gets a hashed folder.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import ICAL from 'ical.js';
import Parser from 'rss-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { categoryKey, categorySlug, paths } from '../../src/paths.js';
import { runCli } from '../support/cli.js';
import { listFiles } from '../support/tree.js';
import { byClass, one, parse, select, text as textOf, type Element } from '../render/html/dom.js';

const NOW = Date.now();
const SITE = 'https://events.example.edu/';
let portal: DemoPortal;
let work: string;

async function build(out: string, extra: string[] = []): Promise<Record<string, unknown>> {
  const r = await runCli(['build', '--base-url', portal.url, '--out', out, '--cache-dir', join(work, `cache-${posix.basename(out)}`), '--site-url', SITE, '--time-zone', portal.timeZone, '--json', ...extra], {
    env: { CALFEED_TOKEN: portal.tokens.university },
    cwd: work,
  });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

interface RawEvent {
  eventId: number | string;
  title: string;
  status: string;
  categories?: string[];
}

/** Every event the portal gave, from the JSON mirror, with its calendar's folder. */
async function rawEvents(out: string): Promise<Array<RawEvent & { slug: string }>> {
  const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')) as { calendars: Array<{ slug: string }> };
  const events: Array<RawEvent & { slug: string }> = [];
  for (const { slug } of manifest.calendars) {
    const list = JSON.parse(await readFile(join(out, paths.eventsMirror(slug)), 'utf8')) as Array<{ eventId: number | string }>;
    for (const { eventId } of list) events.push({ ...(JSON.parse(await readFile(join(out, paths.detailsMirror(slug, String(eventId))), 'utf8')) as RawEvent), slug });
  }
  return events;
}

const read = (out: string, file: string): Promise<string> => readFile(join(out, file), 'utf8');
const page = async (out: string, file: string) => parse(await read(out, file));
const text = (el: Element | undefined): string => (el ? textOf(el) : '').replace(/\s+/g, ' ').trim();
const links = (doc: ReturnType<typeof parse> | Element, cls: string): Element[] => byClass(doc, cls).flatMap((el) => (el.name === 'a' ? [el] : select(el, 'a')));
const h1 = (doc: ReturnType<typeof parse>): string => text(one(select(doc, 'h1'), 'h1'));
const href = (a: Element): string => a.attribs.href ?? '';

let out: string;
let events: Array<RawEvent & { slug: string }>;

beforeAll(async () => {
  portal = await startDemoPortal({ now: NOW });
  work = await mkdtemp(join(tmpdir(), 'calfeed-categories-'));
  out = join(work, 'site');
  await build(out);
  events = await rawEvents(out);
});

afterAll(async () => {
  await portal?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('category files', () => {
  it('one folder per category key of every event, with its five files, and nothing else', async () => {
    const keys = new Set(events.flatMap((e) => (e.categories ?? []).map(categoryKey)).filter((k) => k !== ''));
    const folders = (await readdir(join(out, 'categories'), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(folders.sort()).toEqual([...keys].map(categorySlug).sort());
    // Past events' categories too: the demo has categories only past events carry.
    expect(keys.has('choir')).toBe(true);
    for (const slug of folders) expect((await readdir(join(out, 'categories', slug))).sort()).toEqual(['atom.xml', 'calendar.ics', 'feed.json', 'index.html', 'rss.xml']);
  });

  it('"Lecture" and "lecture" are one category named "Lecture" (four events against one); 日本語 gets a hashed folder', async () => {
    const spellings = events.flatMap((e) => e.categories ?? []).filter((c) => categoryKey(c) === 'lecture');
    expect(new Set(spellings)).toEqual(new Set(['Lecture', 'lecture']));
    const doc = await page(out, paths.category('lecture', 'index.html'));
    expect(h1(doc)).toBe('Lecture');
    const titles = links(doc, 'event-title').map(text);
    expect(titles).toContain('Sports Medicine Talk: Preventing Injuries');
    // Each item names its calendar, as the home page's do.
    expect(links(doc, 'event-calendar').map(text)).toContain('University Sports');
    const japanese = categorySlug(categoryKey('日本語'));
    expect(japanese).toMatch(/^_[a-z2-7]{10}$/);
    expect(h1(await page(out, paths.category(japanese, 'index.html')))).toBe('日本語');
  });

  it("regression: search.json's filter named a category by the first spelling among upcoming events, not as its page does", async () => {
    const index = JSON.parse(await read(out, paths.site('search.json'))) as { categories: Array<{ key: string; slug: string; name: string }> };
    expect(index.categories.map((c) => c.key)).toContain('lecture');
    for (const c of index.categories) expect(c.name, c.key).toBe(h1(await page(out, paths.category(c.slug, 'index.html'))));
  });

  it('the feeds list the upcoming events of the category, parsed by rss-parser and as JSON Feed in the calendars\' shape', async () => {
    const feed = JSON.parse(await read(out, paths.category('lecture', 'feed.json'))) as { title: string; feed_url: string; items: Array<Record<string, unknown>> };
    expect(feed.title).toBe('Lecture');
    expect(feed.feed_url).toBe(SITE + 'categories/lecture/feed.json');
    const calendarFeed = JSON.parse(await read(out, paths.calendar('science', 'feed.json'))) as Record<string, unknown> & { items: Array<Record<string, unknown>> };
    expect(Object.keys(feed).sort()).toEqual(Object.keys(calendarFeed).sort());
    expect(Object.keys(feed.items[0]!).sort()).toEqual(Object.keys(calendarFeed.items.find((i) => !('image' in i))!).sort());
    const ids = feed.items.map((i) => i.id);
    // Upcoming only, from two calendars, soonest first.
    expect(ids).toContain(`sports/3012@${new URL(SITE).host}`);
    expect(ids.every((id) => typeof id === 'string' && !String(id).includes('/1001@'))).toBe(true);
    const rss = await new Parser().parseString(await read(out, paths.category('lecture', 'rss.xml')));
    expect(rss.title).toBe('Lecture');
    expect(rss.items.map((i) => i.guid)).toEqual(ids);
    const atom = await read(out, paths.category('lecture', 'atom.xml'));
    expect(atom).toContain(`<id>${SITE}categories/lecture/atom.xml</id>`);
  });

  it('calendar.ics holds the category\'s events in the window, past and cancelled ones too, read by ical.js', async () => {
    const cal = new ICAL.Component(ICAL.parse(await read(out, paths.category('lecture', 'calendar.ics'))));
    expect(cal.getFirstPropertyValue('x-wr-calname')).toBe('Lecture');
    const vevents = cal.getAllSubcomponents('vevent');
    const uids = vevents.map((v) => String(v.getFirstPropertyValue('uid')));
    const expected = events.filter((e) => (e.categories ?? []).some((c) => categoryKey(c) === 'lecture')).map((e) => `${e.slug}/${e.eventId}@${new URL(SITE).host}`);
    expect(uids.sort()).toEqual(expected.sort());
    const crispr = vevents.find((v) => String(v.getFirstPropertyValue('uid')).startsWith('science/1008@'))!;
    expect(crispr.getFirstPropertyValue('status')).toBe('CANCELLED');
    // The same VEVENT as in the event's own calendar.
    const own = await read(out, paths.calendar('science', 'calendar.ics'));
    const block = (ics: string): string => ics.slice(ics.indexOf('UID:science/1008@'), ics.indexOf('END:VEVENT', ics.indexOf('UID:science/1008@')));
    expect(block(await read(out, paths.category('lecture', 'calendar.ics')))).toBe(block(own));
  });

  it('--feed-limit 1 gives each category feed its one soonest event', async () => {
    const limited = join(work, 'limited');
    await build(limited, ['--feed-limit', '1']);
    const feed = JSON.parse(await read(limited, paths.category('lecture', 'feed.json'))) as { items: Array<{ id: string }> };
    const full = JSON.parse(await read(out, paths.category('lecture', 'feed.json'))) as { items: Array<{ id: string }> };
    expect(feed.items.map((i) => i.id)).toEqual(full.items.slice(0, 1).map((i) => i.id));
  });
});

describe('links to categories', () => {
  it('every category link of an event page leads to a category page that exists', async () => {
    let linked = 0;
    for (const file of (await listFiles(out)).filter((f) => /^calendars\/[^/]+\/events\/[^/]+\.html$/.test(f))) {
      for (const a of links(await page(out, file), 'tag')) {
        const target = posix.join(posix.dirname(file), href(a));
        expect(target).toMatch(/^categories\/[^/]+\/index\.html$/);
        await expect(readFile(join(out, target))).resolves.toBeDefined();
        linked++;
      }
    }
    expect(linked).toBe(events.reduce((n, e) => n + new Set((e.categories ?? []).map(categoryKey)).size, 0));
    const talk = await page(out, paths.eventPage('sports', '3012'));
    expect(links(talk, 'tag').map((a) => [text(a), href(a)])).toContainEqual(['lecture', '../../../categories/lecture/index.html']);
  });

  it('categories/index.html lists every category with its upcoming count; the home page those with upcoming events', async () => {
    const folders = (await readdir(join(out, 'categories'), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
    const list = byClass(await page(out, paths.categoriesIndex()), 'categories').flatMap((ul) => select(ul, 'li'));
    const first = (li: Element): string => href(select(li, 'a')[0]!);
    expect(list.map(first).sort()).toEqual(folders.map((f) => `${f}/index.html`).sort());
    const lecture = list.find((li) => first(li) === 'lecture/index.html')!;
    const upcoming = byClass(await page(out, paths.category('lecture', 'index.html')), 'event').filter((el) => !(el.attribs.class ?? '').includes('is-cancelled')).length;
    expect(text(byClass(lecture, 'count')[0])).toBe(`${upcoming} upcoming events`);
    const home = links(await page(out, paths.site('index.html')), 'categories').map(href);
    expect(home).toContain('categories/lecture/index.html');
    // Choir has only a past event: on the full list, not the home page.
    expect(home).not.toContain('categories/choir/index.html');
    expect(list.map(first)).toContain('choir/index.html');
  });

  it('the sitemap lists the category pages', async () => {
    const sitemap = await read(out, paths.site('sitemap.xml'));
    expect(sitemap).toContain(`<loc>${SITE}categories/index.html</loc>`);
    expect(sitemap).toContain(`<loc>${SITE}categories/lecture/index.html</loc>`);
  });
});

describe('rebuilds', () => {
  it('a rebuild of unchanged data keeps every category file; a category whose one event is removed goes, files and links', async () => {
    const again = await build(out);
    expect((again as { calendarFiles: { rendered: number } }).calendarFiles.rendered).toBe(0);
    // The regatta is the only event in "Rowing". Removed, it stays as a cancellation, kept by
    // history without its categories: its page links to none, and the category goes.
    portal.removeEvent('sports', '3005');
    await build(out);
    expect(links(await page(out, paths.eventPage('sports', '3005')), 'tag')).toEqual([]);
    await expect(readdir(join(out, 'categories', 'rowing'))).rejects.toThrow(/ENOENT/);
    expect(await read(out, paths.categoriesIndex())).not.toContain('rowing/index.html');
    expect((await listFiles(out)).filter((f) => f.includes('rowing'))).toEqual([]);
  });
});
