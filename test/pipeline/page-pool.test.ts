// The worker pool only runs from compiled code (a worker needs a .js file), so this test drives the
// build's own dist/ output, which `npm test` compiles first.
import { mkdtempSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as PoolModule from '../../src/pipeline/page-pool.js';
import type { CalendarJob } from '../../src/pipeline/page-pool.js';
import type * as SpoolModule from '../../src/pipeline/spool.js';
import type { Calendar, FeedEvent, SiteContext } from '../../src/model.js';
import type * as ClockModule from '../../src/render/clock.js';
import type * as ContextModule from '../../src/render/context.js';
import type * as HtmlModule from '../../src/render/html/index.js';
import type { PageText } from '../../src/render/html/messages.js';
import type * as IcalModule from '../../src/render/ical/index.js';
import type * as SyndicationModule from '../../src/render/syndication/index.js';
import { sampleCalendar, sampleEvent, sampleSite } from '../fixtures/sample.js';
import { calendarPages, newestStamp, renderSyndication, selectFeedEvents } from '../support/render.js';

const dist = (p: string): string => new URL(`../../dist/${p}`, import.meta.url).href;
const { createPageRenderer, renderCalendar } = (await import(dist('pipeline/page-pool.js'))) as typeof PoolModule;
const { createRenderContext } = (await import(dist('render/context.js'))) as typeof ContextModule;
const { ownClock } = (await import(dist('render/clock.js'))) as typeof ClockModule;
const { loadHtmlRenderer } = (await import(dist('render/html/index.js'))) as typeof HtmlModule;
const { veventText } = (await import(dist('render/ical/index.js'))) as typeof IcalModule;
const { feedItems } = (await import(dist('render/syndication/index.js'))) as typeof SyndicationModule;
const { EventSpool, itemSpans, spans } = (await import(dist('pipeline/spool.js'))) as typeof SpoolModule;

const ctx = createRenderContext();

/**
 * A calendar job for `events`, spooled into a spool file in a folder of its own in `dir` as a build
 * spools them; every other event without its feed items, as one that had ended when spooled.
 */
function spooledJob(dir: string, cal: Calendar, events: FeedEvent[], site: SiteContext, text: PageText): CalendarJob {
  const spool = EventSpool.create(mkdtempSync(path.join(dir, 'job-')));
  const facts = { start: 0, end: 0, stamp: 0, pageStart: 0, pageEnd: 0, cancelled: false, placeless: false, categories: [] };
  const spooled = (e: FeedEvent, i: number) => ({ vevent: veventText(ctx, e, site), items: i % 2 ? feedItems(ctx, e, cal.timeZone, site, text) : '', record: '{}' });
  const refs = new Map(events.map((e, i) => [e.id, spool.add(e, spooled(e, i), facts)]));
  const selected = selectFeedEvents(ctx, events, [cal], site);
  const feed = selected.map((e) => refs.get(e.id)!);
  return { cal, calendars: [cal], spool: spool.readableFile(), list: spans([...refs.values()]), feed: itemSpans(feed), updated: newestStamp(selected.length ? selected : events) };
}

/** A templates folder in `dir` whose event page fails when rendered. */
async function brokenEventTemplate(dir: string, name: string): Promise<string> {
  const templates = path.join(dir, name);
  await mkdir(path.join(templates, 'pages'), { recursive: true });
  await writeFile(path.join(templates, 'pages', 'event.hbs'), '{{token}}');
  return templates;
}

describe('page renderer worker pool (compiled)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'calfeed-pool-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('renders the same page and VEVENT bytes in worker threads as in this thread', async () => {
    const site = sampleSite();
    const html = await loadHtmlRenderer();
    const pool = createPageRenderer(ctx, html, site, undefined);
    // One core: pages render in this thread, and this test compares that path with itself.
    expect(pool.threads).toBe(Math.min(3, availableParallelism() - 1));
    try {
      const cal = sampleCalendar();
      const events = Array.from({ length: 40 }, (_, i) => sampleEvent({ id: `e${i}`, slug: `e${i}`, title: `Talk ${i} <b>ĄČ</b> 🌳` }));
      const results = await Promise.all(events.map((e, i) => pool.render(cal, e, { page: i % 3 !== 0, items: i % 2 === 0 })));
      results.forEach((r, i) => {
        expect(r.vevent).toBe(veventText(ctx, events[i]!, site));
        expect(r.items).toBe(i % 2 === 0 ? feedItems(ctx, events[i]!, cal.timeZone, site, html.text(site)) : '');
        if (i % 3 === 0) expect(r.page).toBeUndefined();
        else expect(r.page).toBe(html.event(ctx, cal, events[i]!, site));
      });
    } finally {
      await pool.close();
    }
  });

  it("renders a calendar's feeds and pages in a worker as the renderers do in this thread, before and after its threads stop", async () => {
    const site = sampleSite();
    const html = await loadHtmlRenderer();
    const pool = createPageRenderer(ctx, html, site, undefined);
    try {
      const cal = sampleCalendar();
      const events = Array.from({ length: 30 }, (_, i) => sampleEvent({ id: `e${i}`, slug: `e${i}`, title: `Talk ${i} <b>ĄČ</b> 🌳` }));
      const job = spooledJob(dir, cal, events, site, html.text(site));
      // From whole events in this thread, as the renderers take them: the same bytes as from the
      // spool, where only the feeds' items are read whole and the list pages get ListEvents.
      // Until when they hold is what the renderers' clock recorded (the sample's next start or end,
      // or midnight in Vilnius), whichever thread renders them.
      const own = ownClock(site);
      const expected = { ...renderSyndication(ctx, cal, [cal], events, own, html.text(own)), ...calendarPages(html, ctx, cal, events, own), changesAt: own.clock.changesAt };
      expect(expected.changesAt).toBeGreaterThan(site.clock.now);
      expect(expected.changesAt).toBeLessThanOrEqual(Date.UTC(2026, 2, 20, 22, 0));
      // The index and past pages come in pieces (UTF-8 from a worker, text in this thread): joined,
      // the pages. changesAt is read after them, as the build does: in this thread they are
      // rendered as they are iterated.
      const text = (pieces: Iterable<string | Uint8Array>): string => Buffer.concat([...pieces].map((p) => (typeof p === 'string' ? Buffer.from(p) : p))).toString();
      const joined = (pages: PoolModule.CalendarPages) => {
        const index = text(pages.index);
        const past = text(pages.past);
        return { ...pages, index, past };
      };
      expect(joined(renderCalendar(ctx, html, site, job))).toEqual(expected);
      expect(expected.rss).toContain('Talk 29');
      expect(expected.index).toContain('Talk 29');
      const [inWorker, pageAlongside] = await Promise.all([pool.calendar(job), pool.render(cal, events[0]!, { page: true, items: true })]);
      expect(joined(inWorker)).toEqual(expected);
      expect(pageAlongside.page).toBe(html.event(ctx, cal, events[0]!, site));
      await pool.stopThreads();
      expect(joined(await pool.calendar(job))).toEqual(expected);
    } finally {
      await pool.close();
    }
  });

  it('with startAfter, renders in this thread until more pages than that are asked for, then in workers, to the same bytes', async () => {
    const site = sampleSite();
    const html = await loadHtmlRenderer();
    const workers = Math.min(2, availableParallelism() - 1);
    const pool = createPageRenderer(ctx, html, site, undefined, 2, 3);
    try {
      expect([pool.threads, pool.maxThreads]).toEqual([0, workers]);
      const cal = sampleCalendar();
      const events = Array.from({ length: 6 }, (_, i) => sampleEvent({ id: `e${i}`, slug: `e${i}`, title: `Talk ${i} <b>ĄČ</b> 🌳` }));
      const check = (r: PoolModule.RenderedEvent, i: number, page: boolean): void => {
        expect(r.vevent).toBe(veventText(ctx, events[i]!, site));
        expect(r.page).toBe(page ? html.event(ctx, cal, events[i]!, site) : undefined);
      };
      // VEVENTs alone cost next to nothing: they do not count.
      for (let i = 0; i < 6; i++) check(await pool.render(cal, events[i]!, { page: false, items: false }), i, false);
      for (let i = 0; i < 3; i++) check(await pool.render(cal, events[i]!, { page: true, items: true }), i, true);
      expect(pool.threads).toBe(0);
      check(await pool.render(cal, events[3]!, { page: true, items: true }), 3, true);
      expect(pool.threads).toBe(workers);
      // A calendar's job counts its events (half a page each): the same bytes from a worker.
      const job = spooledJob(dir, cal, events, site, html.text(site));
      const pages = await pool.calendar(job);
      expect(pages.rss).toBe(renderCalendar(ctx, html, site, job).rss);
      await pool.stopThreads();
      expect(pool.threads).toBe(0);
      check(await pool.render(cal, events[4]!, { page: true, items: true }), 4, true);
    } finally {
      await pool.close();
    }
  });

  it('with startAfter, starts no worker for a calendar whose pages weigh less, and none once its threads are stopped', async () => {
    const site = sampleSite();
    const html = await loadHtmlRenderer();
    const pool = createPageRenderer(ctx, html, site, undefined, 2, 10);
    try {
      const cal = sampleCalendar();
      const events = Array.from({ length: 20 }, (_, i) => sampleEvent({ id: `e${i}`, slug: `e${i}` }));
      await pool.calendar(spooledJob(dir, cal, events, site, html.text(site)));
      expect(pool.threads).toBe(0);
      await pool.stopThreads();
      await pool.calendar(spooledJob(dir, cal, events, site, html.text(site)));
      await pool.render(cal, events[0]!, { page: true, items: true });
      expect(pool.threads).toBe(0);
    } finally {
      await pool.close();
    }
  });

  it('finishes the jobs in flight when its threads stop, then renders the same bytes in this thread', async () => {
    const site = sampleSite();
    const html = await loadHtmlRenderer();
    const pool = createPageRenderer(ctx, html, site, undefined);
    try {
      const cal = sampleCalendar();
      const events = Array.from({ length: 20 }, (_, i) => sampleEvent({ id: `e${i}`, slug: `e${i}`, title: `Talk ${i} <b>ĄČ</b> 🌳` }));
      const inFlight = events.map((e) => pool.render(cal, e, { page: true, items: true }));
      const stopped = pool.stopThreads();
      const after = events.map((e) => pool.render(cal, e, { page: true, items: true }));
      await stopped;
      expect(pool.threads).toBe(0);
      const results = await Promise.all([...inFlight, ...after, ...events.map((e) => pool.render(cal, e, { page: false, items: false }))]);
      results.forEach((r, i) => {
        const event = events[i % events.length]!;
        expect(r.vevent).toBe(veventText(ctx, event, site));
        if (i < 2 * events.length) expect(r.page).toBe(html.event(ctx, cal, event, site));
        else expect(r.page).toBeUndefined();
      });
      await pool.stopThreads();
    } finally {
      await pool.close();
    }
  });

  it('fails a render with the template error, named, when a user template breaks inside a worker', async () => {
    const templates = await brokenEventTemplate(dir, 'broken');
    const site = sampleSite();
    const html = await loadHtmlRenderer(templates);
    const pool = createPageRenderer(ctx, html, site, templates);
    try {
      await expect(pool.render(sampleCalendar(), sampleEvent(), { page: true, items: true })).rejects.toMatchObject({ name: 'CalfeedError', code: 'BUILD', message: expect.stringMatching(/event/) });
      // Only the page needs the template: a VEVENT alone still renders.
      await expect(pool.render(sampleCalendar(), sampleEvent(), { page: false, items: false })).resolves.toMatchObject({ vevent: expect.stringContaining('BEGIN:VEVENT') });
    } finally {
      await pool.close();
    }
  });

  it('sends the jobs of one turn to a worker as one message, and a job that fails in it fails alone', async () => {
    const templates = await brokenEventTemplate(dir, 'broken-batch');
    const site = sampleSite();
    const html = await loadHtmlRenderer(templates);
    const pool = createPageRenderer(ctx, html, site, templates);
    const post = Worker.prototype.postMessage;
    const sent: unknown[] = [];
    Worker.prototype.postMessage = function (this: Worker, ...args: Parameters<Worker['postMessage']>) {
      sent.push(args[0]);
      post.apply(this, args);
    };
    try {
      const cal = sampleCalendar();
      const events = Array.from({ length: 30 }, (_, i) => sampleEvent({ id: `e${i}`, slug: `e${i}` }));
      // Every third asks for the page, which the broken template fails; the others only a VEVENT.
      const results = await Promise.allSettled(events.map((e, i) => pool.render(cal, e, { page: i % 3 === 0, items: true })));
      results.forEach((r, i) => {
        if (i % 3 === 0) expect(r).toMatchObject({ status: 'rejected', reason: { name: 'CalfeedError', code: 'BUILD' } });
        else expect(r).toMatchObject({ status: 'fulfilled', value: { vevent: veventText(ctx, events[i]!, site) } });
      });
      expect(sent.length).toBe(pool.threads);
      expect(sent.flat()).toHaveLength(events.length);
    } finally {
      Worker.prototype.postMessage = post;
      await pool.close();
    }
  });
});
