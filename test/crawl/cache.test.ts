// The crawl cache at scale, in the build store: saved a row per entry, read back a row at a time.
// Compact in memory, identical out.

import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CrawlCache, type DocEntry, type EventEntry } from '../../src/crawl/index.js';
import { loadCache, saveCache, storeFile } from '../support/store.js';

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

function filled(data: ReturnType<typeof sample>): CrawlCache {
  const cache = CrawlCache.empty();
  for (const [key, entry] of data.docs) cache.recordDoc(key, entry);
  for (const [cal, ev, entry] of data.events) cache.recordEvent(cal, ev, entry);
  return cache;
}

function expectAll(cache: CrawlCache, data: ReturnType<typeof sample>): void {
  for (const [key, entry] of data.docs) expect(cache.previousDoc(key)).toEqual(entry);
  for (const [cal, ev, entry] of data.events) expect(cache.previousEvent(cal, ev)).toEqual(entry);
}

describe('the crawl cache in the build store', () => {
  it('round-trips thousands of entries, one a row', async () => {
    const data = sample(3000);
    await saveCache(filled(data), dir, 'https://portal.example/api/');
    expect(await readdir(dir)).toEqual(['build-store']);
    const rows = (await readFile(storeFile(dir), 'utf8')).split('\n');
    expect(rows.filter((r) => r.startsWith('D\t'))).toHaveLength(data.docs.length);
    expect(rows.filter((r) => r.startsWith('E\t'))).toHaveLength(data.events.length);
    const loaded = await loadCache(dir, 'https://portal.example/api/');
    expect(loaded.loadNote).toBeUndefined();
    expectAll(loaded, data);
    expect(loaded.previousDoc('event-calendar/cal-0/event/99999/details')).toBeUndefined();
    expect(loaded.previousEvent('cal-0', '99999')).toBeUndefined();
    expect(loaded.previousEvent('cal-0', 'constructor')).toBeUndefined();
  });

  it('spilled to a file while recording (spillTo), saves the very same rows, and leaves no file behind', async () => {
    const data = sample(3000);
    const inMemory = join(dir, 'memory');
    await saveCache(filled(data), inMemory, 'p');
    const spillDir = join(dir, 'staging');
    await mkdir(spillDir);
    const spilled = CrawlCache.empty();
    spilled.spillTo(spillDir);
    for (const [key, entry] of data.docs) spilled.recordDoc(key, entry);
    for (const [cal, ev, entry] of data.events) spilled.recordEvent(cal, ev, entry);
    expect(await readdir(spillDir)).toEqual([`.calfeed-crawl-${process.pid}`]);
    await saveCache(spilled, join(dir, 'spilled'), 'p');
    spilled.dispose();
    expect(await readdir(spillDir)).toEqual([]);
    expect(await readFile(storeFile(join(dir, 'spilled')), 'utf8')).toBe(await readFile(storeFile(inMemory), 'utf8'));
    expectAll(await loadCache(join(dir, 'spilled'), 'p'), data);
  });

  it('spillTo refuses once entries are recorded (they would be lost)', () => {
    const cache = CrawlCache.empty();
    cache.recordEvent('c', 'e', { entry: 'x', checkedAt: 1 });
    expect(() => cache.spillTo(dir)).toThrow(/spillTo/);
  });

  it('a saved cache rewritten by the next run keeps only what that run recorded', async () => {
    const data = sample(50);
    await saveCache(filled(data), dir);
    const next = await loadCache(dir);
    next.recordDoc(data.docs[0]![0], next.previousDoc(data.docs[0]![0])!);
    next.recordEvent('cal-0', '0', { entry: hex('changed'), checkedAt: 9 });
    await saveCache(next, dir);
    const third = await loadCache(dir);
    expect(third.previousDoc(data.docs[0]![0])).toEqual(data.docs[0]![1]);
    expect(third.previousDoc(data.docs[1]![0])).toBeUndefined();
    expect(third.previousEvent('cal-0', '0')).toEqual({ entry: hex('changed'), checkedAt: 9 });
    expect(third.previousEvent('cal-1', '1')).toBeUndefined();
  });

  it('a truncated, foreign-version or other-portal store gives an empty cache, with a note', async () => {
    const data = sample(100);
    await saveCache(filled(data), dir, 'embedded demo');
    const file = storeFile(dir);
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.slice(0, Math.floor(text.length / 2)));
    const truncated = await loadCache(dir, 'embedded demo');
    expect(truncated.loadNote).toContain('corrupt');
    expect(truncated.previousDoc(data.docs[0]![0])).toBeUndefined();
    await writeFile(file, text.replace(/^\{"calfeedStore":\d+,/, '{"calfeedStore":99,'));
    expect((await loadCache(dir, 'embedded demo')).loadNote).toContain('another calfeed version');
    await writeFile(file, text);
    const other = await loadCache(dir, 'https://portal.example/api/');
    expect(other.loadNote).toContain('written for another portal (embedded demo)');
    expect(other.previousEvent('cal-0', '0')).toBeUndefined();
  });

  it('a malformed entry makes the whole store corrupt: nothing of it is trusted', async () => {
    const data = sample(20);
    await saveCache(filled(data), dir);
    const file = storeFile(dir);
    const rows = (await readFile(file, 'utf8')).split('\n');
    const broken = [
      rows.map((row) => (row.startsWith('D\t"event-calendar/cal-1/event/1/details"') ? row.replace(/"sha256":"[0-9a-f]+"\}\]/, '"sha256":5}]') : row)),
      rows.map((row) => (row.startsWith('E\t"[\\"cal-2\\",\\"2\\"]"') ? row.replace(/"checkedAt":\d+/, '"checkedAt":"soon"') : row)),
    ];
    for (const damaged of broken) {
      expect(damaged).not.toEqual(rows);
      await writeFile(file, damaged.join('\n'));
      const loaded = await loadCache(dir);
      expect(loaded.loadNote).toContain('corrupt');
      expect(loaded.previousDoc('event-calendar/cal-3/event/3/details')).toBeUndefined();
      expect(loaded.previousEvent('cal-3', '3')).toBeUndefined();
    }
  });
});
