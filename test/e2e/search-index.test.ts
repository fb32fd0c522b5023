// Issue 19, search without a server: search.json as a real build writes it from the demo portal in
// its hostile mode (a 100 KB title, markup that tries to run script, control characters, lone
// surrogates), checked against the calendar pages the same build wrote.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { categoryKey, categorySlug } from '../../src/paths.js';
import { runCli } from '../support/cli.js';
import { CONTROL_CHARS } from '../support/untrusted.js';

interface IndexEvent {
  url: string;
  title: string;
  start: string;
  end: string | null;
  allDay: boolean;
  calendar: number;
  categories: number[];
  place: string | null;
  description: string | null;
  cancelled: boolean;
}
interface SearchIndex {
  version: number;
  calendars: Array<{ slug: string; title: string; timeZone: string; url: string }>;
  events: IndexEvent[];
  categories: Array<{ key: string; slug: string; name: string }>;
}

let portal: DemoPortal;
let work: string;
let out: string;
let index: SearchIndex;

const build = (): ReturnType<typeof runCli> =>
  runCli(['build', '--base-url', portal.url, '--out', out, '--cache-dir', join(work, 'cache'), '--site-url', 'https://events.example.edu/', '--time-zone', portal.timeZone, '--json'], {
    env: { CALFEED_TOKEN: portal.tokens.university },
    cwd: work,
  });

beforeAll(async () => {
  portal = await startDemoPortal({ faults: 'hostile' });
  work = await mkdtemp(join(tmpdir(), 'calfeed-search-'));
  out = join(work, 'site');
  const result = await build();
  expect(result.code, result.stderr).toBe(0);
  index = JSON.parse(await readFile(join(out, 'search.json'), 'utf8')) as SearchIndex;
}, 120_000);

afterAll(async () => {
  await portal?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Code points, as the caps count them. */
const length = (text: string): number => [...text].length;

describe('search.json of a hostile build', () => {
  it('lists exactly the upcoming events each calendar page lists, in start order, each linking to its page', async () => {
    expect(index.version).toBe(1);
    expect(index.calendars.length).toBe(9);
    expect(index.events.length).toBeGreaterThan(10);
    for (const [i, cal] of index.calendars.entries()) {
      const page = await readFile(join(out, cal.url, 'index.html'), 'utf8');
      // The upcoming list ends where the past link or the embed section starts.
      const upcoming = page.slice(page.indexOf('id="upcoming-heading"'), page.indexOf('id="embed-heading"'));
      const listed = [...upcoming.matchAll(/<p class="event-title">(?:<strong[^>]*>[^<]*<\/strong> )?<a href="events\/([^"]+)"/g)].map((m) => `${cal.url}events/${m[1]}`);
      const indexed = index.events.filter((e) => e.calendar === i).map((e) => e.url);
      expect(new Set(indexed), cal.slug).toEqual(new Set(listed));
    }
    for (const e of index.events) expect(existsSync(join(out, e.url)), e.url).toBe(true);
    const starts = index.events.map((e) => Date.parse(e.start));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });

  it('keeps hostile strings as data: control characters gone, markup as text, titles, places and descriptions capped', () => {
    const texts = index.events.flatMap((e) => [e.title, e.place ?? '', e.description ?? '']);
    for (const text of texts) {
      expect(CONTROL_CHARS.test(text), JSON.stringify(text.slice(0, 80))).toBe(false);
      expect(text, 'a lone surrogate').not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
    for (const e of index.events) {
      expect(length(e.title)).toBeLessThanOrEqual(300);
      expect(length(e.place ?? '')).toBeLessThanOrEqual(300);
      expect(length(e.description ?? '')).toBeLessThanOrEqual(200);
    }
    // The demo's 100 KB title is in the index, cut with an ellipsis.
    expect(index.events.some((e) => length(e.title) === 300 && e.title.endsWith('…'))).toBe(true);
    // A description given as HTML is in the index as its text: no tag of the portal's is left.
    expect(index.events.some((e) => e.description !== null)).toBe(true);
    for (const e of index.events) expect(e.description ?? '', e.url).not.toMatch(/<(script|img|p|a|iframe)\b/i);
  });

  it('names each category by its key and slug as category pages do, and every event only by numbers it defines', () => {
    expect(index.categories.length).toBeGreaterThan(3);
    for (const c of index.categories) {
      expect(c.key).toBe(categoryKey(c.name));
      expect(c.slug).toBe(categorySlug(c.key));
    }
    expect(new Set(index.categories.map((c) => c.key)).size).toBe(index.categories.length);
    for (const e of index.events) {
      expect(e.calendar).toBeLessThan(index.calendars.length);
      for (const c of e.categories) expect(c).toBeLessThan(index.categories.length);
      expect(e.allDay ? /^\d{4}-\d{2}-\d{2}$/ : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/).toSatisfy((re: RegExp) => re.test(e.start));
    }
  });

  it('is kept, bytes and modification time, by a rebuild with nothing changed', async () => {
    const before = await stat(join(out, 'search.json'));
    const bytes = await readFile(join(out, 'search.json'));
    const result = await build();
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(join(out, 'search.json'))).toEqual(bytes);
    expect((await stat(join(out, 'search.json'))).mtimeMs).toBe(before.mtimeMs);
  });
});
