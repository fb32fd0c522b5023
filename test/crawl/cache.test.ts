// The crawl cache file at scale: saved a line per entry, read back a line at a time, and still
// read in any other JSON layout (older calfeed wrote one line). Compact in memory, identical out.

import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CrawlCache, type DocEntry, type EventEntry } from '../../src/crawl/index.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'calfeed-cache-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const hex = (s: string): string => createHash('sha256').update(s).digest('hex');

/** A realistic mix: details (one page, URL = path), lists with paging, odd hashes, odd ids. */
function sample(n: number): { docs: Array<[string, DocEntry]>; events: Array<[string, string, EventEntry]> } {
  const docs: Array<[string, DocEntry]> = [];
  const events: Array<[string, string, EventEntry]> = [];
  for (let i = 0; i < n; i++) {
    const cal = `cal-${i % 7}`;
    const key = `event-calendar/${cal}/event/${i}/details`;
    const h = hex(key);
    const page = i % 3 === 0 ? { url: key, etag: `"${h.slice(0, 16)}"`, sha256: h } : { url: key, lastModified: 'Wed, 20 Nov 2024 10:00:00 GMT', sha256: h };
    docs.push([key, { sha256: h, pages: [page] }]);
    events.push([cal, String(i), { entry: hex(`entry ${i}`), checkedAt: 1_700_000_000_000 + i }]);
  }
  docs.push([
    'event-calendar/cal-1/events',
    {
      sha256: hex('merged'),
      pages: [
        { url: 'event-calendar/cal-1/events?page=1', etag: 'W/"p1"', sha256: hex('p1') },
        { url: 'event-calendar/cal-1/events?page=2', etag: 'W/"p2"', sha256: hex('p2') },
      ],
    },
  ]);
  docs.push(['event-calendars', { sha256: hex('cals'), pages: [{ url: 'https://elsewhere.example/api/event-calendars', sha256: hex('cals') }] }]);
  docs.push(['odd', { sha256: 'abc', pages: [{ url: 'odd', sha256: 'abc' }] }]);
  docs.push(['__proto__', { sha256: hex('p'), pages: [{ url: '__proto__', sha256: hex('p') }] }]);
  events.push(['Sport & "Fun"', 'ünï\ncode', { entry: 'h', checkedAt: 5 }]);
  events.push(['__proto__', 'constructor', { entry: hex('x'), checkedAt: 0 }]);
  return { docs, events };
}

function filled(data: ReturnType<typeof sample>, portal?: string): CrawlCache {
  const cache = CrawlCache.empty(undefined, portal);
  for (const [key, entry] of data.docs) cache.recordDoc(key, entry);
  for (const [cal, ev, entry] of data.events) cache.recordEvent(cal, ev, entry);
  return cache;
}

function expectAll(cache: CrawlCache, data: ReturnType<typeof sample>): void {
  for (const [key, entry] of data.docs) expect(cache.previousDoc(key)).toEqual(entry);
  for (const [cal, ev, entry] of data.events) expect(cache.previousEvent(cal, ev)).toEqual(entry);
}

/** The file as the older calfeed wrote it: one JSON.stringify of everything. */
function oneLine(data: ReturnType<typeof sample>, portal: string): string {
  // fromEntries, not assignment: '__proto__' must become an own key, as JSON.parse makes it.
  const docs = Object.fromEntries(data.docs);
  const events = Object.fromEntries(data.events.map(([cal, ev, entry]) => [JSON.stringify([cal, ev]), entry]));
  return JSON.stringify({ version: 1, portal, docs, events });
}

describe('crawl cache file', () => {
  it('round-trips thousands of entries, one a line, as valid JSON of the documented shape', async () => {
    const data = sample(3000);
    await filled(data, 'https://portal.example/api/').save(dir);
    expect(await readdir(dir)).toEqual(['crawl.json']);
    const text = await readFile(join(dir, 'crawl.json'), 'utf8');
    expect(text.split('\n').length).toBeGreaterThan(data.docs.length + data.events.length);
    expect(JSON.parse(text)).toEqual(JSON.parse(oneLine(data, 'https://portal.example/api/')));
    const loaded = await CrawlCache.load(dir, 'https://portal.example/api/');
    expect(loaded.loadNote).toBeUndefined();
    expectAll(loaded, data);
    expect(loaded.previousDoc('event-calendar/cal-0/event/99999/details')).toBeUndefined();
    expect(loaded.previousEvent('cal-0', '99999')).toBeUndefined();
    expect(loaded.previousEvent('cal-0', 'constructor')).toBeUndefined();
  });

  it('spilled to a file while recording (spillTo), saves the very same crawl.json, and leaves no file behind', async () => {
    const data = sample(3000);
    const inMemory = join(dir, 'memory');
    await filled(data, 'p').save(inMemory);
    const spillDir = join(dir, 'staging');
    await mkdir(spillDir);
    const spilled = CrawlCache.empty(undefined, 'p');
    spilled.spillTo(spillDir);
    for (const [key, entry] of data.docs) spilled.recordDoc(key, entry);
    for (const [cal, ev, entry] of data.events) spilled.recordEvent(cal, ev, entry);
    expect(await readdir(spillDir)).toEqual([`.calfeed-crawl-${process.pid}`]);
    const prepared = await spilled.prepare(join(dir, 'spilled'));
    // Prepared is not yet current: only the temp file exists.
    expect(await readdir(join(dir, 'spilled'))).toEqual([`crawl.json.${process.pid}.tmp`]);
    spilled.dispose();
    expect(await readdir(spillDir)).toEqual([]);
    await prepared.commit();
    expect(await readFile(join(dir, 'spilled', 'crawl.json'), 'utf8')).toBe(await readFile(join(inMemory, 'crawl.json'), 'utf8'));
    expectAll(await CrawlCache.load(join(dir, 'spilled'), 'p'), data);
  });

  it('spillTo refuses once entries are recorded (they would be lost)', () => {
    const cache = CrawlCache.empty();
    cache.recordEvent('c', 'e', { entry: 'x', checkedAt: 1 });
    expect(() => cache.spillTo(dir)).toThrow(/spillTo/);
  });

  it('a prepared save that is discarded leaves the saved file as it was', async () => {
    const data = sample(10);
    await filled(data, 'p').save(dir);
    const before = await readFile(join(dir, 'crawl.json'), 'utf8');
    const prepared = await CrawlCache.empty(undefined, 'p').prepare(dir);
    await prepared.discard();
    expect(await readdir(dir)).toEqual(['crawl.json']);
    expect(await readFile(join(dir, 'crawl.json'), 'utf8')).toBe(before);
  });

  it('reads the one-line file older builds wrote, and any other layout', async () => {
    const data = sample(200);
    await writeFile(join(dir, 'crawl.json'), oneLine(data, 'embedded demo'));
    expectAll(await CrawlCache.load(dir, 'embedded demo'), data);
    await writeFile(join(dir, 'crawl.json'), JSON.stringify(JSON.parse(oneLine(data, 'embedded demo')), null, 2));
    expectAll(await CrawlCache.load(dir, 'embedded demo'), data);
  });

  it('a saved cache rewritten by the next run keeps only what that run recorded', async () => {
    const data = sample(50);
    await filled(data).save(dir);
    const next = await CrawlCache.load(dir);
    next.recordDoc(data.docs[0]![0], next.previousDoc(data.docs[0]![0])!);
    next.recordEvent('cal-0', '0', { entry: hex('changed'), checkedAt: 9 });
    await next.save(dir);
    const third = await CrawlCache.load(dir);
    expect(third.previousDoc(data.docs[0]![0])).toEqual(data.docs[0]![1]);
    expect(third.previousDoc(data.docs[1]![0])).toBeUndefined();
    expect(third.previousEvent('cal-0', '0')).toEqual({ entry: hex('changed'), checkedAt: 9 });
    expect(third.previousEvent('cal-1', '1')).toBeUndefined();
  });

  it('ignores a truncated, foreign-version or other-portal file with a note, in the line layout too', async () => {
    const data = sample(100);
    await filled(data, 'embedded demo').save(dir);
    const file = join(dir, 'crawl.json');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.slice(0, Math.floor(text.length / 2)));
    const truncated = await CrawlCache.load(dir, 'embedded demo');
    expect(truncated.loadNote).toContain('corrupt');
    expect(truncated.previousDoc(data.docs[0]![0])).toBeUndefined();
    await writeFile(file, text.replace('{"version":1,', '{"version":2,'));
    expect((await CrawlCache.load(dir, 'embedded demo')).loadNote).toContain('another calfeed version');
    await writeFile(file, text);
    const other = await CrawlCache.load(dir, 'https://portal.example/api/');
    expect(other.loadNote).toContain('written for another portal (embedded demo)');
    expect(other.previousEvent('cal-0', '0')).toBeUndefined();
  });

  it('drops malformed entries and keeps the rest, in either layout', async () => {
    const data = sample(20);
    await filled(data).save(dir);
    const file = join(dir, 'crawl.json');
    const lines = (await readFile(file, 'utf8')).split('\n');
    const broken = lines.map((line) =>
      line.startsWith('"event-calendar/cal-1/event/1/details"') ? line.replace(/"sha256":"[0-9a-f]+"\}\]/, '"sha256":5}]') : line.startsWith('"[\\"cal-2\\",\\"2\\"]"') ? line.replace(/"checkedAt":\d+/, '"checkedAt":"soon"') : line,
    );
    await writeFile(file, broken.join('\n'));
    for (const text of [broken.join('\n'), JSON.stringify(JSON.parse(broken.join('\n')))]) {
      await writeFile(file, text);
      const loaded = await CrawlCache.load(dir);
      expect(loaded.previousDoc('event-calendar/cal-1/event/1/details')).toBeUndefined();
      expect(loaded.previousEvent('cal-2', '2')).toBeUndefined();
      expect(loaded.previousDoc('event-calendar/cal-3/event/3/details')).toEqual(data.docs[3]![1]);
      expect(loaded.previousEvent('cal-3', '3')).toEqual(data.events[3]![2]);
    }
  });
});
