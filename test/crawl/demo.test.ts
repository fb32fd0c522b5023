// The crawler against the embedded demo portal (src/demo): the same portal users and CI meet.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CrawlCache } from '../../src/crawl/index.js';
import { loadCache, saveCache } from '../support/store.js';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { MemorySink, runCrawl } from './helpers.js';

const NOW = Date.parse('2024-10-01T12:00:00Z');
let demo: DemoPortal | undefined;
let dir: string | undefined;

afterEach(async () => {
  await demo?.close();
  demo = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('crawling the demo portal', () => {
  it('a full crawl, then a no-change rebuild with one request per calendar plus one', async () => {
    demo = await startDemoPortal({ now: NOW });
    dir = await mkdtemp(join(tmpdir(), 'calfeed-demo-crawl-'));
    const token = demo.tokens.university;
    const sink = new MemorySink();
    const cache = CrawlCache.empty();
    const first = await runCrawl(demo.url, cache, sink, { now: NOW }, { token });
    expect(first.report.calendars).toBeGreaterThan(1);
    expect(first.report.detailsFailed).toEqual([]);
    expect(first.report.detailsFetched).toBe(first.report.events);
    await saveCache(cache, dir);
    sink.publish();

    demo.resetStats();
    const second = await runCrawl(demo.url, await loadCache(dir), sink, { now: NOW + 3600_000 }, { token });
    const stats = demo.stats();
    expect(stats.byKind.details).toBe(0);
    expect(stats.requests).toBe(first.report.calendars + 1);
    expect(second.report.detailsReused).toBe(first.report.events);
  });

  it('a flaky portal still gives a complete crawl, through retries', async () => {
    demo = await startDemoPortal({ now: NOW, faults: 'flaky' });
    const sink = new MemorySink();
    const retries: string[] = [];
    const { report } = await runCrawl(
      demo.url,
      CrawlCache.empty(),
      sink,
      { now: NOW },
      { token: demo.tokens.university, retries: 3, onRetry: (r) => retries.push(r.reason) },
    );
    expect(report.detailsFailed).toEqual([]);
    expect(report.detailsFetched).toBe(report.events);
    expect(retries.length).toBeGreaterThan(0);
  });
});
