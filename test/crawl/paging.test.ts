import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { asSinglePage, CrawlCache, firstPageUrl, linkHeaderNext, nextPageUrl, type PagingConfig } from '../../src/crawl/index.js';
import { loadCache, saveCache } from '../support/store.js';
import { CalfeedError } from '../../src/errors.js';
import { paths } from '../../src/paths.js';
import { MemorySink, runCrawl, TOKEN } from './helpers.js';
import { makeEvents, startPortal, type Portal, type PagingStyle } from './portal.js';

const AUTO: PagingConfig = { mode: 'auto', pageParam: 'page', firstPage: 1, maxPages: 1000 };
const URL0 = 'https://portal.example/api/event-calendar/7/events';

describe('asSinglePage', () => {
  it('makes a merged body read as one complete page: no next link, page 1 of 1', () => {
    const merged = { data: [1, 2, 3], links: { next: 'https://p/x?page=2', self: 'https://p/x' }, meta: { page: 1, total_pages: 3, per_page: 5 } };
    expect(asSinglePage(merged)).toEqual({ data: [1, 2, 3], links: { next: null, self: 'https://p/x' }, meta: { page: 1, total_pages: 1, per_page: 5 } });
    expect(merged.links.next).toBe('https://p/x?page=2');
    const odata = { value: [1], '@odata.nextLink': 'https://p/x?$skip=1' };
    expect(nextPageUrl({ url: 'https://p/x', json: asSinglePage(odata), link: undefined, itemCount: 1 }, { mode: 'auto', pageParam: 'page', firstPage: 1, maxPages: 10 })).toBeUndefined();
    expect(asSinglePage([1, 2])).toEqual([1, 2]);
  });
});

describe('nextPageUrl', () => {
  const page = (json: unknown, link?: string, itemCount = 3, url = URL0) => ({ json, link, url, itemCount });

  it.each([
    [{ next: '/api/x?page=2' }, '/api/x?page=2'],
    [{ next: null, links: { next: 'https://p/2' } }, 'https://p/2'],
    [{ links: { next: { href: 'https://p/3' } } }, 'https://p/3'],
    [{ _links: { next: { href: 'https://p/4' } } }, 'https://p/4'],
    [{ meta: { next: 'https://p/5' } }, 'https://p/5'],
    [{ paging: { next: 'https://p/6' } }, 'https://p/6'],
    [{ '@odata.nextLink': 'https://p/7' }, 'https://p/7'],
    [{ next_page_url: 'https://p/8' }, 'https://p/8'],
    [{ page: 2, totalPages: 3 }, `${URL0}?page=3`],
    [{ meta: { current_page: '1', last_page: 2 } }, `${URL0}?page=2`],
    [{ pagination: { currentPage: 2, pageCount: 2 } }, undefined],
    [{ next: null, links: { next: null } }, undefined],
    [{ next: '' }, undefined],
  ])('finds the next page in %j', (json, expected) => {
    expect(nextPageUrl(page(json), AUTO)).toBe(expected);
  });

  it('reads an RFC 8288 Link header', () => {
    expect(nextPageUrl(page([], '<https://p/1>; rel="first", <https://p/2>; rel="next"', 3), AUTO)).toBe('https://p/2');
    expect(linkHeaderNext('<https://p/2>; rel=next')).toBe('https://p/2');
    expect(linkHeaderNext('<https://p/9>; title="a, b"; rel="prev next"')).toBe('https://p/9');
    expect(linkHeaderNext('<https://p/1>; rel="prev"')).toBeUndefined();
  });

  it('stops on an empty page, and never pages in mode none', () => {
    expect(nextPageUrl(page({ next: 'https://p/2' }, undefined, 0), AUTO)).toBeUndefined();
    expect(nextPageUrl(page({ next: 'https://p/2' }), { ...AUTO, mode: 'none' })).toBeUndefined();
  });

  it('counts zero-based pages when firstPage is 0', () => {
    const zero = { ...AUTO, firstPage: 0 };
    expect(nextPageUrl(page({ page: 0, totalPages: 2 }), zero)).toBe(`${URL0}?page=1`);
    expect(nextPageUrl(page({ page: 1, totalPages: 2 }), zero)).toBeUndefined();
  });

  it('query mode increments the page parameter until an empty page', () => {
    const query: PagingConfig = { ...AUTO, mode: 'query', pageParam: 'p', sizeParam: 'size', pageSize: 50 };
    const first = firstPageUrl(URL0, query);
    expect(first).toBe(`${URL0}?size=50&p=1`);
    expect(nextPageUrl(page({}, undefined, 50, first), query)).toBe(`${URL0}?size=50&p=2`);
    expect(nextPageUrl(page({}, undefined, 0, first), query)).toBeUndefined();
    expect(firstPageUrl(URL0, AUTO)).toBe(URL0);
  });
});

describe('crawling paged lists', () => {
  let portal: Portal | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await portal?.close();
    portal = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  /** A first crawl of a `links.next` portal, its cache saved in `dir` and its mirror published. */
  async function crawledAndPublished(): Promise<{ p: Portal; sink: MemorySink; dir: string }> {
    const p = await start('links.next');
    const cacheDir = await mkdtemp(join(tmpdir(), 'calfeed-paging-'));
    dir = cacheDir;
    const sink = new MemorySink();
    const cache = CrawlCache.empty();
    await runCrawl(p.url, cache, sink);
    await saveCache(cache, cacheDir);
    sink.publish();
    return { p, sink, dir: cacheDir };
  }

  async function start(style: PagingStyle, events = 25): Promise<Portal> {
    portal = await startPortal({
      token: TOKEN,
      calendars: [{ id: 'c1', title: 'Paged' }],
      events: new Map([['c1', makeEvents('c1', events)]]),
      paging: style,
      pageSize: 10,
    });
    return portal;
  }

  const styles: PagingStyle[] = [
    'next',
    'links.next',
    '_links.next.href',
    'meta.next',
    'paging.next',
    '@odata.nextLink',
    'link-header',
    'counters',
    'meta-counters',
  ];

  it.each(styles)('follows %s to the end and mirrors the complete list', async (style) => {
    const p = await start(style);
    const sink = new MemorySink();
    const { report } = await runCrawl(p.url, CrawlCache.empty(), sink);
    expect(p.listRequests().map((r) => r.url)).toEqual([
      '/event-calendars',
      '/event-calendar/c1/events',
      '/event-calendar/c1/events?page=2',
      '/event-calendar/c1/events?page=3',
    ]);
    const doc = sink.lists.get('c1')!;
    expect(doc.pages).toBe(3);
    expect(doc.entries).toHaveLength(25);
    expect(report).toMatchObject({ events: 25, detailsFetched: 25, pages: 4 });
    // The mirror is page 1 with its list replaced by every item.
    const mirror = JSON.parse(sink.written.get(paths.eventsMirror('c1'))!.toString()) as Record<string, unknown>;
    const page1 = JSON.parse(p.bodies.get('/event-calendar/c1/events')!) as unknown;
    let list: unknown = mirror;
    for (const key of doc.listPath) list = (list as Record<string, unknown>)[key];
    expect((list as Array<{ id: string }>).map((e) => e.id)).toEqual(makeEvents('c1', 25).map((e) => e.id));
    if (!Array.isArray(page1)) expect(Object.keys(mirror)).toEqual(Object.keys(page1 as object));
  });

  it('query mode pages with the page parameter until an empty page', async () => {
    const p = await start('query');
    const sink = new MemorySink();
    await runCrawl(p.url, CrawlCache.empty(), sink, {
      paging: { mode: 'query', pageParam: 'page', sizeParam: 'limit', pageSize: 10, firstPage: 1, maxPages: 1000 },
    });
    // The test portal does not page its calendar list: page 2 repeats page 1, which ends that list.
    expect(p.listRequests().map((r) => r.url)).toEqual([
      '/event-calendars?limit=10&page=1',
      '/event-calendars?limit=10&page=2',
      '/event-calendar/c1/events?limit=10&page=1',
      '/event-calendar/c1/events?limit=10&page=2',
      '/event-calendar/c1/events?limit=10&page=3',
      '/event-calendar/c1/events?limit=10&page=4',
    ]);
    expect(sink.lists.get('c1')!.entries).toHaveLength(25);
    expect(JSON.parse(sink.written.get(paths.eventsMirror('c1'))!.toString())).toHaveLength(25);
  });

  it('a single page is mirrored byte for byte', async () => {
    const p = await start('links.next', 7);
    const sink = new MemorySink();
    await runCrawl(p.url, CrawlCache.empty(), sink);
    expect(sink.written.get(paths.eventsMirror('c1'))!.toString()).toBe(p.bodies.get('/event-calendar/c1/events'));
  });

  it('stops a paging loop with a warning', async () => {
    const p = await start('loop');
    const sink = new MemorySink();
    const { report } = await runCrawl(p.url, CrawlCache.empty(), sink);
    // page 1, page 2, then "?page=1": the same body as page 1, so its items are not added twice.
    expect(p.listRequests().filter((r) => r.url.includes('/events')).map((r) => r.url)).toEqual([
      '/event-calendar/c1/events',
      '/event-calendar/c1/events?page=2',
      '/event-calendar/c1/events?page=1',
    ]);
    expect(sink.lists.get('c1')!.entries).toHaveLength(20);
    expect(report.warnings).toHaveLength(1);
    expect(report.warnings[0]).toContain('repeats an earlier one');
    expect(sink.warnings).toEqual(report.warnings);
  });

  it('regression: a paging warning was given only by the build that fetched the list, not by one that reused it unchanged (a 304), unlike a cold build', async () => {
    const p = await start('loop');
    const cacheDir = await mkdtemp(join(tmpdir(), 'calfeed-paging-'));
    dir = cacheDir;
    const sink = new MemorySink();
    const cache = CrawlCache.empty();
    const first = await runCrawl(p.url, cache, sink);
    await saveCache(cache, cacheDir);
    sink.publish();
    const again = await runCrawl(p.url, await loadCache(cacheDir), sink, { now: Date.parse('2024-10-01T13:00:00Z') });
    // Both lists answered 304 to every page and were taken as published.
    expect(again.report.listsNotModified).toBe(2);
    expect(again.report.warnings).toEqual(first.report.warnings);
    expect(again.report.warnings[0]).toContain('repeats an earlier one');
  });

  it('fails past paging.maxPages', async () => {
    const p = await start('endless');
    let error: CalfeedError | undefined;
    try {
      await runCrawl(p.url, CrawlCache.empty(), new MemorySink(), { paging: { ...AUTO, maxPages: 3 } });
    } catch (e) {
      error = e as CalfeedError;
    }
    expect(error?.code).toBe('LIMIT');
    expect(error?.message).toContain('more than 3 pages, the limit set by paging.maxPages');
    expect(p.listRequests().filter((r) => r.url.includes('/events'))).toHaveLength(3);
  });

  it('revalidates every page; all 304 reuses the published mirror', async () => {
    const { p, sink, dir } = await crawledAndPublished();
    const before = p.server.requests.length;
    const { report } = await runCrawl(p.url, await loadCache(dir), sink, { now: Date.parse('2024-10-01T13:00:00Z') });
    expect(p.server.requests.length - before).toBe(1 + 3);
    expect(report).toMatchObject({ listsNotModified: 2, detailsReused: 25 });
    expect(sink.lists.get('c1')!.entries).toHaveLength(25);
  });

  it('a change on a later page refetches the whole list', async () => {
    const { p, sink, dir } = await crawledAndPublished();
    p.opts.events.get('c1')![22]!.title = 'Changed on page 3';
    const before = p.server.requests.length;
    const { report } = await runCrawl(p.url, await loadCache(dir), sink, { now: Date.parse('2024-10-01T13:00:00Z') });
    const lists = p.server.requests.slice(before).filter((r) => r.url.includes('/events'));
    // 3 conditional (the third answers 200), then a full pass of 3.
    expect(lists).toHaveLength(6);
    expect(report).toMatchObject({ listsNotModified: 1, detailsFetched: 1, detailsReused: 24 });
    const mirror = sink.written.get(paths.eventsMirror('c1'))!.toString();
    expect(mirror).toContain('Changed on page 3');
  });
});
