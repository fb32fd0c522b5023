// The crawl: the calendar list, then every calendar's event list and every event's details through
// one bounded queue. Documents go to the sink as they arrive; failures are fatal (a list, a rejected
// token, an interruption) or tolerable (one event's details).

import { CalfeedError, interrupted } from '../errors.js';
import type { PortalClient } from '../http/client.js';
import type { FieldsConfig } from '../normalize/index.js';
import { paths } from '../paths.js';
import { eventKey, type CrawlCache } from './cache.js';
import { apiPaths } from './api-paths.js';
import { detailsKey, fetchDetails, type DetailsDoc } from './details.js';
import { decideReuse, type EventNow, type Reuse, type StoredEvent } from './reuse.js';
import { calendarRefs, duplicatesWarning, listedEvents, type CalendarRef, type ListedEvent } from './listed.js';
import { fetchList, type ListContext, type ListDoc } from './list.js';
import type { PagingConfig } from './paging.js';
import type { ListRecord, ProbeResult } from './probe.js';
import { Handoff, TaskGroup, WorkQueue, type Task } from './queue.js';

export interface CrawlOptions {
  fields?: FieldsConfig;
  paging: PagingConfig;
  maxCalendars: number;
  maxEventsPerCalendar: number;
  /** Ratio (0.05 = 5%): more failed details than this fails the build. */
  maxFailedDetails: number;
  /** Details of an unchanged list entry checked more recently than this are not requested. */
  detailsMaxAgeMs: number;
  now: number;
  signal?: AbortSignal;
  /** Calendar id -> the folder it was published in (history), so that folders never move. */
  calendarSegments?: ReadonlyMap<string, string>;
  /** What probeLists found before the crawl (those requests are not made again). */
  probe?: Pick<ProbeResult, 'confirmed' | 'firstPages' | 'failing'>;
}

export interface CrawlSink {
  /** Bytes previously published at an output (mirror) path, or undefined. */
  published(relPath: string): Promise<Buffer | undefined>;
  /** segments: raw calendar id -> safe segment. */
  onCalendars(doc: ListDoc, segments: Map<string, string>): Promise<void>;
  /** Before any of the calendar's events: each listed id once, with its first entry and path segment. */
  onEvents(calendarId: string, doc: ListDoc, events: ReadonlyMap<string, ListedEvent>): Promise<void>;
  /** Whether the last build's row of an event can be taken (StoredEvent.row); asked only when its details stand. */
  hasStoredRow(calendarId: string, eventId: string): Promise<boolean>;
  /** Each listed event gets exactly one of these three: its row taken, its details, or their failure. */
  onStored(calendarId: string, eventId: string): Promise<void>;
  onDetails(calendarId: string, eventId: string, doc: DetailsDoc): Promise<void>;
  onDetailsFailed(calendarId: string, eventId: string, error: Error): void | Promise<void>;
  /** Exactly once per listed calendar, empty ones included, after the last of its events' calls above has finished. */
  onCalendar(result: CalendarResult): Promise<void>;
  onProgress?(p: CrawlProgress): void;
  /** Something odd but survivable (a paging loop); also listed in the report. */
  onWarning?(message: string): void;
}

/** A calendar whose events are all in. */
export interface CalendarResult {
  calendarId: string;
  /** The events its list names (each id once). */
  events: number;
  /** Of those, how many were taken from the last build's rows (decideReuse answered 'row'). */
  stored: number;
  /** Its event list was unchanged (a 304, or the same bytes): with every event stored, it was taken whole. */
  listUnchanged: boolean;
}

export interface CrawlProgress {
  calendarsTotal: number;
  calendarsDone: number;
  eventsTotal: number;
  detailsDone: number;
  requests: number;
}

/** An event whose details could not be read (it is published from its list entry), and why. */
export interface DetailsFailure {
  calendarId: string;
  eventId: string;
  message: string;
}

export interface CrawlReport {
  calendars: number;
  events: number;
  detailsFetched: number;
  detailsNotModified: number;
  detailsReused: number;
  detailsFailed: DetailsFailure[];
  listsNotModified: number;
  pages: number;
  warnings: string[];
  /** The calendar list, then each calendar's event list, as recorded in the cache (what probeLists asks about next time). */
  lists: ListRecord[];
}

/** Crawls the whole portal into the sink; throws a CalfeedError when the build must fail. */
export async function crawl(client: PortalClient, cache: CrawlCache, opts: CrawlOptions, sink: CrawlSink): Promise<CrawlReport> {
  const crawler = new Crawler(client, cache, opts, sink);
  const failure = await crawler.run().then(() => undefined, (error: unknown) => ({ error }));
  if (opts.signal?.aborted) throw interrupted();
  if (failure) throw failure.error;
  checkFailureRatio(crawler.report, opts.maxFailedDetails);
  return crawler.report;
}

/**
 * One crawl: each calendar's event list is a task, which enqueues its details once the sink has its
 * events. A calendar's events are one TaskGroup, calling sink.onCalendar once, empty calendars too.
 */
class Crawler {
  readonly report: CrawlReport = {
    calendars: 0,
    events: 0,
    detailsFetched: 0,
    detailsNotModified: 0,
    detailsReused: 0,
    detailsFailed: [],
    listsNotModified: 0,
    pages: 0,
    warnings: [],
    lists: [],
  };
  private readonly progress: CrawlProgress = { calendarsTotal: 0, calendarsDone: 0, eventsTotal: 0, detailsDone: 0, requests: 0 };
  private readonly stop = new AbortController();
  private readonly ctx: ListContext;
  private readonly queue: WorkQueue;
  // A details body goes on to the sink while its connection takes the next request (up to a bound).
  private readonly handoff: Handoff;
  // Details the up-to-date check found still failing moments ago: the same failure, not asked again.
  private readonly failing: ReadonlyMap<string, string>;

  constructor(
    private readonly client: PortalClient,
    private readonly cache: CrawlCache,
    private readonly opts: CrawlOptions,
    private readonly sink: CrawlSink,
  ) {
    const signal = opts.signal ? AbortSignal.any([opts.signal, this.stop.signal]) : this.stop.signal;
    this.ctx = {
      client,
      cache,
      paging: opts.paging,
      fields: opts.fields,
      signal,
      published: (p) => sink.published(p),
      probe: opts.probe,
      warn: (message) => {
        this.report.warnings.push(message);
        sink.onWarning?.(message);
      },
    };
    this.failing = new Map((opts.probe?.failing ?? []).map((f) => [eventKey(f.calendarId, f.eventId), f.message]));
    this.queue = new WorkQueue(client.concurrency, () => this.stop.abort());
    this.handoff = new Handoff(
      Math.max(16, client.concurrency * 4),
      (error) => this.queue.fail(error),
      () => client.unsentRequests > 0,
    );
  }

  async run(): Promise<void> {
    const { opts, report } = this;
    const calendarsDoc = await fetchList(this.ctx, {
      path: apiPaths.calendars(),
      mirrorPath: paths.calendarsMirror(),
      kind: 'calendars',
      maxItems: opts.maxCalendars,
      limitFlag: '--max-calendars',
    });
    count(report, calendarsDoc, paths.calendarsMirror());
    const calendars = calendarRefs(calendarsDoc.entries.toArray(), opts.fields, opts.calendarSegments);
    await this.sink.onCalendars(calendarsDoc, new Map(calendars.map((c) => [c.id, c.segment])));
    report.calendars = this.progress.calendarsTotal = calendars.length;
    this.tick();

    const onAbort = (): void => this.queue.fail(interrupted());
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    this.queue.add(this.listTasks(calendars), 'later');
    try {
      await this.queue.run();
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      // Even when the crawl failed: nothing may still be writing once the caller cleans up.
      await this.handoff.drain().catch(() => undefined);
    }
    await this.handoff.drain();
  }

  private tick(): void {
    this.sink.onProgress?.({ ...this.progress, requests: this.client.stats.requests });
  }

  // An event list's task enqueues that calendar's details only after onEvents, which keeps the order promise.
  private *listTasks(calendars: readonly CalendarRef[]): Generator<Task> {
    for (const calendar of calendars) {
      yield async () => {
        const details = await this.crawlCalendar(calendar);
        this.progress.calendarsDone++;
        this.tick();
        this.queue.add(details, 'first');
      };
    }
  }

  private async crawlCalendar(calendar: CalendarRef): Promise<Iterable<Task>> {
    const { opts, report, sink } = this;
    let doc: ListDoc;
    try {
      doc = await fetchList(this.ctx, {
        path: apiPaths.events(calendar.id),
        mirrorPath: paths.eventsMirror(calendar.segment),
        kind: 'events',
        maxItems: opts.maxEventsPerCalendar,
        limitFlag: '--max-events',
      });
    } catch (error) {
      throw forCalendar(calendar, error);
    }
    count(report, doc, paths.eventsMirror(calendar.segment));
    const listed = listedEvents(doc.entries, opts.fields, (ids) => this.ctx.warn(duplicatesWarning(calendar, ids)));
    await sink.onEvents(calendar.id, doc, listed);
    report.events += listed.size;
    this.progress.eventsTotal += listed.size;
    const result: CalendarResult = { calendarId: calendar.id, events: listed.size, stored: 0, listUnchanged: doc.source === 'not-modified' };
    const group = new TaskGroup(listed.size, () => sink.onCalendar(result));
    // Each event's reuse decided here, the rows taken at once; what needs the portal, later.
    const reuses = new Uint8Array(listed.size);
    let i = 0;
    for (const [eventId, event] of listed) {
      const { stored, known } = this.facts(calendar, eventId, event);
      let reuse = decideReuse(stored, known);
      if (reuse === 'mirror' && (await sink.hasStoredRow(calendar.id, eventId))) reuse = decideReuse({ ...stored, row: true }, known);
      reuses[i++] = REUSES.indexOf(reuse);
      if (reuse !== 'row') continue;
      this.cache.recordEvent(calendar.id, eventId, stored.checked!);
      this.cache.recordDoc(paths.detailsMirror(calendar.segment, event.segment), stored.details!);
      report.detailsReused++;
      result.stored++;
      await this.deliver(() => sink.onStored(calendar.id, eventId), group);
    }
    await group.settle();
    return this.detailTasks(calendar, listed, reuses, group);
  }

  // What the store holds of an event, and what this build knows of it (decideReuse's inputs).
  private facts(calendar: CalendarRef, eventId: string, { hash, segment }: ListedEvent): { mirrorPath: string; stored: StoredEvent; known: EventNow } {
    const mirrorPath = paths.detailsMirror(calendar.segment, segment);
    const known: EventNow = { entry: hash, url: detailsKey(this.client, calendar.id, eventId), now: this.opts.now, maxAgeMs: this.opts.detailsMaxAgeMs };
    const stored: StoredEvent = { checked: this.cache.previousEvent(calendar.id, eventId), details: this.cache.previousDoc(mirrorPath), row: false };
    return { mirrorPath, stored, known };
  }

  // The details of each event not taken from its row (or their failure) to the sink.
  private *detailTasks(calendar: CalendarRef, listed: ReadonlyMap<string, ListedEvent>, reuses: Uint8Array, group: TaskGroup): Generator<Task> {
    let i = 0;
    for (const [eventId, event] of listed) {
      const reuse = REUSES[reuses[i++]!]!;
      if (reuse !== 'row') yield () => this.details(calendar, eventId, event, reuse, group);
    }
  }

  private async details(calendar: CalendarRef, eventId: string, event: ListedEvent, reuse: Exclude<Reuse, 'row'>, group: TaskGroup): Promise<void> {
    const { report, sink } = this;
    const { mirrorPath, stored, known } = this.facts(calendar, eventId, event);
    const failing = this.failing.get(eventKey(calendar.id, eventId));
    if (failing !== undefined) return this.failed(calendar, eventId, new Error(failing), group);
    let doc: DetailsDoc;
    try {
      doc = await fetchDetails(this.ctx, { calendarId: calendar.id, eventId, mirrorPath, stored, known, reuse });
    } catch (error) {
      if (isFatal(error)) throw error;
      return this.failed(calendar, eventId, error as CalfeedError, group);
    }
    if (doc.source === 'fetched') report.detailsFetched++;
    else if (doc.source === 'not-modified') report.detailsNotModified++;
    else report.detailsReused++;
    await this.deliver(() => sink.onDetails(calendar.id, eventId, doc), group);
  }

  // An event whose details could not be read: reported, and published from its list entry.
  private async failed(calendar: CalendarRef, eventId: string, failure: Error, group: TaskGroup): Promise<void> {
    this.report.detailsFailed.push({ calendarId: calendar.id, eventId, message: failure.message });
    await this.deliver(() => this.sink.onDetailsFailed(calendar.id, eventId, failure), group);
  }

  // One event to the sink, counted (and settled in its calendar's group) once the sink has it.
  private deliver(toSink: () => void | Promise<void>, group: TaskGroup): Promise<void> {
    return this.handoff.hand(async () => {
      await toSink();
      this.progress.detailsDone++;
      this.tick();
      await group.settle();
    });
  }
}

function count(report: CrawlReport, doc: ListDoc, mirrorPath: string): void {
  report.pages += doc.pages;
  report.lists.push({ mirrorPath, entry: doc.entry });
  if (doc.source === 'not-modified') report.listsNotModified++;
}

// A calendar's decisions are kept a byte each between deciding and asking the portal.
const REUSES: readonly Reuse[] = ['row', 'mirror', 'revalidate', 'fetch'];

/** Prefixes an event-list failure with the calendar it belongs to, keeping its code. */
function forCalendar(calendar: CalendarRef, error: unknown): unknown {
  if (!(error instanceof CalfeedError) || error.code === 'INTERRUPTED') return error;
  const title = calendar.title ? ` (${calendar.title})` : '';
  return new CalfeedError(error.code, `Calendar "${calendar.id}"${title}: ${error.message}`, { cause: error });
}

/** Errors that end the crawl even when they come from one event's details (a bug is not a portal failure). */
export function isFatal(error: unknown): boolean {
  return !(error instanceof CalfeedError) || error.code === 'AUTH' || error.code === 'INTERRUPTED';
}

function checkFailureRatio(report: CrawlReport, maxRatio: number): void {
  const failed = report.detailsFailed.length;
  if (failed === 0 || failed / report.events <= maxRatio) return;
  const pct = (r: number): string => `${Math.round(r * 1000) / 10}%`;
  const sample = report.detailsFailed
    .slice(0, 5)
    .map((f) => `\n  - calendar "${f.calendarId}", event "${f.eventId}": ${f.message}`)
    .join('');
  const more = failed > 5 ? `\n  - ... and ${failed - 5} more` : '';
  throw new CalfeedError(
    'BUILD',
    `${failed} of ${report.events} event details failed (${pct(failed / report.events)}), more than ` +
      `--max-failed-details allows (${pct(maxRatio)}). Nothing was published. First failures:${sample}${more}`,
  );
}
