// The pipeline, start to finish: config -> crawl -> normalize -> history -> render -> verify ->
// publish. Everything is staged beside --out and published in one step at the end, so whatever
// fails on the way, --out stays exactly as it was.

import type { LoadedConfig } from '../config/load.js';
import { CrawlCache, crawl, type CrawlProgress, type CrawlReport } from '../crawl/index.js';
import { CalfeedError } from '../errors.js';
import { PortalClient } from '../http/index.js';
import type { Logger } from '../log.js';
import type { Calendar, FeedEvent, SiteContext } from '../model.js';
import type { NormalizeOptions } from '../normalize/index.js';
import {
  acquireLock,
  outputFolder,
  createStaging,
  discard,
  publish,
  readManifestSummary,
  recover,
  writeSiteMeta,
  shrinkReason,
  type PublishResult,
  type Staging,
} from '../publish/index.js';
import { loadHtmlRenderer } from '../render/html/index.js';
import { HistoryTracker, type LiveEvent } from '../state/history.js';
import { loadRendered, saveRendered } from '../state/rendered.js';
import { loadLastBuild, saveLastBuild, type LastBuild } from '../state/last-build.js';
import { loadHistory, prepareHistory } from '../state/store.js';
import type { PreparedFile } from '../write-lines.js';
import { VERSION } from '../version.js';
import { CalendarFiles } from './calendar-files.js';
import { Collector } from './collect.js';
import { EventFiles } from './event-files.js';
import { httpOptions, withPortalSource, type PortalSource } from './source.js';
import { formatProgress } from './progress.js';
import { renderSite } from './render-site.js';
import { EventSpool, type EventRef } from './spool.js';
import { createPageRenderer, type PageRenderer } from './page-pool.js';
import { toSummary, type BuildSummary } from './summary.js';
import { buildInputs, checkUpToDate } from './up-to-date.js';
import { manifestSha256 } from '../publish/intact.js';

const DAY_MS = 86_400_000;

export interface BuildRun {
  loaded: LoadedConfig;
  log: Logger;
  /** "Now" for this build (the only clock read, done by the caller). */
  now: number;
  signal?: AbortSignal;
}

/** Build and publish the site; returns the summary, or throws a CalfeedError with nothing published. */
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
  if (baseUrl.startsWith('http://') && !isLoopback(baseUrl)) {
    log.warn(`--base-url ${baseUrl} is plain http: the token travels unencrypted. Use https.`);
  }
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
  let nextHistory: PreparedFile | undefined;
  let nextCache: PreparedFile | undefined;
  let cache: CrawlCache | undefined;
  try {
    // Keyed by portal, so the embedded demo (a new port each run) still builds incrementally and a
    // cache written for another portal is ignored.
    const portal = source.demo ? 'embedded demo' : baseUrl;
    const html = await loadHtmlRenderer(config.templates);
    const inputs = buildInputs({ config, portal, timeZone, templates: html.fingerprint, outDir, token });
    const last = await loadLastBuild(config.cacheDir);
    const upToDate = await checkUpToDate({ record: last.record, inputs, now, outDir, client, signal });
    signal?.throwIfAborted();
    if (upToDate.upToDate) return upToDateSummary(run, source, client, upToDate.record, performance.now() - started);
    if (last.record) log.info(`Building: ${upToDate.why}.`);
    else if (last.note !== undefined && !last.note.startsWith('no record')) log.info(`last build: ${last.note}`);
    // What the portal's data makes calfeed warn about, from here on, is what a rebuild that finds
    // nothing changed repeats; warnings about this run's settings it gives itself.
    const dataWarningsFrom = log.warnings.length;

    cache = await CrawlCache.load(config.cacheDir, portal);
    if (cache.loadNote) log.info(`cache: ${cache.loadNote}`);
    const history = await loadHistory(config.cacheDir);
    if (history.note) log.info(`history: ${history.note}`);
    const rendered = await loadRendered(config.cacheDir);
    if (rendered.note) log.info(`render record: ${rendered.note}`);
    staging = await createStaging(outDir);
    cache.spillTo(staging.dir);

    const normalize: NormalizeOptions = { timeZone, locales: config.locales, fields: config.fields, maxFieldLength: config.maxFieldLength };
    const site: SiteContext = {
      siteUrl: config.siteUrl,
      title: config.title,
      locale: config.locales[0]!,
      timeZone,
      now,
      feedLimit: config.feedLimit,
      icalPastDays: config.icalPastDays,
      refreshMinutes: config.refreshMinutes,
      version: VERSION,
    };
    const tracker = new HistoryTracker(history.state, now, config.keepRemovedDays * DAY_MS);
    pages = createPageRenderer(html, site, config.templates);
    const eventFiles = new EventFiles(staging, pages, html.fingerprint, site, tracker);
    spool = EventSpool.create(staging.dir);
    const collector = new Collector(staging, normalize, site, log, tracker, eventFiles, spool);
    const report: CrawlReport = await crawl(
      client,
      cache,
      {
        fields: config.fields,
        paging: config.paging,
        maxCalendars: config.maxCalendars,
        maxEventsPerCalendar: config.maxEvents,
        maxFailedDetails: config.maxFailedDetails,
        detailsMaxAgeMs: config.detailsMaxAgeMs,
        now,
        signal,
        probe: upToDate.probe,
      },
      Object.assign(collector, {
        onProgress: (p: CrawlProgress) => log.progress(formatProgress(p, performance.now() - started, log.interactive)),
      }),
    );
    signal?.throwIfAborted();
    checkUnreadable(collector, config.maxFailedDetails);

    const events = collector.events();
    const total = [...events.values()].reduce((n, list) => n + list.length, 0);
    const { removed, stableUntil: tombstonesUntil } = tracker.finish();
    const calendars = collector.calendars;
    const calendarFiles = new CalendarFiles(staging, rendered.state);
    const { counts, stableUntil: renderedUntil } = await renderSite(staging, {
      calendars,
      events,
      spool,
      removed,
      site,
      html,
      eventFiles,
      calendarFiles,
      renderedBefore: (calendarId, eventId) => tracker.renderedBefore(calendarId, eventId),
    });
    // The next history is made from the spooled events (history keeps nothing per live event), so
    // it is written now, beside history.json, and becomes current only after the publish.
    nextHistory = await prepareHistory(config.cacheDir, tracker.records(liveEvents(calendars, events, spool, eventFiles)));
    // So is the crawl cache, from the entries spilled to the staging folder.
    nextCache = await cache.prepare(config.cacheDir);
    // Until when a rebuild from the same data would publish the same bytes. Details that failed
    // are asked for again next time, so then there is no such time.
    const detailsDue = report.detailsFailed.length > 0 ? now : cache.oldestCheck + config.detailsMaxAgeMs;
    const stableUntil = Math.min(renderedUntil, tombstonesUntil, detailsDue);
    // Gone before the staging folder is listed in the manifest and checked.
    spool.dispose();
    cache.dispose();

    const calendarsMeta = calendars.map((c) => ({ id: c.id, slug: c.slug, title: c.title, events: counts.get(c.id) ?? 0 }));
    await writeSiteMeta(staging, calendarsMeta, { generator: `calfeed ${VERSION}` });

    const shrink = shrinkReason(await readManifestSummary(outDir), { calendars: calendars.length, events: total });
    if (shrink && !config.allowShrink) {
      throw new CalfeedError('SHRINK', `Refusing to publish ${config.out}: ${shrink}`);
    }
    if (shrink) log.warn(`${shrink}; publishing anyway (--allow-shrink).`);
    signal?.throwIfAborted();
    // Taken from the staged files before they become --out.
    const renderedState = calendarFiles.state();

    const published: PublishResult = await publish(staging, outDir);
    staging = undefined;
    await nextCache.commit();
    nextCache = undefined;
    await nextHistory.commit();
    nextHistory = undefined;
    await saveRendered(config.cacheDir, renderedState);
    // Last, and only once all of the above is current: it vouches for the output and the state.
    const manifest = await manifestSha256(outDir);
    if (manifest !== undefined) {
      await saveLastBuild(config.cacheDir, {
        inputs,
        builtAt: now,
        stableUntil: Number.isFinite(stableUntil) ? stableUntil : null,
        manifest,
        lists: report.lists,
        counts: {
          calendars: calendars.length,
          events: total,
          eventFiles: eventFiles.rendered + eventFiles.kept,
          calendarFiles: calendarFiles.rendered + calendarFiles.kept,
          files: published.files,
        },
        warnings: log.warnings.slice(dataWarningsFrom, dataWarningsFrom + MAX_RECORDED_WARNINGS),
      });
    }
    return toSummary({
      baseUrl: source.demo ? 'demo' : redactUrl(baseUrl, token),
      demo: source.demo,
      out: config.out,
      upToDate: false,
      calendars: calendars.length,
      events: total,
      report,
      http: client.stats,
      history: tracker.counts,
      eventFiles: { rendered: eventFiles.rendered, kept: eventFiles.kept },
      calendarFiles: { rendered: calendarFiles.rendered, kept: calendarFiles.kept },
      files: published,
      warnings: log.warnings,
      durationMs: performance.now() - started,
    });
  } catch (error) {
    spool?.dispose();
    cache?.dispose();
    await nextHistory?.discard().catch(() => undefined);
    await nextCache?.discard().catch(() => undefined);
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

/** At most this many of a build's warnings are repeated by a rebuild that finds nothing changed. */
const MAX_RECORDED_WARNINGS = 200;

/**
 * The summary of a rebuild that found nothing changed (checkUpToDate): --out was left as it was.
 * The last build's warnings still hold (same data, same settings), so they are given again.
 */
function upToDateSummary(run: BuildRun, source: PortalSource, client: PortalClient, record: LastBuild, durationMs: number): BuildSummary {
  const { config } = run.loaded;
  for (const warning of record.warnings) run.log.warn(warning);
  const { calendars, events, eventFiles, calendarFiles, files } = record.counts;
  return toSummary({
    baseUrl: source.demo ? 'demo' : redactUrl(source.baseUrl, source.token),
    demo: source.demo,
    out: config.out,
    upToDate: true,
    calendars,
    events,
    report: {
      calendars,
      events,
      detailsFetched: 0,
      detailsNotModified: 0,
      detailsReused: events,
      detailsFailed: [],
      listsNotModified: record.lists.length,
      pages: record.lists.reduce((n, l) => n + l.entry.pages.length, 0),
      warnings: [],
      lists: record.lists,
    },
    http: client.stats,
    history: { new: 0, changed: 0, removed: 0 },
    eventFiles: { rendered: 0, kept: eventFiles },
    calendarFiles: { rendered: 0, kept: calendarFiles },
    files: { written: 0, unchanged: files, removed: 0, files },
    warnings: run.log.warnings,
    durationMs,
  });
}

/** Every live event as spooled, with the fingerprint its page and .ics were rendered from. */
function* liveEvents(calendars: Calendar[], events: ReadonlyMap<string, readonly EventRef[]>, spool: EventSpool, files: EventFiles): Generator<LiveEvent> {
  for (const cal of calendars) {
    for (const ref of events.get(cal.id) ?? []) {
      const json = spool.json(ref);
      yield { event: JSON.parse(json) as FeedEvent, rendered: files.fingerprint(cal, json) };
    }
  }
}

/**
 * Events the normalizer could not read (no start, no id) are skipped with a warning each; when
 * more than --max-failed-details of them are, detection has most likely guessed wrong, and an
 * empty or thinned-out site must not replace a good one.
 */
function checkUnreadable(collector: Collector, maxRatio: number): void {
  const { listed, unreadable } = collector;
  if (unreadable.length === 0 || unreadable.length / listed <= maxRatio) return;
  throw new CalfeedError(
    'BUILD',
    `${unreadable.length} of ${listed} events could not be read, more than --max-failed-details (${Math.round(maxRatio * 100)}%) allows, ` +
      `so nothing was published. The first: ${unreadable[0]}. Run "calfeed inspect" to see how calfeed reads your portal, ` +
      'then map the missing fields in calfeed.config.json ("fields").',
  );
}

/**
 * Whether a URL's host is this machine's loopback: localhost, 127.0.0.0/8 (an address, not a name
 * such as 127.example.edu), ::1, or 127.x written as an IPv4-mapped IPv6 address (which URL
 * normalizes to hex: [::ffff:7f00:1]).
 */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host) || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host);
}

function redactUrl(url: string, token: string | undefined): string {
  return token ? url.split(token).join('***') : url;
}
