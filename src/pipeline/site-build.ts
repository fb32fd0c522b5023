// One build past its plan (plan.ts): staging beside --out, the renderers, and each step of the
// build as a method, in the order build.ts calls them; what a failed build holds is let go by release().

import type { Calendar, SiteContext } from '../model.js';
import type { CrawlCache } from '../crawl/index.js';
import { CalfeedError } from '../errors.js';
import type { PortalClient } from '../http/index.js';
import { createStaging, discard, publish, sameAsPublished, setAside, shrinkReason, writeSearchIndexes, writeSiteMeta, type PublishResult, type Staging } from '../publish/index.js';
import { createRenderContext } from '../render/context.js';
import { headerLine, prepareStore, storeTail, type PreparedStore } from '../state/build-store.js';
import { settleCalendars, type CalendarRecord } from '../state/calendars.js';
import { HistoryTracker } from '../state/history.js';
import { MAX_RECORDED_WARNINGS, type LastBuild } from '../state/last-build.js';
import { VERSION } from '../version.js';
import type { BuildRun } from './build.js';
import { CalendarFiles } from './calendar-files.js';
import { EventFiles } from './event-files.js';
import { crawlPortal, recordsFailures, type Gathered, type SpooledRefs } from './gather.js';
import { PageRenderer } from './page-render.js';
import { siteWarnings } from './placeless.js';
import type { RenderPlan } from './plan.js';
import { SiteRenderer } from './render-site.js';
import { siteContext } from './site-context.js';
import { EventSpool } from './spool.js';
import type { SummaryCounts } from './summary.js';

const DAY_MS = 86_400_000;

/** --threads: whether files are written in a thread of their own (undefined: by the cores). */
function writerThread(run: BuildRun): boolean | undefined {
  const { threads } = run.loaded.config;
  return threads === undefined ? undefined : threads > 0;
}

/** What rendering left for the steps after it. */
export interface Rendered {
  /** Events per calendar id, as the calendar files counted them. */
  counts: ReadonlyMap<string, number>;
  events: number;
  /** The calendar history to save. */
  calendarRecords: CalendarRecord[];
  /** The build's own warnings (events search engines will skip), given at the end. */
  warnings: string[];
  /** Until when a rebuild from the same data would publish the same bytes and give the same warnings. */
  stableUntil: number;
}

/** What publish() did: the files it counted, and whether --out was replaced (else left as it was). */
export interface Published {
  files: PublishResult;
  replaced: boolean;
}

/** One build past its plan: the parts it renders with, each step a method, and what a failure lets go. */
export class SiteBuild {
  private readonly pages: PageRenderer;
  private readonly site: SiteContext;
  private readonly tracker: HistoryTracker;
  private readonly ctx = createRenderContext();
  private readonly eventFiles: EventFiles;
  private readonly calendarFiles: CalendarFiles;
  private siteRenderer: SiteRenderer | undefined;
  private staging: Staging | undefined;
  private spool: EventSpool | undefined;
  private cache: CrawlCache | undefined;
  private prepared: PreparedStore | undefined;

  /** Staging beside --out and the renderers; on failure, staging and the store's saved events are let go. */
  static async start(run: BuildRun, plan: RenderPlan, outDir: string, timeZone: string): Promise<SiteBuild> {
    let staging: Staging | undefined;
    try {
      staging = await createStaging(outDir, { published: plan.published, onWarning: (m) => run.log.warn(m), writerThread: writerThread(run), signal: run.signal });
      return new SiteBuild(run, plan, staging, timeZone);
    } catch (error) {
      plan.sections.rows?.spool.dispose();
      if (staging) await discard(staging).catch(() => undefined);
      throw error;
    }
  }

  private constructor(
    private readonly run: BuildRun,
    private readonly plan: RenderPlan,
    staging: Staging,
    timeZone: string,
  ) {
    const { config } = run.loaded;
    this.staging = staging;
    this.site = siteContext(config, timeZone, run.now);
    this.tracker = new HistoryTracker(plan.sections.history, run.now, config.keepRemovedDays * DAY_MS);
    this.pages = new PageRenderer(this.ctx, plan.html, this.site);
    this.eventFiles = new EventFiles(this.ctx, staging, this.pages, plan.html.fingerprint, this.site, this.tracker, plan.sections.rows);
    this.calendarFiles = new CalendarFiles(staging, plan.sections.rendered, run.now);
    const by = config.threads === undefined ? 'by the cores; --threads sets it' : '--threads';
    run.log.debug(`threads: ${staging.writerThread ? 'one' : 'none'} writing files beside this one (${by})`);
  }

  /** The events to render: a crawl that takes what still stands from the store and writes each other event's files as it goes. */
  async gather(client: PortalClient, started: number): Promise<Gathered> {
    const { sections } = this.plan;
    const staging = this.staging!;
    const cache = (this.cache = sections.crawl);
    cache.spillTo(staging.dir);
    const spool = (this.spool = EventSpool.create(staging.dir, headerLine({ portal: this.plan.portal, inputs: this.plan.inputs })));
    const calendarSegments = new Map(sections.history.calendars.map((r) => [r.calendar.id, r.calendar.slug]));
    // A calendar's files are rendered once its events are all in, while the crawl goes on.
    const onCalendarDone = async (calendars: Calendar[], calendar: Calendar, events: SpooledRefs): Promise<void> => {
      await this.renderer(calendars).calendar(calendar, events, this.tracker.finishCalendar(calendar.id, calendar.slug));
    };
    const { ctx, site, tracker, eventFiles } = this;
    return crawlPortal({ run: this.run, client, cache, staging, site, ctx, tracker, eventFiles, spool, lastSpool: sections.saved, probe: this.plan.probe, calendarSegments, started, onCalendarDone });
  }

  /** The calendar-level and site-level files, what vanished settled, and expired cancellations dropped. */
  async render(gathered: Gathered): Promise<Rendered> {
    const { config } = this.run.loaded;
    const { now } = this.run;
    const { calendars, events } = gathered;
    // Calendars no longer listed keep their folders, their events cancelled, as removed events do.
    const calendarHistory = settleCalendars(this.plan.sections.history.calendars, calendars, now, config.keepRemovedDays * DAY_MS);
    const slugs = new Map([...calendarHistory.removed, ...calendars].map((c) => [c.id, c.slug]));
    const { removed, stableUntil: tombstonesUntil } = this.tracker.finish((calendarId) => slugs.get(calendarId));
    const { counts, stableUntil: renderedUntil } = await this.renderer(calendars).finish(events, removed, calendarHistory.removed);
    const warned = siteWarnings(events, this.site);
    return {
      counts,
      events: [...events.values()].reduce((n, list) => n + list.length, 0),
      calendarRecords: calendarHistory.records,
      warnings: warned.warnings,
      stableUntil: Math.min(renderedUntil, tombstonesUntil, calendarHistory.stableUntil, warned.until),
    };
  }

  /** The next build store (this build's spool, then what the crawl recorded), made current after the publish. */
  async prepareStore(gathered: Gathered, rendered: Rendered): Promise<void> {
    const spool = this.spool!;
    // The events the crawl took from the last store were copied into this build's spool already.
    this.plan.sections.rows?.spool.dispose();
    const crawl = this.cache!;
    const tail = storeTail({ crawl, notes: gathered.notes, history: this.tracker.removed(), calendars: rendered.calendarRecords, rendered: this.calendarFiles.state() });
    this.prepared = await prepareStore(this.run.loaded.config.cacheDir, spool, tail);
    crawl.dispose();
    spool.dispose();
  }

  /** Site metadata, the shrink guard, and the commit, unless the new site is the very files --out holds. */
  async publish(outDir: string, gathered: Gathered, rendered: Rendered): Promise<Published> {
    const { log, signal } = this.run;
    const { config } = this.run.loaded;
    const { calendars } = gathered;
    const staging = this.staging!;
    const calendarsMeta = calendars.map((c) => ({ id: c.id, slug: c.slug, title: c.title, events: rendered.counts.get(c.id) ?? 0 }));
    await writeSearchIndexes(staging, config.siteUrl);
    await writeSiteMeta(staging, calendarsMeta, { generator: `calfeed ${VERSION}` });

    const shrink = shrinkReason(await staging.publishedManifest(), { calendars: calendars.length, events: rendered.events });
    if (shrink && !config.allowShrink) throw new CalfeedError('SHRINK', `Refusing to publish ${config.out}: ${shrink}`);
    if (shrink) log.warn(`${shrink}; publishing anyway (--allow-shrink).`);
    signal?.throwIfAborted();

    // Replacing --out with the same files would cost a new tree and a moment without --out, for nothing.
    if (await sameAsPublished(staging)) {
      signal?.throwIfAborted();
      this.staging = undefined;
      await setAside(staging);
      const files = staging.files().size;
      return { files: { written: 0, unchanged: files, removed: 0, files }, replaced: false };
    }
    const published = await publish(staging, outDir, {
      signal,
      onWarning: (m) => log.warn(m),
      onStep: (step) => (step === 'committing' ? this.run.onPhase?.('committing') : step === 'swapped' ? this.run.onPhase?.('published') : undefined),
    });
    this.staging = undefined;
    return { files: published, replaced: true };
  }

  /** The prepared store, now the caller's to commit or discard. */
  takePrepared(): PreparedStore {
    const prepared = this.prepared!;
    this.prepared = undefined;
    return prepared;
  }

  /** The record of this build, which vouches for --out as published (its manifest's SHA-256). */
  record(gathered: Gathered, rendered: Rendered, published: PublishResult, manifest: string, warningsFrom: number): LastBuild {
    const { eventFiles, calendarFiles } = this;
    return {
      inputs: this.plan.inputs,
      builtAt: this.run.now,
      stableUntil: Number.isFinite(rendered.stableUntil) ? rendered.stableUntil : null,
      detailsDueAt: Number.isFinite(gathered.detailsDueAt) ? gathered.detailsDueAt : null,
      failedDetails: recordsFailures(gathered.report) ? gathered.report.detailsFailed.map((f): [string, string] => [f.calendarId, f.eventId]) : [],
      manifest,
      lists: gathered.lists,
      counts: {
        calendars: gathered.calendars.length,
        events: rendered.events,
        unreadable: gathered.unreadable,
        eventFiles: eventFiles.rendered + eventFiles.kept + gathered.reusedEvents,
        calendarFiles: calendarFiles.rendered + calendarFiles.kept,
        files: published.files,
      },
      // One more than a rebuild may repeat: then it knows it cannot (checkUpToDate).
      warnings: this.run.log.warnings.slice(warningsFrom, warningsFrom + MAX_RECORDED_WARNINGS + 1),
      siteWarnings: rendered.warnings,
    };
  }

  /** What the summary counts of this build. */
  counts(gathered: Gathered, rendered: Rendered, published: Published): SummaryCounts {
    return {
      upToDate: false,
      published: published.replaced,
      calendars: gathered.calendars.length,
      events: rendered.events,
      unreadable: gathered.unreadable,
      report: gathered.report,
      history: this.tracker.counts,
      eventFiles: { rendered: this.eventFiles.rendered, kept: this.eventFiles.kept + gathered.reusedEvents },
      calendarFiles: { rendered: this.calendarFiles.rendered, kept: this.calendarFiles.kept },
      files: published.files,
    };
  }

  /** Lets go of what a failed build holds: staging (removed), the spools, the prepared store. */
  async release(): Promise<void> {
    this.spool?.dispose();
    this.plan.sections.rows?.spool.dispose();
    this.cache?.dispose();
    await this.prepared?.discard().catch(() => undefined);
    if (this.staging) await discard(this.staging).catch(() => undefined);
  }

  // Made once the calendar list is known: in a crawl, by the first calendar whose events are all in.
  private renderer(calendars: Calendar[]): SiteRenderer {
    const { ctx, site, pages, eventFiles, calendarFiles, tracker } = this;
    const renderedBefore = (calendarId: string, eventId: string): string | undefined => tracker.renderedBefore(calendarId, eventId);
    return (this.siteRenderer ??= new SiteRenderer(this.staging!, { ctx, calendars, spool: this.spool!, site, html: this.plan.html, pages, eventFiles, calendarFiles, renderedBefore }));
  }
}
