// Render every calendar-level and site-level file into staging: which renderer gets which events,
// where each result goes, and which groups of files are kept as published (CalendarFiles). Memory
// stays bounded by the largest calendar: events come back from the spool a calendar at a time, and
// the combined calendar.ics streams from it VEVENT by VEVENT.

import type { Calendar, FeedEvent, SiteContext } from '../model.js';
import { paths, type CalendarFile, type SiteFile } from '../paths.js';
import type { Staging } from '../publish/index.js';
import type { RenderContext } from '../render/context.js';
import { ownClock } from '../render/clock.js';
import { HOME_CANDIDATES, type CategoryCount, type HtmlRenderer } from '../render/html/index.js';
import { searchIndexChunks } from '../render/html/search.js';
import { icsHeader } from '../render/ical/index.js';
import { inFeedWindow } from '../render/syndication/index.js';
import type { CalendarFiles } from './calendar-files.js';
import type { EventFiles } from './event-files.js';
import { icsChunks, icsEntries, liveEntries, type IcsEntry } from './ics-entries.js';
import type { PageRenderer } from './page-render.js';
import type { SpooledRefs } from './gather.js';
import { sortedPositions } from './ref-list.js';
import { renderCategories, stageFeeds, writeFeeds } from './render-categories.js';
import { calendarKeys, combinedFeedsKey, combinedIcsKey, indexKey, isUpcomingRef, renderEnvironment, searchIndexKey, upcomingOfRefs } from './render-keys.js';
import { compareRefs, feedDate, itemSpans, readSpans, type EventRef, type EventSpool, spans } from './spool.js';

/** A calendar's own files, in the order they are staged. */
export const CALENDAR_FILES: readonly CalendarFile[] = ['calendar.ics', 'rss.xml', 'atom.xml', 'feed.json', 'index.html', 'past.html', 'widget.html'];

export interface RenderInput {
  /** The build's render context (this thread's). */
  ctx: RenderContext;
  /** Every calendar listed. */
  calendars: Calendar[];
  spool: EventSpool;
  site: SiteContext;
  /** Renders the index and assets. */
  html: HtmlRenderer;
  /** Renders a calendar's feeds and pages. */
  pages: PageRenderer;
  /** Writes event pages and .ics; live events went through it during the crawl already. */
  eventFiles: EventFiles;
  /** Keeps or renders the calendar-level and site-level files. */
  calendarFiles: CalendarFiles;
  /** The fingerprint a removed event's files were last published with. */
  renderedBefore: (calendarId: string, eventId: string) => string | undefined;
}

export interface RenderedSite {
  /** Events per calendar id. */
  counts: Map<string, number>;
  /** Until when the same events render to the same bytes ("now" decisions); Infinity: for good. */
  stableUntil: number;
}

/**
 * Renders each calendar once, from its sorted events, as soon as they are all in (calendar()),
 * then the rest and the site-level files (finish()).
 */
export class SiteRenderer {
  private readonly counts = new Map<string, number>();
  // The earliest instant at which something a group of files took from "now" may turn out otherwise.
  private stableUntil = Infinity;
  private readonly upcoming = new Map<string, number>();
  private readonly environment: string;
  private readonly calendarsJson: string;
  // What the combined files need of each calendar rendered; nothing per live event (their entries
  // are made again from the refs at the end).
  private readonly done = new Map<string, { eventsKey: string; icsKey: string; removed: IcsEntry[] }>();
  // The soonest upcoming events of the calendars rendered so far, as many as the combined feeds or
  // the home page list (soonestKept): the first of them are each one's events.
  private soonest: EventRef[] = [];
  private readonly soonestKept: number;
  private newest = 0;
  private readonly until = (t: number): void => {
    if (t < this.stableUntil) this.stableUntil = t;
  };

  constructor(
    private readonly staging: Staging,
    private readonly input: RenderInput,
  ) {
    this.environment = renderEnvironment(input.site, input.html.fingerprint);
    this.soonestKept = Math.max(0, input.site.feedLimit, HOME_CANDIDATES);
    this.calendarsJson = JSON.stringify(input.calendars);
  }

  /** Render one calendar's files from its live events (any order) and its removed ones. */
  async calendar(cal: Calendar, events: SpooledRefs, gone: readonly FeedEvent[]): Promise<void> {
    if (this.done.has(cal.id)) throw new Error(`internal: calendar "${cal.id}" rendered twice`);
    const { ctx, spool, pages, calendars, calendarFiles } = this.input;
    const staging = this.staging;
    // What this calendar's files take from "now", the choices of events below included.
    const site = ownClock(this.input.site);
    const { ics, keys, list, feed, updated } = this.take(cal, events, gone, site);
    const files = CALENDAR_FILES.map((name) => paths.calendar(cal.slug, name));
    const until = await calendarFiles.write(`calendar ${cal.id}`, keys.files, files, async () => {
      // The feeds and pages render after calendar.ics, once its entries are let go, so the pages'
      // events are not in memory beside them.
      await staging.writeChunks(paths.calendar(cal.slug, 'calendar.ics'), icsChunks(icsHeader(ctx, cal, calendars, site), ics, spool));
      ics.length = 0;
      const files = pages.calendar({ cal, calendars, read: spool.text, list, feed, updated });
      await writeFeeds(staging, (name) => paths.calendar(cal.slug, name), files);
      await staging.writeChunks(paths.calendar(cal.slug, 'index.html'), files.index);
      await staging.writeChunks(paths.calendar(cal.slug, 'past.html'), files.past);
      await staging.write(paths.calendar(cal.slug, 'widget.html'), files.widget);
      return Math.min(files.changesAt, site.clock.changesAt);
    });
    this.until(Math.min(until, site.clock.changesAt));
    // Removed events keep their page and .ics (both cancelled) while they stay in calendar.ics:
    // RSS items and "add to calendar" files that link to them must not hit a 404.
    for (const event of gone) await this.input.eventFiles.write(cal, event, this.input.renderedBefore(event.calendarId, event.id), false);
  }

  /**
   * What calendar() renders from its refs, and what the combined files keep of them. Refs are made
   * as read, never all at once, and let go on return (calendar()'s locals live across its awaits).
   */
  private take(cal: Calendar, events: SpooledRefs, gone: readonly FeedEvent[], site: SiteContext) {
    const order = sortedPositions(events);
    const refs: Iterable<EventRef> = { *[Symbol.iterator]() { for (const i of order) yield events.at(i)!; } };
    this.counts.set(cal.id, order.length);
    this.upcoming.set(cal.id, upcomingOfRefs(refs, site));
    const ics = icsEntries(this.input.ctx, refs, gone, cal.timeZone, site);
    const record = (ref: EventRef): Buffer => this.input.spool.recordView(ref);
    const keys = calendarKeys({ environment: this.environment, calendars: this.calendarsJson, cal, refs, ics, record });
    // The first feedLimit upcoming events are the feeds' items; of all calendars' together, the
    // combined feeds' (and the first HOME_CANDIDATES, the home page's).
    const upcoming: EventRef[] = [];
    const list = new Float64Array(2 * order.length);
    let newest = 0;
    let k = 0;
    for (const r of refs) {
      newest = Math.max(newest, r.stamp);
      if (upcoming.length < this.soonestKept && inFeedWindow(r.end, site)) upcoming.push(r);
      list[k++] = r.at;
      list[k++] = r.jsonBytes;
    }
    this.newest = Math.max(this.newest, newest);
    this.soonest = [...this.soonest, ...upcoming].sort(compareRefs).slice(0, this.soonestKept);
    // Recorded before calendar()'s first await, so a second call for this calendar fails at once.
    this.done.set(cal.id, { eventsKey: keys.events, icsKey: keys.ics, removed: ics.filter((entry) => entry.ref === undefined) });
    const items = upcoming.slice(0, Math.max(0, site.feedLimit));
    return { ics, keys, list, feed: itemSpans(items), updated: feedDate(items, newest) };
  }

  /**
   * Render the calendars calendar() has not, those removed from the portal (their files stay,
   * every event cancelled), then the combined files and the index.
   */
  async finish(events: ReadonlyMap<string, SpooledRefs>, removed: readonly FeedEvent[], removedCalendars: readonly Calendar[]): Promise<RenderedSite> {
    const { calendars } = this.input;
    const removedByCalendar = groupBy(removed, (e) => e.calendarId);
    for (const cal of [...calendars, ...removedCalendars]) {
      if (!this.done.has(cal.id)) await this.calendar(cal, events.get(cal.id) ?? [], removedByCalendar.get(cal.id) ?? []);
    }

    await this.combinedIcs(events, removedByCalendar, removedCalendars);
    await this.combinedFeeds();
    const lists = calendars.map((cal) => events.get(cal.id) ?? []);
    const { ctx, spool, html, calendarFiles, site } = this.input;
    const categories = await renderCategories({ ctx, staging: this.staging, spool, html, calendarFiles, site, calendars, environment: this.environment, calendarsJson: this.calendarsJson }, lists);
    this.until(categories.until);
    await this.index(categories.counts);
    await this.searchIndex(events, new Map(categories.counts.map(({ category }) => [category.key, category.name])));
    for (const [name, content] of Object.entries(this.input.html.assets(this.input.site))) await this.staging.write(paths.site(name as SiteFile), content);
    // Nothing in it changes with the time or the events: written each build, it is unchanged unless the settings are.
    await this.staging.write(paths.site('404.html'), this.input.html.notFound(this.input.ctx, ownClock(this.input.site)));
    return { counts: this.counts, stableUntil: this.stableUntil };
  }

  /** The combined calendar.ics: every calendar's entries, and removed events of calendars no one lists. */
  private async combinedIcs(events: ReadonlyMap<string, Iterable<EventRef>>, removedByCalendar: ReadonlyMap<string, FeedEvent[]>, removedCalendars: readonly Calendar[]): Promise<void> {
    const { ctx, calendars, spool, calendarFiles } = this.input;
    // What it takes from "now" (each calendar's share is in that calendar's fingerprint).
    const site = ownClock(this.input.site);
    const allIcs: IcsEntry[] = [];
    const calendarIcs: string[] = [];
    for (const cal of [...calendars, ...removedCalendars]) {
      const done = this.done.get(cal.id)!;
      liveEntries(events.get(cal.id) ?? [], site, allIcs);
      allIcs.push(...done.removed);
      calendarIcs.push(done.icsKey);
    }
    // Cancellations of a calendar history has no record of stay in it, in the site's zone.
    const rendered = new Set([...calendars, ...removedCalendars].map((c) => c.id));
    const unlisted: IcsEntry[] = [];
    for (const [calendarId, gone] of removedByCalendar) {
      if (!rendered.has(calendarId)) unlisted.push(...icsEntries(ctx, [], gone, site.timeZone, site));
    }
    allIcs.push(...unlisted);
    allIcs.sort(compareRefs);
    const key = combinedIcsKey(this.environment, this.calendarsJson, calendarIcs, unlisted.sort(compareRefs));
    const until = await calendarFiles.write('combined calendar.ics', key, [paths.site('calendar.ics')], async () => {
      await this.staging.writeChunks(paths.site('calendar.ics'), icsChunks(icsHeader(ctx, null, calendars, site), allIcs, spool));
      return site.clock.changesAt;
    });
    this.until(Math.min(until, site.clock.changesAt));
  }

  /** The combined feeds: the first feedLimit of the calendars' feed items. */
  private async combinedFeeds(): Promise<void> {
    const { spool, calendarFiles } = this.input;
    const { newest } = this;
    const selected = this.soonest.slice(0, Math.max(0, this.input.site.feedLimit));
    const files = [paths.site('rss.xml'), paths.site('atom.xml'), paths.site('feed.json')];
    const key = combinedFeedsKey(this.environment, this.calendarsJson, selected, newest, (ref) => spool.recordView(ref));
    const until = await calendarFiles.write('combined feeds', key, files, async () => {
      const site = ownClock(this.input.site);
      const input = { ...this.input, staging: this.staging };
      await stageFeeds(input, null, selected, feedDate(selected, newest), site, paths.site);
      return site.clock.changesAt;
    });
    this.until(until);
  }

  /** index.html: the soonest upcoming events, the calendars and categories and each one's upcoming count. */
  private async index(categories: readonly CategoryCount[]): Promise<void> {
    const { ctx, calendars, html, spool, calendarFiles } = this.input;
    const shown = this.soonest.slice(0, HOME_CANDIDATES);
    const upcoming = calendars.map((c) => this.upcoming.get(c.id) ?? 0);
    const key = indexKey(this.environment, this.calendarsJson, upcoming, categories, shown, (ref) => spool.recordView(ref));
    const until = await calendarFiles.write('index', key, [paths.site('index.html')], async () => {
      const site = ownClock(this.input.site);
      await this.staging.write(paths.site('index.html'), html.index(ctx, calendars, this.upcoming, spool.events(shown), categories, site));
      return site.clock.changesAt;
    });
    this.until(until);
  }

  /** search.json: the upcoming events of every listed calendar, by start, with their categories' names. */
  private async searchIndex(events: ReadonlyMap<string, Iterable<EventRef>>, names: ReadonlyMap<string, string>): Promise<void> {
    const { ctx, calendars, spool, calendarFiles } = this.input;
    const key = searchIndexKey(this.environment, this.calendarsJson, calendars.map((cal) => this.done.get(cal.id)!.eventsKey));
    const until = await calendarFiles.write('search index', key, [paths.site('search.json')], async () => {
      const site = ownClock(this.input.site);
      const listed = upcomingSpans(calendars, events, site);
      await this.staging.writeChunks(paths.site('search.json'), searchIndexChunks(ctx, calendars, batches(listed, spool), site, names));
      return site.clock.changesAt;
    });
    this.until(until);
  }
}

/** Events a batch of search.json is rendered from (read back from the spool one batch at a time). */
const SEARCH_BATCH = 500;

/** Where the upcoming events of every calendar are in the spool (spans()), by start; no refs held. */
function upcomingSpans(calendars: readonly Calendar[], events: ReadonlyMap<string, Iterable<EventRef>>, site: SiteContext): Float64Array {
  const refs: EventRef[] = [];
  for (const cal of calendars) for (const ref of events.get(cal.id) ?? []) if (isUpcomingRef(ref, site)) refs.push(ref);
  return spans(refs.sort(compareRefs));
}

/** The events at `pairs`, SEARCH_BATCH at a time. */
function* batches(pairs: Float64Array, spool: EventSpool): Generator<FeedEvent[]> {
  for (let i = 0; i < pairs.length; i += 2 * SEARCH_BATCH) {
    yield readSpans(spool.text, pairs.subarray(i, i + 2 * SEARCH_BATCH), (event) => event);
  }
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
