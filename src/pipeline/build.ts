// The pipeline, start to finish: config -> crawl -> normalize -> history -> render -> verify ->
// publish. Everything is staged beside --out and published in one step at the end, so whatever
// fails on the way, --out stays exactly as it was. Before the crawl, a check against the record of
// the last build (up-to-date.ts) may end the build early, when nothing changed, or replace the
// crawl with the events the last build saved (the build store), when only "now" moved.

import type { LoadedConfig } from '../config/load.js';
import { siteContext } from './site-context.js';
import { crawl, type CrawlCache, type CrawlProgress, type CrawlReport, type DetailsFailure, type ListRecord, type ProbeResult } from '../crawl/index.js';
import { CalfeedError } from '../errors.js';
import { PortalClient } from '../http/index.js';
import type { Logger } from '../log.js';
import type { Calendar, FeedEvent, SiteContext } from '../model.js';
import type { NormalizeOptions } from '../normalize/index.js';
import { paths } from '../paths.js';
import {
  acquireLock,
  outputFolder,
  createStaging,
  discard,
  publish,
  PublishedManifest,
  recover,
  isSiteMeta,
  writeSearchIndexes,
  writeSiteMeta,
  shrinkReason,
  type PublishResult,
  type Staging,
} from '../publish/index.js';
import { createRenderContext, type RenderContext } from '../render/context.js';
import { loadHtmlRenderer } from '../render/html/index.js';
import { HistoryTracker } from '../state/history.js';
import { MAX_RECORDED_WARNINGS, type LastBuild } from '../state/last-build.js';
import { BuildStore, headerLine, prepareStore, storeTail, type CalendarNotes, type PreparedStore, type SavedEvents } from '../state/build-store.js';
import { settleCalendars } from '../state/calendars.js';
import { VERSION } from '../version.js';
import { CalendarFiles } from './calendar-files.js';
import { Collector } from './collect.js';
import { EventFiles } from './event-files.js';
import { httpOptions, withPortalSource, type PortalSource } from './source.js';
import { formatProgress } from './progress.js';
import { CALENDAR_FILES, SiteRenderer } from './render-site.js';
import { EventSpool, type EventRef } from './spool.js';
import { createPageRenderer, type PageRenderer } from './page-pool.js';
import { toSummary, type BuildSummary } from './summary.js';
import { buildInputs, checkUpToDate } from './up-to-date.js';
import { siteWarnings } from './placeless.js';
import { manifestSha256 } from '../publish/intact.js';

const DAY_MS = 86_400_000;
// Failed details a build records for the next one to ask about again before anything else; each
// costs the up-to-date check one request. More than this, and the next build reads everything.
const MAX_FAILED_RECORDED = 500;
const recordsFailures = (report: CrawlReport): boolean => report.detailsFailed.length <= MAX_FAILED_RECORDED;

export interface BuildRun {
  loaded: LoadedConfig;
  log: Logger;
  /** "Now" for this build (the only clock read, done by the caller). */
  now: number;
  /** Stops the build until its commit step begins; from then on it is not cancelled. */
  signal?: AbortSignal;
  /**
   * Told when publishing reaches its commit step ('committing': it will not be stopped) and when
   * the new site is current ('published': what follows can only warn).
   */
  onPhase?: (phase: 'committing' | 'published') => void;
}

/**
 * Build and publish the site; returns the summary, or throws a CalfeedError with nothing
 * published. Once the new site is current it returns (published: true), whatever fails after.
 */
export async function runBuild(run: BuildRun): Promise<BuildSummary> {
  const { config, token } = run.loaded;
  return withPortalSource({ config, token, now: run.now, log: run.log, doing: 'building from' }, (source) => buildFrom(run, source));
}

async function buildFrom(run: BuildRun, source: PortalSource): Promise<BuildSummary> {
  const { loaded, log, now, signal } = run;
  const { config } = loaded;
  const { baseUrl, token, timeZone } = source;
  const started = performance.now();
  const outDir = await outputFolder(config.out);
  if (config.siteUrlIsDefault) log.info(`Links point at ${config.siteUrl}; set --site-url (CALFEED_SITE_URL) to where the folder will be served.`);

  // Lock first: recovery cleans staging folders, and only the lock holder may touch them.
  const lock = await acquireLock(outDir);
  if (lock.note) log.info(lock.note);
  try {
    for (const note of await recover(outDir)) log.info(note);
  } catch (error) {
    await lock.release();
    throw error;
  }
  const client = new PortalClient(
    httpOptions(config, source, {
      userAgent: `calfeed/${VERSION} (+https://github.com/calfeed/calfeed)`,
      signal,
      onRetry: (r) => log.info(`retry ${r.attempt} of ${r.url} in ${Math.round(r.waitMs)} ms: ${r.reason}`),
      onWarning: (m) => log.warn(m),
    }),
  );
  let staging: Staging | undefined;
  let spool: EventSpool | undefined;
  let pages: PageRenderer | undefined;
  let cache: CrawlCache | undefined;
  let lastSpool: SavedEvents | undefined;
  // The next build store, written beside the current one, made current only after the publish.
  let prepared: PreparedStore | undefined;
  try {
    // Keyed by portal: the embedded demo (a new port each run) builds incrementally; another portal's cache is ignored.
    const portal = source.demo ? 'embedded demo' : baseUrl;
    const html = await loadHtmlRenderer(config.templates);
    const inputs = buildInputs({ config, portal, timeZone, templates: html.fingerprint, outDir, token });
    const store = await BuildStore.open(config.cacheDir);
    // Read once, after recover() (which may have put the last output back), by whoever asks first.
    const outManifest = new PublishedManifest(outDir);
    const upToDate = await checkUpToDate({ record: store.record, inputs, now, outDir, published: outManifest, client, signal });
    signal?.throwIfAborted();
    if (upToDate.upToDate) return upToDateSummary(run, source, client, upToDate.record, upToDate.failures, performance.now() - started);
    if (store.record) log.info(`Building: ${upToDate.why}.`);
    // The portal data's warnings, from here on, are what a rebuild that finds nothing changed repeats.
    const dataWarningsFrom = log.warnings.length;

    // The last build's events only when its output and state are current (checkUpToDate).
    const { sections, note } = store.load(portal, upToDate.intact !== undefined);
    if (store.note ?? note) stateNote(log, `build store: ${store.note ?? note}`, store.missing);
    const history = sections.history;
    lastSpool = sections.saved;
    // Only "now" moved since the last build: all its events still stand.
    const lastBuild = upToDate.timeMoved;
    const saved = lastBuild ? lastSpool : undefined;
    if (lastBuild && !saved) log.debug('the last build left no usable events in the build store: reading them all again');
    staging = await createStaging(outDir, { published: outManifest, onWarning: (m) => log.warn(m) });

    const site = siteContext(config, timeZone, now);
    const tracker = new HistoryTracker(history, now, config.keepRemovedDays * DAY_MS);
    // What this build's renderers remember (each page worker has its own): the next build starts with nothing.
    const ctx = createRenderContext();
    // From the spool, only cancellations' pages can need rendering: not worth starting workers.
    const renderer = (pages = createPageRenderer(ctx, html, site, config.templates, saved ? 0 : undefined));
    const eventFiles = new EventFiles(ctx, staging, renderer, html.fingerprint, site, tracker);

    const calendarFiles = new CalendarFiles(staging, sections.rendered, now);
    const renderedBefore = (calendarId: string, eventId: string): string | undefined => tracker.renderedBefore(calendarId, eventId);
    // Made once the calendar list is known: in a crawl, by the first calendar whose events are all
    // in, which is rendered then, while the crawl of the others goes on (and the network waits).
    let siteRenderer: SiteRenderer | undefined;
    const into = staging;
    const rendererFor = (calendars: Calendar[], from: EventSpool): SiteRenderer =>
      (siteRenderer ??= new SiteRenderer(into, { ctx, calendars, spool: from, site, html, pages: renderer, eventFiles, calendarFiles, renderedBefore }));

    let gathered: Gathered;
    if (saved && lastBuild) {
      spool = saved.spool;
      gathered = fromSavedSpool(saved, lastBuild, upToDate.failures ?? [], tracker);
      for (const warning of lastBuild.warnings) log.warn(warning);
    } else {
      cache = sections.crawl;
      cache.spillTo(staging.dir);
      spool = EventSpool.create(staging.dir, headerLine({ portal, inputs }));
      const crawlSpool = spool;
      const calendarSegments = new Map(history.calendars.map((r) => [r.calendar.id, r.calendar.slug]));
      let calendarsDone = 0;
      // The last one is left to finish(), after the page workers stop: a big calendar's pages beside a worker's heap set the peak memory.
      const onCalendarDone = async (calendars: Calendar[], calendar: Calendar, events: Iterable<EventRef>): Promise<void> => {
        if (++calendarsDone < calendars.length) await rendererFor(calendars, crawlSpool).calendar(calendar, events, tracker.finishCalendar(calendar.id, calendar.slug));
      };
      gathered = await crawlPortal({ run, client, cache, staging, site, ctx, tracker, eventFiles, spool: crawlSpool, lastSpool, probe: upToDate.probe, calendarSegments, started, onCalendarDone });
      if (gathered.reusedEvents > 0) {
        log.info(
          `${gathered.reusedEvents} of ${gathered.report.events} events unchanged at the portal, taken from the last build as they were ` +
            `(${gathered.wholeCalendars} of ${gathered.calendars.length} calendars whole).`,
        );
      }
    }
    // Every live event's page is rendered: the rest of the build renders in this thread.
    await pages.stopThreads();
    const { calendars, events, report } = gathered;
    const total = [...events.values()].reduce((n, list) => n + list.length, 0);
    // What vanished from calendars not rendered yet, and from calendars no longer listed.
    // Calendars no longer listed keep their folders, their events cancelled, as removed events do.
    const calendarHistory = settleCalendars(history.calendars, calendars, now, config.keepRemovedDays * DAY_MS);
    const slugs = new Map([...calendarHistory.removed, ...calendars].map((c) => [c.id, c.slug]));
    const { removed, stableUntil: tombstonesUntil, dropped } = tracker.finish((calendarId) => slugs.get(calendarId));
    const { counts, stableUntil: renderedUntil } = await rendererFor(calendars, spool).finish(events, removed, calendarHistory.removed);
    const warned = siteWarnings(events, site);
    // Rendered from the last build's spool: every other file of its output stays as it is, but
    // the pages of cancellations that expired now. (checkUpToDate found every file of --out with
    // its size moments ago, under the lock.)
    const expired = saved ? expiredFiles(dropped, calendarHistory.dropped, saved) : undefined;
    const keptFromLastBuild = expired ? await staging.keepPublished(expired, true) : 0;
    // Read from to the end when it is this build's spool; else its events were copied already.
    if (lastSpool && lastSpool.spool !== spool) lastSpool.spool.dispose();
    // The next store, from the spooled events with their history (which leave the staging folder
    // before it is listed in the manifest and checked) or, rendered from the last store's events,
    // from its rows.
    const rows = cache ? { spool } : { from: store.file, upTo: sections.keepTo };
    const notes = cache ? gathered.notes : undefined;
    const tail = storeTail({ crawl: cache, notes, history: tracker.removed(), calendars: calendarHistory.records, rendered: calendarFiles.state() });
    prepared = await prepareStore(config.cacheDir, rows, tail);
    cache?.dispose();
    spool.dispose();
    // Until when a rebuild from the same data would publish the same bytes and give the same warnings.
    const stableUntil = Math.min(renderedUntil, tombstonesUntil, calendarHistory.stableUntil, warned.until);

    const calendarsMeta = calendars.map((c) => ({ id: c.id, slug: c.slug, title: c.title, events: counts.get(c.id) ?? 0 }));
    await writeSearchIndexes(staging, config.siteUrl);
    await writeSiteMeta(staging, calendarsMeta, { generator: `calfeed ${VERSION}` });

    const shrink = shrinkReason(await staging.publishedManifest(), { calendars: calendars.length, events: total });
    if (shrink && !config.allowShrink) {
      throw new CalfeedError('SHRINK', `Refusing to publish ${config.out}: ${shrink}`);
    }
    if (shrink) log.warn(`${shrink}; publishing anyway (--allow-shrink).`);
    signal?.throwIfAborted();

    const published: PublishResult = await publish(staging, outDir, {
      signal,
      onWarning: (m) => log.warn(m),
      onStep: (step) => (step === 'committing' ? run.onPhase?.('committing') : step === 'swapped' ? run.onPhase?.('published') : undefined),
    });
    staging = undefined;
    // The new site is current: saving the state is best effort from here (a failure only means
    // the next build trusts less of it), and nothing may turn this build into a failure.
    const liveKept = saved ? total : gathered.reusedEvents;
    const next = prepared;
    prepared = undefined;
    await saveState(run, outDir, next, (manifest) =>
      ({
        inputs,
        builtAt: now,
        stableUntil: Number.isFinite(stableUntil) ? stableUntil : null,
        detailsDueAt: Number.isFinite(gathered.detailsDueAt) ? gathered.detailsDueAt : null,
        failedDetails: recordsFailures(gathered.report) ? gathered.report.detailsFailed.map((f): [string, string] => [f.calendarId, f.eventId]) : [],
        manifest,
        lists: gathered.lists,
        counts: {
          calendars: calendars.length,
          events: total,
          unreadable: gathered.unreadable,
          eventFiles: eventFiles.rendered + eventFiles.kept + liveKept,
          calendarFiles: calendarFiles.rendered + calendarFiles.kept,
          files: published.files,
        },
        // One more than a rebuild may repeat: then it knows it cannot (checkUpToDate).
        warnings: log.warnings.slice(dataWarningsFrom, dataWarningsFrom + MAX_RECORDED_WARNINGS + 1),
        siteWarnings: warned.warnings,
      }),
    );
    for (const warning of warned.warnings) log.warn(warning);
    if (saved) log.info(`Rendered from the last build's events (nothing changed at the portal); ${keptFromLastBuild} files kept as they were.`);
    return toSummary({
      baseUrl: source.demo ? 'demo' : redactUrl(baseUrl, token),
      demo: source.demo,
      out: config.out,
      upToDate: false,
      published: true,
      calendars: calendars.length,
      events: total,
      unreadable: gathered.unreadable,
      report,
      http: client.stats,
      history: tracker.counts,
      eventFiles: { rendered: eventFiles.rendered, kept: eventFiles.kept + liveKept },
      calendarFiles: { rendered: calendarFiles.rendered, kept: calendarFiles.kept },
      files: published,
      warnings: log.warnings,
      durationMs: performance.now() - started,
    });
  } catch (error) {
    spool?.dispose();
    lastSpool?.spool.dispose();
    cache?.dispose();
    await prepared?.discard().catch(() => undefined);
    if (staging) await discard(staging).catch(() => undefined);
    if (signal?.aborted && !(error instanceof CalfeedError && error.code === 'INTERRUPTED')) {
      throw new CalfeedError('INTERRUPTED', `Build interrupted; ${config.out} was left as it was.`, { cause: error });
    }
    throw error;
  } finally {
    await pages?.close().catch(() => undefined);
    await client.close().catch(() => undefined);
    await lock.release().catch(() => undefined);
  }
}

/**
 * After the commit: add the record of this build (it vouches for --out as published) to the
 * prepared store and make the store current, all of it in one rename. A failure is a warning: the
 * prepared store is dropped, so the next build finds the last store, whose record does not vouch
 * for --out's manifest, and does not take it as up to date.
 */
async function saveState(run: BuildRun, outDir: string, prepared: PreparedStore, record: (manifest: string) => LastBuild): Promise<void> {
  try {
    const manifest = await manifestSha256(outDir);
    await prepared.commit(manifest === undefined ? null : record(manifest));
  } catch (error) {
    await prepared.discard().catch(() => undefined);
    const why = error instanceof Error ? error.message : String(error);
    run.log.warn(`The new site is published, but saving the build state in ${run.loaded.config.cacheDir} failed (${why}); the next build redoes what it cannot trust.`);
  }
}

/** A calendar's spooled events: a RefList from the crawl, an array from the saved spool. */
type SpooledRefs = Iterable<EventRef> & { readonly length: number; at(i: number): EventRef | undefined };

/** What a build renders from: the calendars, their events as spooled, and what the crawl found. */
interface Gathered {
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

interface CrawlRun {
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
  onCalendarDone: (calendars: Calendar[], calendar: Calendar, events: Iterable<EventRef>) => Promise<void>;
}

/** Crawl the portal: mirrors to staging, each event normalized, joined with its history, its files written and spooled. */
async function crawlPortal(c: CrawlRun): Promise<Gathered> {
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
      onProgress: (p: CrawlProgress) => log.progress(formatProgress(p, performance.now() - c.started, log.interactive)),
    }),
  );
  signal?.throwIfAborted();
  collector.checkUnreadable(config.maxFailedDetails);
  return {
    calendars: collector.calendars,
    events: collector.events(),
    report,
    lists: report.lists,
    // Details that failed are asked for again by the next build, first thing (the record lists
    // them, see checkUpToDate); past a few hundred, the next build simply reads everything again.
    detailsDueAt: recordsFailures(report) ? c.cache.oldestCheck + config.detailsMaxAgeMs : now,
    reusedEvents: collector.reusedEvents,
    wholeCalendars: collector.wholeCalendars,
    notes: collector.notes(),
    unreadable: collector.unreadable.length,
  };
}

/** The last build's events, from the build store: the portal answered that none of its lists changed. */
function fromSavedSpool(saved: SavedEvents, last: LastBuild, failures: DetailsFailure[], tracker: HistoryTracker): Gathered {
  for (const refs of saved.events.values()) for (const ref of refs) tracker.markSeen(ref.calendarId, ref.id);
  const events = last.counts.events;
  return {
    calendars: saved.calendars,
    events: saved.events,
    report: unchangedReport(saved.calendars.length, events, last.lists, failures),
    lists: last.lists,
    detailsDueAt: last.detailsDueAt ?? Infinity,
    reusedEvents: events,
    wholeCalendars: saved.calendars.length,
    notes: saved.notes,
    unreadable: [...saved.notes.values()].reduce((n, notes) => n + notes.unreadable.length, 0),
  };
}

/** The crawl report of a build that found every list unchanged and requested no details. */
function unchangedReport(calendars: number, events: number, lists: ListRecord[], failures: DetailsFailure[]): CrawlReport {
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

/**
 * Files of the last build's output a build from its spool must not keep: the page and .ics of each
 * cancellation dropped now (unless a live event has the same path, which slugs rule out), the
 * files of each removed calendar dropped now, and the site files written anew (isSiteMeta).
 */
function expiredFiles(
  dropped: ReadonlyArray<{ calendarSlug: string; slug: string }>,
  droppedCalendars: readonly Calendar[],
  saved: SavedEvents,
): (relPath: string) => boolean {
  const meta = new Set<string>();
  for (const cal of droppedCalendars) for (const name of CALENDAR_FILES) meta.add(paths.calendar(cal.slug, name));
  if (dropped.length === 0) return (relPath) => isSiteMeta(relPath) || meta.has(relPath);
  const live = new Set<string>();
  for (const refs of saved.events.values()) {
    for (const ref of refs) {
      const { calendarSlug, slug } = JSON.parse(saved.spool.json(ref)) as FeedEvent;
      live.add(paths.eventPage(calendarSlug, slug));
    }
  }
  const gone = new Set<string>();
  for (const { calendarSlug, slug } of dropped) {
    if (live.has(paths.eventPage(calendarSlug, slug))) continue;
    gone.add(paths.eventPage(calendarSlug, slug));
    gone.add(paths.eventIcs(calendarSlug, slug));
  }
  return (relPath) => isSiteMeta(relPath) || meta.has(relPath) || gone.has(relPath);
}


/**
 * The summary of a rebuild that found nothing changed (checkUpToDate): --out was left as it was.
 * The last build's warnings still hold (same data, same settings), so they are given again.
 */
function upToDateSummary(run: BuildRun, source: PortalSource, client: PortalClient, record: LastBuild, failures: DetailsFailure[], durationMs: number): BuildSummary {
  const { config } = run.loaded;
  for (const warning of [...record.warnings, ...record.siteWarnings]) run.log.warn(warning);
  const { calendars, events, unreadable, eventFiles, calendarFiles, files } = record.counts;
  return toSummary({
    baseUrl: source.demo ? 'demo' : redactUrl(source.baseUrl, source.token),
    demo: source.demo,
    out: config.out,
    upToDate: true,
    published: false,
    calendars,
    events,
    unreadable,
    report: unchangedReport(calendars, events, record.lists, failures),
    http: client.stats,
    history: { new: 0, changed: 0, removed: 0 },
    eventFiles: { rendered: 0, kept: eventFiles },
    calendarFiles: { rendered: 0, kept: calendarFiles },
    files: { written: 0, unchanged: files, removed: 0, files },
    warnings: run.log.warnings,
    durationMs,
  });
}

function redactUrl(url: string, token: string | undefined): string {
  return token ? url.split(token).join('***') : url;
}

/**
 * A state file calfeed could not use: that there is none yet is calfeed's own business (--verbose);
 * that one is damaged, from another version or another portal explains a slower, fuller build.
 */
function stateNote(log: Logger, line: string, missing: boolean | undefined): void {
  if (missing === true) log.debug(line);
  else log.info(line);
}
