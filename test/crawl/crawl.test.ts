import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CrawlCache } from '../../src/crawl/index.js';
import { loadCache, saveCache, storeFile } from '../support/store.js';
import { CalfeedError } from '../../src/errors.js';
import { paths } from '../../src/paths.js';
import { BASE_OPTIONS, MemorySink, runCrawl } from './helpers.js';
import { makeEvents, startPortal, type Portal, type PortalOptions } from './portal.js';
import { TOKEN } from './helpers.js';

let portal: Portal | undefined;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'calfeed-crawl-'));
});

afterEach(async () => {
  await portal?.close();
  portal = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function start(overrides: Partial<PortalOptions> = {}): Promise<Portal> {
  portal = await startPortal({
    token: TOKEN,
    calendars: [
      { id: 'science', title: 'Faculty of Science' },
      { id: 'arts', title: 'Faculty of Arts' },
      { id: 'sport', title: 'Sports' },
    ],
    events: new Map([
      ['science', makeEvents('science', 12)],
      ['arts', makeEvents('arts', 8)],
      ['sport', makeEvents('sport', 5)],
    ]),
    ...overrides,
  });
  return portal;
}

async function failure(promise: Promise<unknown>): Promise<CalfeedError> {
  try {
    await promise;
  } catch (error) {
    return error as CalfeedError;
  }
  throw new Error('expected the crawl to fail');
}

describe('a full crawl', () => {
  it('delivers every document in order, mirrors bytes exactly, and bounds concurrency', async () => {
    const p = await start({ delayMs: 5 });
    const sink = new MemorySink();
    const { report, requests, maxInFlight } = await runCrawl(p.url, CrawlCache.empty(), sink, {}, { concurrency: 3 });

    expect(report).toMatchObject({ calendars: 3, events: 25, detailsFetched: 25, detailsReused: 0, detailsNotModified: 0, pages: 4, detailsFailed: [] });
    expect(requests).toBe(1 + 3 + 25);
    expect(p.server.maxInFlight).toBeLessThanOrEqual(3);
    expect(maxInFlight).toBe(3);

    expect(sink.calls[0]).toBe('calendars');
    for (const calendar of ['science', 'arts', 'sport']) {
      const listed = sink.calls.indexOf(`events ${calendar}`);
      const details = sink.calls.flatMap((c, i) => (c.startsWith(`details ${calendar} `) ? [i] : []));
      expect(listed).toBeGreaterThan(0);
      expect(details).toHaveLength(p.opts.events.get(calendar)!.length);
      expect(Math.min(...details)).toBeGreaterThan(listed);
    }

    // Byte for byte what the portal sent (the portal indents; a re-serialization would not).
    expect(sink.written.get(paths.calendarsMirror())!.toString()).toBe(p.bodies.get('/event-calendars'));
    expect(sink.written.get(paths.eventsMirror('science'))!.toString()).toBe(p.bodies.get('/event-calendar/science/events'));
    expect(sink.written.get(paths.detailsMirror('arts', 'e3'))!.toString()).toBe(p.bodies.get('/event-calendar/arts/event/e3/details'));
    expect(sink.lists.get('science')!.listPath).toEqual(['events']);
  });

  it('URL-encodes raw ids in requests and uses safe segments for mirror paths', async () => {
    const p = await start({
      calendars: [{ id: 'a/b c', title: 'Odd' }],
      events: new Map([['a/b c', [{ id: '../x?y', title: 'Odd event' }]]]),
    });
    const sink = new MemorySink();
    await runCrawl(p.url, CrawlCache.empty(), sink);
    expect(p.server.requests.map((r) => r.url)).toEqual([
      '/event-calendars',
      '/event-calendar/a%2Fb%20c/events',
      '/event-calendar/a%2Fb%20c/event/..%2Fx%3Fy/details',
    ]);
    const keys = [...sink.written.keys()];
    expect(keys).toHaveLength(3);
    for (const key of keys) expect(key.split('/').every((s) => /^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(s))).toBe(true);
    expect(sink.detailsPath('a/b c', '../x?y')).toMatch(/^event-calendar\/_[a-z2-7]+\/event\/_[a-z2-7]+\/details$/);
  });
});

describe('a slow sink', () => {
  it('does not hold connections: requests go on while details wait to be taken, up to a bound', async () => {
    const p = await start();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    class StalledSink extends MemorySink {
      override async onDetails(calendarId: string, eventId: string, doc: Parameters<MemorySink['onDetails']>[2]): Promise<void> {
        await gate;
        await super.onDetails(calendarId, eventId, doc);
      }
    }
    const sink = new StalledSink();
    const concurrency = 2;
    const crawling = runCrawl(p.url, CrawlCache.empty(), sink, {}, { concurrency });
    // With the sink taking nothing, the connections still fetch: the 2 in flight, plus 16 bodies
    // handed on (4 per connection, at least 16), and then they wait.
    const bound = concurrency + 16;
    for (let i = 0; i < 500 && p.detailsRequests().length < bound; i++) await new Promise((r) => setTimeout(r, 10));
    expect(p.detailsRequests()).toHaveLength(bound);
    await new Promise((r) => setTimeout(r, 100));
    expect(p.detailsRequests()).toHaveLength(bound);
    expect(sink.calls.filter((c) => c.startsWith('details '))).toEqual([]);

    release();
    const { report } = await crawling;
    expect(report.detailsFetched).toBe(25);
    expect(sink.calls.filter((c) => c.startsWith('details '))).toHaveLength(25);
  });

  it('a sink that fails stops the crawl with its error, and nothing runs in the sink after the crawl returns', async () => {
    const p = await start({ delayMs: 2 });
    let running = 0;
    let afterReturn = false;
    let returned = false;
    class FailingSink extends MemorySink {
      override async onDetails(calendarId: string, eventId: string, doc: Parameters<MemorySink['onDetails']>[2]): Promise<void> {
        running++;
        if (returned) afterReturn = true;
        await new Promise((r) => setTimeout(r, 20));
        running--;
        if (eventId === 'e3') throw new Error('disk full');
        await super.onDetails(calendarId, eventId, doc);
      }
    }
    const sink = new FailingSink();
    const outcome = await runCrawl(p.url, CrawlCache.empty(), sink).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    returned = true;
    expect(outcome?.message).toBe('disk full');
    expect(running).toBe(0);
    await new Promise((r) => setTimeout(r, 50));
    expect(afterReturn).toBe(false);
  });
});

const BASE_NOW = BASE_OPTIONS.now;

describe('incremental crawls', () => {
  async function firstBuild(p: Portal): Promise<MemorySink> {
    const sink = new MemorySink();
    const cache = CrawlCache.empty();
    await runCrawl(p.url, cache, sink);
    await saveCache(cache, dir);
    sink.publish();
    return sink;
  }

  it('regression: an event id that cannot be put in a URL failed the whole crawl once reuse was decided in the list task; it fails its own details only', async () => {
    const events = makeEvents('science', 3);
    events[1] = { ...events[1]!, id: '..' };
    const p = await start({ events: new Map([['science', events], ['arts', makeEvents('arts', 2)], ['sport', []]]) });
    const sink = new MemorySink();
    sink.rows = () => true;
    for (const now of [BASE_NOW, BASE_NOW + 3600_000]) {
      const cache = now === BASE_NOW ? CrawlCache.empty() : await loadCache(dir);
      const { report } = await runCrawl(p.url, cache, sink, { now, maxFailedDetails: 1 });
      await saveCache(cache, dir);
      expect(report.detailsFailed).toEqual([{ calendarId: 'science', eventId: '..', message: expect.stringMatching(/"\.\." cannot be requested/) }]);
      expect(sink.results.map((r) => r.calendarId).sort()).toEqual(['arts', 'science', 'sport']);
      sink.publish();
    }
  });

  it('a rebuild of unchanged data makes one request per calendar plus one, and no details requests', async () => {
    const p = await start();
    const sink = await firstBuild(p);
    const before = p.server.requests.length;
    const detailsBefore = p.detailsRequests().length;

    const cache = await loadCache(dir);
    expect(cache.loadNote).toBeUndefined();
    const { report, requests } = await runCrawl(p.url, cache, sink, { now: Date.parse('2024-10-01T13:00:00Z') });
    expect(requests).toBe(3 + 1);
    expect(p.server.requests.length - before).toBe(4);
    expect(p.detailsRequests().length - detailsBefore).toBe(0);
    expect(p.server.requests.slice(before).every((r) => typeof r.headers['if-none-match'] === 'string')).toBe(true);
    expect(report).toMatchObject({ listsNotModified: 4, detailsReused: 25, detailsFetched: 0, events: 25 });
    // Every document handed over is the published one.
    for (const [path, bytes] of sink.written) expect(bytes.equals(sink.store.get(path)!)).toBe(true);
    expect(new Set(sink.sources.values())).toEqual(new Set(['not-modified', 'reused']));

    // The cache survives a second round trip with the same content.
    await saveCache(cache, dir);
    sink.publish();
    const third = await runCrawl(p.url, await loadCache(dir), sink, { now: Date.parse('2024-10-01T14:00:00Z') });
    expect(third.requests).toBe(4);
  });

  it('an event whose row stands (decideReuse: row) gets no details; its cache entries are kept as they were; each calendar gives one result', async () => {
    const p = await start();
    const sink = await firstBuild(p);
    p.opts.events.get('arts')![2]!.title = 'Renamed';
    // Rows for every event but sport's, as a build with the last build's store would have them.
    sink.rows = (calendarId) => calendarId !== 'sport';
    const cache = await loadCache(dir);
    const before = new Map((['science', 'sport'] as const).flatMap((c) => Array.from({ length: c === 'science' ? 12 : 5 }, (_, i) => [`${c}/e${i + 1}`, cache.previousEvent(c, `e${i + 1}`)])));
    const { report, requests } = await runCrawl(p.url, cache, sink, { now: Date.parse('2024-10-01T13:00:00Z') });
    // Asked about every event whose details stand: all but the renamed one.
    expect(sink.askedRows).toHaveLength(24);
    expect(sink.askedRows).not.toContain('arts e3');
    expect(report).toMatchObject({ events: 25, detailsFetched: 1, detailsReused: 24, listsNotModified: 3 });
    expect(requests).toBe(1 + 3 + 1);
    expect(sink.calls.filter((c) => c.startsWith('details science'))).toEqual([]);
    expect(sink.calls.filter((c) => c.startsWith('stored science'))).toHaveLength(12);
    expect(sink.calls.filter((c) => c.startsWith('details sport'))).toHaveLength(5);
    expect(sink.calls.filter((c) => c.startsWith('details arts'))).toEqual(['details arts e3']);
    expect(sink.calls.filter((c) => c.startsWith('stored arts'))).toHaveLength(7);
    // One result per calendar, after its last event; science taken whole by the same decision.
    expect(sink.results.map((r) => r.calendarId).sort()).toEqual(['arts', 'science', 'sport']);
    expect(sink.results.find((r) => r.calendarId === 'science')).toEqual({ calendarId: 'science', events: 12, stored: 12, listUnchanged: true });
    expect(sink.results.find((r) => r.calendarId === 'arts')).toEqual({ calendarId: 'arts', events: 8, stored: 7, listUnchanged: false });
    for (const r of sink.results) expect(sink.calls.indexOf(`done ${r.calendarId}`)).toBe(sink.calls.findLastIndex((c) => c.split(' ')[1] === r.calendarId));
    await saveCache(cache, dir);
    const saved = await loadCache(dir);
    for (const [key, entry] of before) {
      const [c, e] = key.split('/') as [string, string];
      expect(saved.previousEvent(c, e), key).toEqual(entry);
    }
    expect(saved.previousDoc(paths.detailsMirror('science', 'e1'))).toEqual(cache.previousDoc(paths.detailsMirror('science', 'e1')));
  });

  it('no row is asked for when an event is due for a check', async () => {
    const p = await start();
    const sink = await firstBuild(p);
    sink.rows = () => true;
    // Past --details-max-age (24h) for every event: none is offered, all are revalidated.
    const { report } = await runCrawl(p.url, await loadCache(dir), sink, { now: Date.parse('2024-10-03T13:00:00Z') });
    expect(sink.askedRows).toEqual([]);
    expect(report).toMatchObject({ detailsNotModified: 25, detailsReused: 0 });
  });

  it('a changed event is the only details request; its calendar list is fetched again', async () => {
    const p = await start();
    const sink = await firstBuild(p);
    p.opts.events.get('arts')![2]!.title = 'Renamed';
    const detailsBefore = p.detailsRequests().length;

    const { report } = await runCrawl(p.url, await loadCache(dir), sink, { now: Date.parse('2024-10-01T13:00:00Z') });
    const newDetails = p.detailsRequests().slice(detailsBefore).map((r) => r.url);
    expect(newDetails).toEqual(['/event-calendar/arts/event/e3/details']);
    expect(report).toMatchObject({ detailsFetched: 1, detailsReused: 24, listsNotModified: 3 });
    expect(sink.sources.get(paths.eventsMirror('arts'))).toBe('fetched');
    expect(JSON.parse(sink.written.get(paths.detailsMirror('arts', 'e3'))!.toString()).data.title).toBe('Renamed');
  });

  it('details older than detailsMaxAge are revalidated with conditional requests', async () => {
    const p = await start();
    const sink = await firstBuild(p);
    const detailsBefore = p.detailsRequests().length;
    const { report } = await runCrawl(p.url, await loadCache(dir), sink, { now: Date.parse('2024-10-03T12:00:00Z') });
    const sent = p.detailsRequests().slice(detailsBefore);
    expect(sent).toHaveLength(25);
    expect(sent.every((r) => typeof r.headers['if-none-match'] === 'string')).toBe(true);
    expect(report).toMatchObject({ detailsNotModified: 25, detailsFetched: 0, detailsReused: 0 });
  });

  it('never trusts the cache when the published bytes do not match it', async () => {
    const p = await start();
    const sink = await firstBuild(p);
    sink.store.set(paths.eventsMirror('sport'), Buffer.from('{"events": []}'));
    sink.store.delete(paths.detailsMirror('science', 'e1'));
    const before = p.server.requests.length;
    const { report } = await runCrawl(p.url, await loadCache(dir), sink, { now: Date.parse('2024-10-01T13:00:00Z') });
    const sent = p.server.requests.slice(before);
    const sportList = sent.find((r) => r.url === '/event-calendar/sport/events')!;
    expect(sportList.headers['if-none-match']).toBeUndefined();
    const e1 = sent.find((r) => r.url === '/event-calendar/science/event/e1/details')!;
    expect(e1.headers['if-none-match']).toBeUndefined();
    expect(report.detailsFetched).toBe(1);
    expect(sink.written.get(paths.eventsMirror('sport'))!.toString()).toBe(p.bodies.get('/event-calendar/sport/events'));
  });

  it('keys the cache relative to the base URL: a portal on a new port keeps its cache', async () => {
    const p = await start();
    const sink = new MemorySink();
    const cache = await loadCache(dir, 'embedded demo');
    await runCrawl(p.url, cache, sink);
    await saveCache(cache, dir);
    sink.publish();
    await p.close();
    const moved = await start(); // same data, new port
    portal = moved;
    expect(moved.url).not.toBe(p.url);
    const { requests, report } = await runCrawl(moved.url, await loadCache(dir, 'embedded demo'), sink, { now: Date.parse('2024-10-01T13:00:00Z') });
    expect(requests).toBe(4);
    expect(report.detailsReused).toBe(25);
    // Another portal's cache is not used at all.
    const other = await loadCache(dir, 'https://portal.example/api/');
    expect(other.loadNote).toContain('written for another portal (embedded demo)');
    expect(other.previousDoc(paths.calendarsMirror())).toBeUndefined();
  });

  it('drops entries not seen in the last crawl', async () => {
    const p = await start();
    const sink = await firstBuild(p);
    p.opts.calendars.pop(); // "sport" is gone
    const cache = await loadCache(dir);
    await runCrawl(p.url, cache, sink, { now: Date.parse('2024-10-01T13:00:00Z') });
    await saveCache(cache, dir);
    const reloaded = await loadCache(dir);
    expect(reloaded.previousDoc(paths.eventsMirror('sport'))).toBeUndefined();
    expect(reloaded.previousEvent('sport', 'e1')).toBeUndefined();
    expect(reloaded.previousDoc(paths.eventsMirror('arts'))).toBeDefined();
    expect(reloaded.previousEvent('arts', 'e1')).toBeDefined();
  });
});

describe('failures', () => {
  it('publishes around a few failed details and reports them', async () => {
    const p = await start({
      calendars: [{ id: 'big', title: 'Big' }],
      events: new Map([['big', makeEvents('big', 40)]]),
      detailsStatus: (_c, e) => (e === 'e7' ? 404 : e === 'e9' ? 503 : undefined),
    });
    const sink = new MemorySink();
    const cache = CrawlCache.empty();
    const { report } = await runCrawl(p.url, cache, sink, { maxFailedDetails: 0.05 });
    expect(report.detailsFailed.map((f) => f.eventId).sort()).toEqual(['e7', 'e9']);
    expect(report.detailsFailed.find((f) => f.eventId === 'e7')!.message).toContain('/event-calendar/big/event/e7/details": 404 Not Found');
    expect(report.detailsFailed.find((f) => f.eventId === 'e9')!.message).toContain('Gave up after 2 attempts');
    expect(sink.failed.map((f) => f.eventId).sort()).toEqual(['e7', 'e9']);
    expect(report.detailsFetched).toBe(38);
    // A failed event is not remembered, so the next crawl asks again.
    expect(cache.previousEvent('big', 'e7')).toBeUndefined();
  });

  it('fails the build when more details fail than the threshold allows', async () => {
    const p = await start({
      calendars: [{ id: 'big', title: 'Big' }],
      events: new Map([['big', makeEvents('big', 40)]]),
      detailsStatus: (_c, e) => (['e1', 'e2', 'e3'].includes(e) ? 404 : undefined),
    });
    const error = await failure(runCrawl(p.url, CrawlCache.empty(), new MemorySink(), { maxFailedDetails: 0.05 }));
    expect(error.code).toBe('BUILD');
    expect(error.message).toContain('3 of 40 event details failed (7.5%), more than --max-failed-details allows (5%)');
    expect(error.message).toContain('calendar "big", event "e1"');
  });

  it('names the calendar when its event list fails', async () => {
    const p = await start({ eventsStatus: (c) => (c === 'science' ? 404 : undefined) });
    const error = await failure(runCrawl(p.url, CrawlCache.empty(), new MemorySink()));
    expect(error.code).toBe('HTTP');
    expect(error.message).toMatch(/^Calendar "science" \(Faculty of Science\): \[GET\] "http:\/\/127\.0\.0\.1:\d+\/event-calendar\/science\/events": 404 Not Found/);
  });

  it('stops at once on a rejected token, even from one event', async () => {
    const p = await start({ detailsStatus: (_c, e) => (e === 'e2' ? 401 : undefined) });
    const error = await failure(runCrawl(p.url, CrawlCache.empty(), new MemorySink()));
    expect(error.code).toBe('AUTH');
    expect(error.message).toContain('The portal rejected the token');
  });

  it('stops with INTERRUPTED when the signal aborts', async () => {
    const p = await start({ delayMs: 20 });
    const controller = new AbortController();
    const sink = new MemorySink();
    const original = sink.onEvents.bind(sink);
    sink.onEvents = async (...args) => {
      await original(...args);
      controller.abort();
    };
    const error = await failure(runCrawl(p.url, CrawlCache.empty(), sink, { signal: controller.signal }, { signal: controller.signal }));
    expect(error.code).toBe('INTERRUPTED');
    expect(sink.calls.filter((c) => c.startsWith('details')).length).toBeLessThan(25);
  });

  it('enforces --max-calendars and --max-events', async () => {
    const p = await start();
    const calendars = await failure(runCrawl(p.url, CrawlCache.empty(), new MemorySink(), { maxCalendars: 2 }));
    expect(calendars.code).toBe('LIMIT');
    expect(calendars.message).toContain('more than 2 calendars, the limit set by --max-calendars');
    const events = await failure(runCrawl(p.url, CrawlCache.empty(), new MemorySink(), { maxEventsPerCalendar: 10 }));
    expect(events.code).toBe('LIMIT');
    expect(events.message).toContain('Calendar "science" (Faculty of Science)');
    expect(events.message).toContain('more than 10 events, the limit set by --max-events');
  });

  it('says where the list was expected when a response has none', async () => {
    const p = await start();
    p.server.route('/event-calendars', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'));
    const error = await failure(runCrawl(p.url, CrawlCache.empty(), new MemorySink()));
    expect(error.code).toBe('RESPONSE');
    expect(error.message).toContain(`[GET] "${p.url}/event-calendars": Expected a list of calendars`);
  });
});

describe('the crawl cache in the build store', () => {
  it('missing, corrupt or foreign stores give an empty cache with a note', async () => {
    const { writeFile } = await import('node:fs/promises');
    expect((await loadCache(join(dir, 'none'))).loadNote).toContain('no build store');
    const cache = CrawlCache.empty();
    cache.recordDoc('event-calendars', { sha256: 'abc', pages: [{ url: 'event-calendars', sha256: 'abc' }] });
    await saveCache(cache, dir);
    const { readFile } = await import('node:fs/promises');
    const saved = await readFile(storeFile(dir), 'utf8');
    await writeFile(storeFile(dir), saved.replace('"sha256":"abc"', '"sha256":7'));
    const corrupt = await loadCache(dir);
    expect(corrupt.loadNote).toContain('corrupt');
    expect(corrupt.previousDoc('event-calendars')).toBeUndefined();
    await writeFile(storeFile(dir), saved.replace(/"calfeedStore":\d+/, '"calfeedStore":99'));
    expect((await loadCache(dir)).loadNote).toContain('another calfeed version');
  });

  it('a corrupt cache means a full, correct crawl', async () => {
    const { writeFile } = await import('node:fs/promises');
    const p = await start();
    const sink = new MemorySink();
    const cache = CrawlCache.empty();
    await runCrawl(p.url, cache, sink);
    await saveCache(cache, dir);
    sink.publish();
    await writeFile(storeFile(dir), 'garbage');
    const before = p.server.requests.length;
    const { report } = await runCrawl(p.url, await loadCache(dir), sink);
    expect(p.server.requests.length - before).toBe(29);
    expect(p.server.requests.slice(before).some((r) => r.headers['if-none-match'])).toBe(false);
    expect(report.detailsFetched).toBe(25);
  });

  it('saves atomically and round-trips entries', async () => {
    const { readdir } = await import('node:fs/promises');
    const cache = CrawlCache.empty();
    cache.recordDoc('event-calendars', { sha256: 'abc', pages: [{ url: 'http://x/event-calendars', etag: '"1"', sha256: 'abc' }] });
    cache.recordEvent('c', 'e', { entry: 'h', checkedAt: 5 });
    await saveCache(cache, join(dir, 'nested'));
    expect(await readdir(join(dir, 'nested'))).toEqual(['build-store']);
    const loaded = await loadCache(join(dir, 'nested'));
    expect(loaded.previousDoc('event-calendars')).toEqual({ sha256: 'abc', pages: [{ url: 'http://x/event-calendars', etag: '"1"', sha256: 'abc' }] });
    expect(loaded.previousEvent('c', 'e')).toEqual({ entry: 'h', checkedAt: 5 });
    expect(loaded.previousDoc('__proto__')).toBeUndefined();
  });
});
