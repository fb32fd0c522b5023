// The crawl: the calendar list, then every calendar's event list and every event's details through
// one bounded queue. Documents go to the sink as they arrive (nothing here holds every body), the
// cache decides which requests can be conditional or skipped, and failures are sorted into fatal
// (calendar list, an event list, a rejected token, an interruption) and tolerable (one event's details).

import { CalfeedError } from '../errors.js';
import type { PortalClient } from '../http/client.js';
import { rawId, type FieldsConfig } from '../normalize/index.js';
import { assignSegments, paths } from '../paths.js';
import { entryHash, type CrawlCache } from './cache.js';
import { apiPaths } from './api-paths.js';
import { detailsKey, fetchDetails } from './details.js';
import { decideReuse, type EventNow, type Reuse, type StoredEvent } from './reuse.js';
import type { ListEntries } from '../http/json-list.js';
import { fetchList, type DocSource, type ListContext, type ListDoc } from './list.js';
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
  probe?: Pick<ProbeResult, 'confirmed' | 'firstPages'>;
}

export interface CrawlSink {
  /** Bytes previously published at an output (mirror) path, or undefined. */
  published(relPath: string): Promise<Buffer | undefined>;
  /** segments: raw calendar id -> safe segment. */
  onCalendars(doc: ListDoc, segments: Map<string, string>): Promise<void>;
  /**
   * Called before any of that calendar's events, with the events it lists: each id once, with its
   * first list entry (the one whose details are asked for) and its path segment.
   */
  onEvents(calendarId: string, doc: ListDoc, events: ReadonlyMap<string, ListedEvent>): Promise<void>;
  /** Whether the last build's row of an event can be taken (StoredEvent.row); asked only when its details stand. */
  hasStoredRow(calendarId: string, eventId: string): Promise<boolean>;
  /** Each listed event gets exactly one of these three: its row taken, its details, or their failure. */
  onStored(calendarId: string, eventId: string): Promise<void>;
  onDetails(calendarId: string, eventId: string, doc: { bytes: Buffer; json: unknown; source: DocSource }): Promise<void>;
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

/** One event of a calendar's list: the entry that counts for its id (the first), and its path segment. */
export interface ListedEvent {
  /** Its entry's place in the list's entries (ListDoc.entries). */
  index: number;
  /** Hash of the entry, what the cache keys the freshness of its details on. */
  hash: string;
  segment: string;
}

interface CalendarRef {
  id: string;
  segment: string;
  title: string | undefined;
}

/** Crawls the whole portal into the sink; throws a CalfeedError when the build must fail. */
export async function crawl(client: PortalClient, cache: CrawlCache, opts: CrawlOptions, sink: CrawlSink): Promise<CrawlReport> {
  const stop = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
  const report: CrawlReport = {
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
  const progress: CrawlProgress = { calendarsTotal: 0, calendarsDone: 0, eventsTotal: 0, detailsDone: 0, requests: 0 };
  const tick = (): void => sink.onProgress?.({ ...progress, requests: client.stats.requests });
  const ctx: ListContext = {
    client,
    cache,
    paging: opts.paging,
    fields: opts.fields,
    signal,
    published: (p) => sink.published(p),
    probe: opts.probe,
    warn: (message) => {
      report.warnings.push(message);
      sink.onWarning?.(message);
    },
  };

  try {
    const calendarsDoc = await fetchList(ctx, {
      path: apiPaths.calendars(),
      mirrorPath: paths.calendarsMirror(),
      kind: 'calendars',
      maxItems: opts.maxCalendars,
      limitFlag: '--max-calendars',
    });
    count(report, calendarsDoc, paths.calendarsMirror());
    const calendars = calendarRefs(calendarsDoc.entries.toArray(), opts.fields, opts.calendarSegments);
    await sink.onCalendars(calendarsDoc, new Map(calendars.map((c) => [c.id, c.segment])));
    report.calendars = progress.calendarsTotal = calendars.length;
    tick();

    const queue = new WorkQueue(client.concurrency, () => stop.abort());
    // A details body goes on to the sink while its connection takes the next request: the network
    // sets the pace, not the time the sink takes (normalize, render, write), up to this many bodies.
    const handoff = new Handoff(Math.max(16, client.concurrency * 4), (error) => queue.fail(error));
    // One event to the sink, counted (and settled in its calendar's group) once the sink has it.
    const deliver = (toSink: () => void | Promise<void>, group: TaskGroup): Promise<void> =>
      handoff.hand(async () => {
        await toSink();
        progress.detailsDone++;
        tick();
        await group.settle();
      });
    const onAbort = (): void => queue.fail(interrupted());
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    // An event list's task enqueues that calendar's details only after onEvents, which keeps the order promise.
    const listTasks = function* (): Generator<Task> {
      for (const calendar of calendars) {
        yield async () => {
          const details = await crawlCalendar(calendar);
          progress.calendarsDone++;
          tick();
          queue.add(details, 'first');
        };
      }
    };
    const crawlCalendar = async (calendar: CalendarRef): Promise<Iterable<Task>> => {
      let doc: ListDoc;
      try {
        doc = await fetchList(ctx, {
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
      const listed = listedEvents(doc.entries, opts.fields, (ids) => ctx.warn(duplicatesWarning(calendar, ids)));
      await sink.onEvents(calendar.id, doc, listed);
      report.events += listed.size;
      progress.eventsTotal += listed.size;
      const result: CalendarResult = { calendarId: calendar.id, events: listed.size, stored: 0, listUnchanged: doc.source === 'not-modified' };
      const group = new TaskGroup(listed.size, () => sink.onCalendar(result));
      // Each event's reuse decided here, the rows taken at once; what needs the portal, later.
      const reuses = new Uint8Array(listed.size);
      let i = 0;
      for (const [eventId, event] of listed) {
        const { stored, known } = facts(calendar, eventId, event);
        let reuse = decideReuse(stored, known);
        if (reuse === 'mirror' && (await sink.hasStoredRow(calendar.id, eventId))) reuse = decideReuse({ ...stored, row: true }, known);
        reuses[i++] = REUSES.indexOf(reuse);
        if (reuse !== 'row') continue;
        cache.recordEvent(calendar.id, eventId, stored.checked!);
        cache.recordDoc(paths.detailsMirror(calendar.segment, event.segment), stored.details!);
        report.detailsReused++;
        result.stored++;
        await deliver(() => sink.onStored(calendar.id, eventId), group);
      }
      await group.settle();
      return detailTasks(calendar, listed, reuses, group);
    };
    // What the store holds of an event, and what this build knows of it (decideReuse's inputs).
    const facts = (calendar: CalendarRef, eventId: string, { hash, segment }: ListedEvent) => {
      const mirrorPath = paths.detailsMirror(calendar.segment, segment);
      const known: EventNow = { entry: hash, url: detailsKey(client, calendar.id, eventId), now: opts.now, maxAgeMs: opts.detailsMaxAgeMs };
      const stored: StoredEvent = { checked: cache.previousEvent(calendar.id, eventId), details: cache.previousDoc(mirrorPath), row: false };
      return { mirrorPath, stored, known };
    };
    // The details of each event not taken from its row (or their failure) to the sink.
    const detailTasks = function* (calendar: CalendarRef, listed: ReadonlyMap<string, ListedEvent>, reuses: Uint8Array, group: TaskGroup): Generator<Task> {
      let i = 0;
      for (const [eventId, event] of listed) {
        const reuse = REUSES[reuses[i++]!]!;
        if (reuse === 'row') continue;
        yield async () => {
          const { mirrorPath, stored, known } = facts(calendar, eventId, event);
          let doc: Awaited<ReturnType<typeof fetchDetails>>;
          try {
            doc = await fetchDetails(ctx, { calendarId: calendar.id, eventId, mirrorPath, stored, known, reuse });
          } catch (error) {
            if (isFatal(error)) throw error;
            const failure = error as CalfeedError;
            report.detailsFailed.push({ calendarId: calendar.id, eventId, message: failure.message });
            await deliver(() => sink.onDetailsFailed(calendar.id, eventId, failure), group);
            return;
          }
          if (doc.source === 'fetched') report.detailsFetched++;
          else if (doc.source === 'not-modified') report.detailsNotModified++;
          else report.detailsReused++;
          await deliver(() => sink.onDetails(calendar.id, eventId, doc), group);
        };
      }
    };
    queue.add(listTasks(), 'later');
    try {
      await queue.run();
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      // Even when the crawl failed: nothing may still be writing once the caller cleans up.
      await handoff.drain().catch(() => undefined);
    }
    await handoff.drain();
  } catch (error) {
    if (opts.signal?.aborted) throw interrupted();
    throw error;
  }
  if (opts.signal?.aborted) throw interrupted();
  checkFailureRatio(report, opts.maxFailedDetails);
  return report;
}

function count(report: CrawlReport, doc: ListDoc, mirrorPath: string): void {
  report.pages += doc.pages;
  report.lists.push({ mirrorPath, entry: doc.entry });
  if (doc.source === 'not-modified') report.listsNotModified++;
}

/** A calendar's listed events by id, the first entry of each id winning; `onDuplicates` hears of the rest. */
function listedEvents(entries: ListEntries, fields: FieldsConfig | undefined, onDuplicates: (ids: string[]) => void): Map<string, ListedEvent> {
  // Each entry is parsed here for its id and hash, and again when its details arrive: never all at once.
  const listed = new Map<string, ListedEvent>();
  const duplicates = new Set<string>();
  for (let index = 0; index < entries.length; index++) {
    const entry = entries.at(index);
    const id = rawId(entry, 'event', fields);
    if (id === undefined) continue;
    if (listed.has(id)) duplicates.add(id);
    else listed.set(id, { index, hash: entryHash(entry), segment: '' });
  }
  if (duplicates.size > 0) onDuplicates([...duplicates]);
  const segments = assignSegments(listed.keys());
  for (const [id, event] of listed) event.segment = segments.get(id)!;
  return listed;
}

function duplicatesWarning(calendar: CalendarRef, ids: string[]): string {
  const shown = ids.slice(0, 5).map((id) => JSON.stringify(id)).join(', ');
  const more = ids.length > 5 ? ` and ${ids.length - 5} more` : '';
  return `Calendar "${calendar.id}" lists ${ids.length === 1 ? 'an event id' : `${ids.length} event ids`} more than once (${shown}${more}); the first entry of each is used.`;
}

// A calendar's decisions are kept a byte each between deciding and asking the portal.
const REUSES: readonly Reuse[] = ['row', 'mirror', 'revalidate', 'fetch'];

function calendarRefs(items: unknown[], fields: FieldsConfig | undefined, published: ReadonlyMap<string, string> | undefined): CalendarRef[] {
  const byId = new Map<string, unknown>();
  for (const item of items) {
    const id = rawId(item, 'calendar', fields);
    if (id !== undefined && !byId.has(id)) byId.set(id, item);
  }
  const segments = assignSegments(byId.keys(), published);
  return [...byId].map(([id, item]) => ({ id, segment: segments.get(id)!, title: guessTitle(item) }));
}

/** A calendar's title for error messages only (the normalizer owns real field detection). */
function guessTitle(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  for (const [key, value] of Object.entries(item)) {
    if (/^(title|name|label|summary)$/i.test(key)) {
      if (typeof value === 'string' && value.trim()) return value.trim();
      if (typeof value === 'object' && value !== null) {
        const text = Object.values(value).find((v): v is string => typeof v === 'string' && v.trim() !== '');
        if (text) return text.trim();
      }
    }
  }
  return undefined;
}

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

function interrupted(): CalfeedError {
  return new CalfeedError('INTERRUPTED', 'Interrupted: the build was stopped before it finished; nothing was published.');
}
