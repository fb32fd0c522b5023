// Where a build's events come from: a crawl of the portal, through the Collector.

import type { Calendar } from '../model.js';
import { crawl, type CrawlCache, type CrawlProgress, type CrawlReport, type DetailsFailure, type ListRecord, type ProbeResult } from '../crawl/index.js';
import type { PortalClient } from '../http/index.js';
import type { NormalizeOptions } from '../normalize/index.js';
import type { Staging } from '../publish/index.js';
import type { RenderContext } from '../render/context.js';
import type { CalendarNotes, SavedEvents } from '../state/build-store.js';
import type { HistoryTracker } from '../state/history.js';
import type { SiteContext } from '../model.js';
import type { BuildRun } from './build.js';
import { Collector } from './collect.js';
import type { EventFiles } from './event-files.js';
import { formatProgress } from './progress.js';
import type { EventRef, EventSpool } from './spool.js';

// Failed details the next build asks about first (a request each); past this, it reads everything.
const MAX_FAILED_RECORDED = 500;
export const recordsFailures = (report: CrawlReport): boolean => report.detailsFailed.length <= MAX_FAILED_RECORDED;

/** A calendar's spooled events: a RefList from the crawl, an array from the saved spool. */
export type SpooledRefs = Iterable<EventRef> & { readonly length: number; at(i: number): EventRef | undefined };

/** What a build renders from: the calendars, their events as spooled, and what the crawl found. */
export interface Gathered {
  calendars: Calendar[];
  events: ReadonlyMap<string, SpooledRefs>;
  report: CrawlReport;
  /** The lists the events came from, as the cache recorded them. */
  lists: ListRecord[];
  /** From when some event's details are due for a check (Infinity: never). */
  detailsDueAt: number;
  /** How many events were taken from the last build's rows, and how many calendars whole (CalendarResult). */
  reusedEvents: number;
  wholeCalendars: number;
  /** What reading each calendar's events gave besides the events (warnings, unreadable events). */
  notes: ReadonlyMap<string, CalendarNotes>;
  /** How many listed events could not be read. */
  unreadable: number;
}

export interface CrawlRun {
  run: BuildRun;
  client: PortalClient;
  cache: CrawlCache;
  staging: Staging;
  site: SiteContext;
  ctx: RenderContext;
  tracker: HistoryTracker;
  eventFiles: EventFiles;
  spool: EventSpool;
  /** The last build's events, whose rows stand for unchanged events (Collector.hasStoredRow). */
  lastSpool: SavedEvents | undefined;
  probe: ProbeResult | undefined;
  /** Calendar id -> the folder it was published in (history). */
  calendarSegments: ReadonlyMap<string, string>;
  started: number;
  /** A calendar's events are all in (see Collector); `calendars` is the whole calendar list. */
  onCalendarDone: (calendars: Calendar[], calendar: Calendar, events: SpooledRefs) => Promise<void>;
}

/** Crawl the portal: mirrors to staging, each event normalized, joined with its history, its files written and spooled. */
export async function crawlPortal(c: CrawlRun): Promise<Gathered> {
  const { config } = c.run.loaded;
  const { log, now, signal } = c.run;
  const normalize: NormalizeOptions = { timeZone: c.site.timeZone, locales: config.locales, fields: config.fields, maxFieldLength: config.maxFieldLength };
  const collector: Collector = new Collector(c.staging, normalize, c.site, c.ctx, log, c.tracker, c.eventFiles, c.spool, c.lastSpool, (calendar, events) =>
    c.onCalendarDone(collector.calendars, calendar, events),
  );
  const report: CrawlReport = await crawl(
    c.client,
    c.cache,
    {
      fields: config.fields,
      paging: config.paging,
      maxCalendars: config.maxCalendars,
      maxEventsPerCalendar: config.maxEvents,
      maxFailedDetails: config.maxFailedDetails,
      detailsMaxAgeMs: config.detailsMaxAgeMs,
      now,
      signal,
      probe: c.probe,
      calendarSegments: c.calendarSegments,
    },
    Object.assign(collector, {
      onProgress: (p: CrawlProgress) => log.progress(() => formatProgress(p, performance.now() - c.started, log.interactive)),
    }),
  );
  signal?.throwIfAborted();
  collector.checkUnreadable(config.maxFailedDetails);
  if (collector.reusedEvents > 0) {
    log.info(
      `${collector.reusedEvents} of ${report.events} events unchanged at the portal, taken from the last build as they were ` +
        `(${collector.wholeCalendars} of ${collector.calendars.length} calendars whole).`,
    );
  }
  return {
    calendars: collector.calendars,
    events: collector.events(),
    report,
    lists: report.lists,
    detailsDueAt: recordsFailures(report) ? c.cache.oldestCheck + config.detailsMaxAgeMs : now,
    reusedEvents: collector.reusedEvents,
    wholeCalendars: collector.wholeCalendars,
    notes: collector.notes(),
    unreadable: collector.unreadable.length,
  };
}

/** The crawl report of a build that found every list unchanged and requested no details. */
export function unchangedReport(calendars: number, events: number, lists: ListRecord[], failures: DetailsFailure[]): CrawlReport {
  return {
    calendars,
    events,
    detailsFetched: 0,
    detailsNotModified: 0,
    detailsReused: events - failures.length,
    detailsFailed: failures,
    listsNotModified: lists.length,
    pages: lists.reduce((n, l) => n + l.entry.pages.length, 0),
    warnings: [],
    lists,
  };
}
