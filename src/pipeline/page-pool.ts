// Event pages and VEVENTs, and calendars' feeds and pages, rendered on worker threads when there is
// a spare core (rendering is most of a build's CPU), else in this thread through the same interface.

import { closeSync, openSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CalfeedError, type ErrorCode } from '../errors.js';
import { type Calendar, type FeedEvent, listEvent, type ListEvent, type SiteContext } from '../model.js';
import { ownClock } from '../render/clock.js';
import type { RenderContext } from '../render/context.js';
import type { HtmlRenderer } from '../render/html/index.js';
import type { EventSource } from '../render/html/view.js';
import { veventText } from '../render/ical/index.js';
import { feedItems, renderFeeds } from '../render/syndication/index.js';
import { eventEndMs } from '../render/syndication/when.js';
import { fdRead, readItems, readSpans } from './spool.js';
import type { PageJob, PageReply, PageWorkerData } from './page-worker.js';
import { DeferredPool } from './deferred-pool.js';

/** What to render of an event besides its VEVENT: either may be kept from the last build instead. */
export interface EventWants {
  page: boolean;
  items: boolean;
}

export interface RenderedEvent {
  /** The event page's HTML; absent when it was not asked for. */
  page?: string;
  vevent: string;
  /** Its feed items (feedItems()); '' when they were not asked for, or the event has ended (no feed lists it again). */
  items: string;
}

/**
 * A calendar's feeds and pages. The index and past pages come in pieces (18 MB at 100,000 events):
 * from a worker as UTF-8, moved; in this thread rendered as they are iterated (once).
 */
export interface CalendarPages {
  rss: string;
  atom: string;
  json: string;
  index: Iterable<string | Uint8Array>;
  past: Iterable<string | Uint8Array>;
  widget: string;
  /** Until when what they took from "now" holds (Infinity: for good); read it after iterating index and past. */
  readonly changesAt: number;
}

/** A calendar's pages as a worker sends them: every piece rendered, as UTF-8. */
export interface EncodedPages extends CalendarPages {
  index: Uint8Array[];
  past: Uint8Array[];
}

/** The buffers a reply moves to the main thread instead of copying. */
export function pagesTransfer(pages: EncodedPages): ArrayBuffer[] {
  return [...pages.index, ...pages.past].map((piece) => piece.buffer as ArrayBuffer);
}

/** A calendar's feeds and pages to render; the rendering thread reads its events from the spool file. */
export interface CalendarJob {
  cal: Calendar;
  calendars: Calendar[];
  /** The spool file (EventSpool.readableFile()). */
  spool: string;
  /** Every live event of the calendar, sorted (compareRefs): spans() of their refs. */
  list: Float64Array;
  /** The calendar feeds' items (its first feedLimit upcoming events): itemSpans() of their refs. */
  feed: Float64Array;
  /** When the feeds were last changed: the newest item's stamp, else the newest of all its events'. */
  updated: number;
}

export interface PageRenderer {
  /** Render an event's VEVENT, and what it `wants` of its page and feed items. */
  render(cal: Calendar, event: FeedEvent, wants: EventWants): Promise<RenderedEvent>;
  /** Render a calendar's feeds and pages. */
  calendar(job: CalendarJob): Promise<CalendarPages>;
  /** Stop the worker threads once their jobs are done (an idle one holds its heap); later renders run here. */
  stopThreads(): Promise<void>;
  close(): Promise<void>;
  /** Worker threads rendering now (0: this thread renders). */
  readonly threads: number;
  /** Worker threads it may start (0: none). */
  readonly maxThreads: number;
}

/** Most worker threads a build starts: past this, the main thread is the bottleneck anyway. */
const MAX_WORKERS = 3;

/** A worker's young generation, in MB: V8's default (48 MB on Node 20) grows its RSS by that much with short-lived garbage. */
const WORKER_YOUNG_GENERATION_MB = 8;

/**
 * Worker threads when there is a spare core and compiled workers exist, else in-thread rendering
 * (with `html` and `ctx`). With `startAfter`, the workers start once that many pages are asked for.
 */
export function createPageRenderer(ctx: RenderContext, html: HtmlRenderer, site: SiteContext, templates: string | undefined, maxWorkers = MAX_WORKERS, startAfter = 0): PageRenderer {
  const workerFile = new URL('./page-worker.js', import.meta.url);
  const workers = Math.min(maxWorkers, availableParallelism() - 1);
  const local = inThread(ctx, html, site);
  // From TypeScript sources (vitest, tsx) there is no compiled page-worker.js to start.
  if (workers < 1 || !import.meta.url.endsWith('.js')) return local;
  const start = (): WorkerPool => new WorkerPool(fileURLToPath(workerFile), workers, { templates, site }, local);
  return startAfter > 0 ? new DeferredPool(start, workers, local, startAfter) : start();
}

/** One render job, done in whichever thread runs it. */
export function renderEvent(ctx: RenderContext, html: HtmlRenderer, site: SiteContext, cal: Calendar, event: FeedEvent, wants: EventWants): RenderedEvent {
  // An ended event never enters a feed again (a changed one is rendered again): no items for it.
  const items = wants.items && eventEndMs(ctx, event, cal.timeZone) > site.clock.now ? feedItems(ctx, event, cal.timeZone, site, html.text(site)) : '';
  return { vevent: veventText(ctx, event, site), items, ...(wants.page ? { page: html.event(ctx, cal, event, site) } : {}) };
}

/** One calendar's job in a worker: every piece of its pages rendered, to be moved to the main thread. */
export function renderCalendar(ctx: RenderContext, html: HtmlRenderer, shared: SiteContext, job: CalendarJob): EncodedPages {
  const { site, feeds, pages } = calendarRender(ctx, html, shared, job);
  // TextEncoder, not Buffer.from: each piece gets a buffer of its own, which can be moved.
  const encoder = new TextEncoder();
  const encode = (pieces: Iterable<string>): Uint8Array[] => Array.from(pieces, (piece) => encoder.encode(piece));
  const index = encode(pages.index);
  const past = encode(pages.past);
  // Read once every piece is rendered: what they all took from "now".
  return { ...feeds, index, past, widget: pages.widget, changesAt: site.clock.changesAt };
}

/** One calendar's job in this thread: its pages' pieces rendered as the writer takes them. */
function renderCalendarHere(ctx: RenderContext, html: HtmlRenderer, shared: SiteContext, job: CalendarJob): CalendarPages {
  const { site, feeds, pages } = calendarRender(ctx, html, shared, job);
  return {
    ...feeds,
    index: pages.index,
    past: pages.past,
    widget: pages.widget,
    // What the pieces take from "now" is known once they are rendered.
    get changesAt() {
      return site.clock.changesAt;
    },
  };
}

// A calendar's feeds, and its pages' views (the day lists rendered when iterated), from the spool.
function calendarRender(ctx: RenderContext, html: HtmlRenderer, shared: SiteContext, job: CalendarJob) {
  const site = ownClock(shared);
  const pages = html.calendarPieces(ctx, job.cal, spooledList(job.spool, job.list), site);
  const text = html.text(site);
  const items = withSpool(job.spool, (fd) => readItems(fdRead(fd), job.feed, (event) => feedItems(ctx, event, job.cal.timeZone, site, text)));
  const feeds = renderFeeds(ctx, job.cal, job.calendars, items, job.updated, site, text);
  return { site, feeds, pages };
}

/** Events in a list read from the spool file when asked, a part at a time, as ListEvents. */
function spooledList(file: string, list: Float64Array): EventSource {
  const count = list.length / 2;
  const read = (at: readonly number[]): ListEvent[] => {
    const pairs = new Float64Array(at.length * 2);
    at.forEach((i, k) => pairs.set(list.subarray(2 * i, 2 * i + 2), 2 * k));
    return withSpool(file, (fd) => readSpans(fdRead(fd), pairs, listEvent));
  };
  return {
    length: count,
    read,
    *[Symbol.iterator]() {
      for (let from = 0; from < count; from += SPOOL_PART) yield* read(Array.from({ length: Math.min(SPOOL_PART, count - from) }, (_, k) => from + k));
    },
  };
}

/** How many events one read of the spool takes when a list is read whole, in order. */
const SPOOL_PART = 1000;

function withSpool<T>(file: string, use: (fd: number) => T): T {
  const fd = openSync(file, 'r');
  try {
    return use(fd);
  } finally {
    closeSync(fd);
  }
}

function inThread(ctx: RenderContext, html: HtmlRenderer, site: SiteContext): PageRenderer {
  return {
    render: async (cal, event, wants) => renderEvent(ctx, html, site, cal, event, wants),
    calendar: async (job) => renderCalendarHere(ctx, html, site, job),
    stopThreads: async () => undefined,
    close: async () => undefined,
    threads: 0,
    maxThreads: 0,
  };
}

interface Pending {
  resolve: (value: RenderedEvent | CalendarPages) => void;
  reject: (error: Error) => void;
}

class WorkerPool implements PageRenderer {
  private readonly workers: Worker[] = [];
  private readonly load: number[] = [];
  /** Per worker, the jobs given this turn of the event loop (sent together at the next). */
  private readonly queued: PageJob[][] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private failure: Error | undefined;
  // Set by stopThreads(): renders go to `local` from then on.
  private stopped: Promise<void> | undefined;
  private whenIdle: (() => void) | undefined;
  // A terminated worker exits with code 1: that is no failure.
  private terminating = false;

  constructor(
    file: string,
    count: number,
    data: PageWorkerData,
    /** Renders in this thread, once the workers are stopped. */
    private readonly local: PageRenderer,
  ) {
    for (let i = 0; i < count; i++) {
      const worker = new Worker(file, { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
      // An idle worker must not keep a finished (or failed) build's process alive.
      worker.unref();
      worker.on('message', (replies: PageReply[]) => replies.forEach((reply) => this.settle(i, reply)));
      worker.on('error', (error) => this.fail(new CalfeedError('BUILD', `Rendering worker failed: ${error.message}`, { cause: error })));
      worker.on('exit', (code) => {
        if (code !== 0 && !this.terminating) this.fail(new CalfeedError('BUILD', `Rendering worker stopped unexpectedly (exit code ${code}).`));
      });
      this.workers.push(worker);
      this.load.push(0);
      this.queued.push([]);
    }
  }

  get threads(): number {
    return this.stopped ? 0 : this.workers.length;
  }

  get maxThreads(): number {
    return this.workers.length;
  }

  render(cal: Calendar, event: FeedEvent, wants: EventWants): Promise<RenderedEvent> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.stopped) return this.local.render(cal, event, wants);
    return this.send({ kind: 'event', id: this.nextId++, cal, event, wants }) as Promise<RenderedEvent>;
  }

  calendar(job: CalendarJob): Promise<CalendarPages> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.stopped) return this.local.calendar(job);
    return this.send({ kind: 'calendar', id: this.nextId++, job }) as Promise<CalendarPages>;
  }

  private send(job: PageJob): Promise<RenderedEvent | CalendarPages> {
    // The least busy worker, by jobs waiting: event jobs are small and alike, and a calendar's job
    // (one in hundreds) counts as one, so this keeps the workers about evenly loaded.
    let w = 0;
    for (let i = 1; i < this.load.length; i++) if (this.load[i]! < this.load[w]!) w = i;
    return new Promise((resolve, reject) => {
      this.pending.set(job.id, { resolve, reject });
      this.load[w]!++;
      if (this.pending.size === 1) this.workers.forEach((worker) => worker.ref());
      // A worker's jobs of this turn go as one message at the next: each message wakes the thread,
      // and on a busy machine each wake-up costs both threads their turn on a core.
      this.queued[w]!.push(job);
      if (this.queued[w]!.length === 1) setImmediate(() => this.workers[w]!.postMessage(this.queued[w]!.splice(0)));
    });
  }

  stopThreads(): Promise<void> {
    this.stopped ??= new Promise<void>((resolve) => {
      if (this.pending.size === 0) resolve();
      else this.whenIdle = resolve;
    }).then(() => this.terminate());
    return this.stopped;
  }

  async close(): Promise<void> {
    this.fail(new CalfeedError('BUILD', 'internal: rendering workers were closed with work pending'));
    await this.terminate();
  }

  // Terminating a worker twice (stopThreads, then close) is harmless.
  private async terminate(): Promise<void> {
    this.terminating = true;
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }

  private settle(worker: number, reply: PageReply): void {
    const job = this.pending.get(reply.id);
    if (!job) return;
    this.pending.delete(reply.id);
    this.load[worker]!--;
    if (this.pending.size === 0) {
      this.workers.forEach((w) => w.unref());
      this.idle();
    }
    if ('error' in reply) {
      const code = (reply.error.code ?? 'BUILD') as ErrorCode;
      job.reject(new CalfeedError(code, reply.error.message));
    } else if ('files' in reply) {
      job.resolve(reply.files);
    } else {
      job.resolve({ vevent: reply.vevent, items: reply.items, ...(reply.page !== undefined ? { page: reply.page } : {}) });
    }
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const job of this.pending.values()) job.reject(this.failure);
    this.pending.clear();
    this.idle();
  }

  private idle(): void {
    const resolve = this.whenIdle;
    this.whenIdle = undefined;
    resolve?.();
  }
}
