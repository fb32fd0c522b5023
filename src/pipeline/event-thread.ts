// An event's files (page, VEVENT, feed items) rendered in a thread of their own once a build has
// many to render: the main thread then answers the portal's responses sooner, which is what paces
// a crawl with latency (docs/performance.md). The main thread keeps every decision (what to render,
// what to keep, what to write); the thread only renders, from the same templates and settings, to
// the same bytes. It runs only from compiled code.

import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CalfeedError } from '../errors.js';
import type { Calendar, FeedEvent, SiteContext } from '../model.js';
import type { TemplateSources } from '../render/html/index.js';
import type { EventReply, EventBatch, EventThreadData } from './event-thread-entry.js';
import type { EventWants, PageRenderer, RenderedEvent } from './page-render.js';

/** Events rendered in this thread before the thread starts, when the cores decide (--threads unset). */
export const THREAD_AFTER = 500;

// The thread's garbage is one turn's events: a default young generation only adds peak memory.
const YOUNG_MB = 1;

interface Waiting {
  resolve: (rendered: RenderedEvent) => void;
  reject: (error: unknown) => void;
}

/** Renders events here, or in the thread once `after` have been rendered here (Infinity: never). */
export class EventRendering {
  private thread: EventThread | undefined;
  private count = 0;

  constructor(
    private readonly pages: PageRenderer,
    private readonly templates: TemplateSources,
    private readonly site: SiteContext,
    private readonly after: number,
    private readonly onStart: (renderedHere: number) => void = () => undefined,
  ) {}

  /** An event's VEVENT, and what it `wants` of its page and feed items (PageRenderer.render). */
  render(cal: Calendar, event: FeedEvent, eventJson: string, wants: EventWants): RenderedEvent | Promise<RenderedEvent> {
    if (this.thread === undefined && this.count >= this.after && import.meta.url.endsWith('.js')) {
      this.thread = new EventThread(this.templates, this.site);
      this.onStart(this.count);
    }
    this.count++;
    return this.thread ? this.thread.render(cal, eventJson, wants) : this.pages.render(cal, event, wants);
  }

  /** Stops the thread (once the crawl is over); events rendered after that are rendered here. */
  async stop(): Promise<void> {
    const thread = this.thread;
    this.thread = undefined;
    this.count = -Infinity;
    await thread?.stop();
  }
}

class EventThread {
  private readonly worker: Worker;
  // Each calendar is sent once, as JSON, and named by its number after that.
  private readonly calendarKeys = new WeakMap<Calendar, number>();
  private calendarCount = 0;
  private batch: EventBatch = { id: 0, calendars: [], events: [] };
  private waiting: Waiting[] = [];
  private readonly inFlight = new Map<number, Waiting[]>();
  private scheduled = false;
  private stopping = false;
  private failure: Error | undefined;

  constructor(templates: TemplateSources, site: SiteContext) {
    const { clock, ...settings } = site;
    const file = fileURLToPath(new URL('./event-thread-entry.js', import.meta.url));
    const workerData: EventThreadData = { templates, site: settings, now: clock.now };
    this.worker = new Worker(file, { workerData, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB } });
    // An idle thread must not keep a finished (or failed) build's process alive.
    this.worker.unref();
    this.worker.on('message', (reply: EventReply) => this.settle(reply));
    this.worker.on('error', (error) => this.fail(new CalfeedError('BUILD', `The event rendering thread failed: ${error.message}`, { cause: error })));
    this.worker.on('exit', (code) => {
      if (!this.stopping) this.fail(new CalfeedError('BUILD', `The event rendering thread stopped unexpectedly (exit code ${code}).`));
    });
  }

  render(cal: Calendar, eventJson: string, wants: EventWants): Promise<RenderedEvent> {
    if (this.failure) return Promise.reject(this.failure);
    let key = this.calendarKeys.get(cal);
    if (key === undefined) {
      key = this.calendarCount++;
      this.calendarKeys.set(cal, key);
      this.batch.calendars.push([key, JSON.stringify(cal)]);
    }
    this.batch.events.push([key, eventJson, wants.page, wants.items]);
    const rendered = new Promise<RenderedEvent>((resolve, reject) => this.waiting.push({ resolve, reject }));
    // One message a turn: the events the crawl delivered in it.
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.send());
    }
    return rendered;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.worker.terminate();
    this.fail(new CalfeedError('BUILD', 'The event rendering thread was stopped with events still to render.'));
  }

  private send(): void {
    this.scheduled = false;
    const batch = this.batch;
    if (batch.events.length === 0 || this.failure) return;
    if (this.inFlight.size === 0) this.worker.ref();
    this.inFlight.set(batch.id, this.waiting);
    this.waiting = [];
    this.batch = { id: batch.id + 1, calendars: [], events: [] };
    this.worker.postMessage(batch);
  }

  private settle(reply: EventReply): void {
    const waiting = this.inFlight.get(reply.id);
    if (!waiting) return;
    this.inFlight.delete(reply.id);
    if (this.inFlight.size === 0) this.worker.unref();
    const pages = new Uint8Array(reply.pages);
    let at = 0;
    reply.events.forEach(([pageBytes, vevent, items], i) => {
      const page = pageBytes < 0 ? undefined : pages.subarray(at, (at += pageBytes));
      waiting[i]!.resolve({ vevent, items, ...(page ? { page } : {}) });
    });
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const list of this.inFlight.values()) for (const { reject } of list) reject(this.failure);
    this.inFlight.clear();
    for (const { reject } of this.waiting.splice(0)) reject(this.failure);
  }
}
