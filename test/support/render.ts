// A whole site model rendered at once from the renderers' own pieces: what the build renders piecewise
// from its spool (choosing events from refs), done here from FeedEvents, so tests can check the
// renderers' output, and the build's, against one simple composition.

import { eventStamp, isCancelled, type Calendar, type CalendarEvent, type FeedEvent, type ListEvent, type SiteContext, type SiteModel } from '../../src/model.js';
import type { RenderContext } from '../../src/render/context.js';
import { splitPositions } from '../../src/render/html/format.js';
import { HOME_CANDIDATES } from '../../src/render/html/home.js';
import type { HtmlRenderer } from '../../src/render/html/index.js';
import type { PageText } from '../../src/render/html/messages.js';
import { compileTemplates, readTemplates, type TemplateSet } from '../../src/render/html/templates.js';
import { allDays, calendarDayViews, zoneOf } from '../../src/render/html/view.js';
import type { Clock } from '../../src/render/clock.js';
import { ICS_FOOTER, icsHeader, inIcalWindow, veventText } from '../../src/render/ical/index.js';
import { inFeedWindow, itemsRenderer, renderFeeds, type SyndicationFeeds } from '../../src/render/syndication/index.js';
import { eventEndMs, eventStartMs, zoneLookup } from '../../src/render/syndication/when.js';

/** Code-unit order: locale-independent, so every machine sorts the same way. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Events ordered by start, then calendar id, then event id, so output never depends on input order
 * (the order the build's spool gives its refs).
 */
export function sortByStart<E extends CalendarEvent>(ctx: RenderContext, events: E[], zone: (e: E) => string): E[] {
  return events
    .map((event) => ({ event, start: eventStartMs(ctx, event, zone(event)) }))
    .sort(
      (a, b) =>
        a.start - b.start ||
        compareStrings(a.event.calendarId, b.event.calendarId) ||
        compareStrings(a.event.id, b.event.id),
    )
    .map(({ event }) => event);
}

/** Upcoming events for the feeds: not ended at site.now, not removed, by start then id, at most feedLimit. */
export function selectFeedEvents(ctx: RenderContext, events: FeedEvent[], calendars: Calendar[], site: SiteContext): FeedEvent[] {
  const zone = zoneLookup(calendars, site);
  const upcoming = events.filter((e) => e.removedAt === undefined && inFeedWindow(eventEndMs(ctx, e, zone(e)), site));
  return sortByStart(ctx, upcoming, zone).slice(0, Math.max(0, site.feedLimit));
}

/** Newest eventStamp of some events (the epoch for none): a feed's date when it has no items. */
export function newestStamp(events: Iterable<FeedEvent>): number {
  let max = 0;
  for (const e of events) max = Math.max(max, eventStamp(e));
  return max;
}

/** RSS, Atom and JSON Feed for one calendar (cal given) or all calendars (cal null), each as one string. */
export function renderSyndication(ctx: RenderContext, cal: Calendar | null, calendars: Calendar[], events: FeedEvent[], site: SiteContext, text: PageText): FeedTexts {
  const selected = selectFeedEvents(ctx, events, calendars, site);
  const items = selected.map(itemsRenderer(ctx, calendars, site, text));
  return feedTexts(renderFeeds(ctx, cal, calendars, items, newestStamp(selected.length ? selected : events), site, text));
}

export interface FeedTexts {
  rss: string;
  atom: string;
  json: string;
}

/** Feeds as renderFeeds gives them (pieces), each joined into the text of its file. */
export function feedTexts(feeds: SyndicationFeeds): FeedTexts {
  return { rss: feeds.rss.join(''), atom: feeds.atom.join(''), json: feeds.json.join('') };
}

/** calendar.ics for one calendar (cal given) or all calendars combined (cal null; title = site.title). Events outside the window (ended more than site.icalPastDays days before site.now) are left out; removed events (removedAt) and cancelled ones are STATUS:CANCELLED. */
export function renderIcs(ctx: RenderContext, cal: Calendar | null, calendars: Calendar[], events: FeedEvent[], site: SiteContext): string {
  const zone = zoneLookup(calendars, site);
  const inWindow = events.filter((e) => inIcalWindow(eventEndMs(ctx, e, zone(e)), site));
  let out = icsHeader(ctx, cal, calendars, site);
  for (const event of sortByStart(ctx, inWindow, zone)) out += veventText(ctx, event, site);
  return out + ICS_FOOTER;
}

/**
 * Events split at "now" and ordered by start (all-day events before timed ones that start at the
 * same midnight; ties by title, then id): splitPositions' positions as the events.
 */
export function splitByNow<E extends Pick<FeedEvent, 'when' | 'title' | 'id'>>(ctx: RenderContext, events: readonly E[], zone: string, clock: Clock): { upcoming: E[]; past: E[] } {
  const { upcoming, past } = splitPositions(ctx, events, zone, clock);
  return { upcoming: upcoming.map((i) => events[i]!), past: past.map((i) => events[i]!) };
}

/** Upcoming events of a calendar that are not cancelled: the count index.html shows for it. */
export function upcomingCount(ctx: RenderContext, cal: Calendar, events: FeedEvent[], site: SiteContext): number {
  return splitByNow(ctx, events, zoneOf(ctx, cal, site), site.clock).upcoming.filter((e) => !isCancelled(e)).length;
}

/** Every calendar's upcomingCount, the input of index.html. */
export function upcomingCounts(ctx: RenderContext, model: SiteModel, site: SiteContext): Map<string, number> {
  return new Map(model.calendars.map((cal) => [cal.id, upcomingCount(ctx, cal, model.events.get(cal.id) ?? [], site)]));
}

/** The events index.html lists, from a whole model: the build picks the same from its spool. */
export function homeEvents(ctx: RenderContext, model: SiteModel, site: SiteContext): FeedEvent[] {
  return selectFeedEvents(ctx, [...model.events.values()].flat(), model.calendars, { ...site, feedLimit: HOME_CANDIDATES });
}

/** Views of a calendar's index.html, past.html and widget.html, every day of each list at once. */
export function calendarViews(ctx: RenderContext, cal: Calendar, events: readonly ListEvent[], site: SiteContext, text: PageText) {
  const views = calendarDayViews(ctx, cal, events, site, text);
  return { ...views, index: { ...views.index, days: allDays(views.index.days) }, past: { ...views.past, days: allDays(views.past.days) } };
}

/** Load built-in templates overlaid by userDir, compile them all, and return the page renderer. */
export async function loadTemplates(userDir?: string): Promise<TemplateSet> {
  return compileTemplates(await readTemplates(userDir));
}

/** A calendar's index.html, past.html and widget.html whole: html.calendarPieces joined. */
export function calendarPages(html: HtmlRenderer, ctx: RenderContext, cal: Calendar, events: readonly ListEvent[], site: SiteContext): { index: string; past: string; widget: string } {
  const pieces = html.calendarPieces(ctx, cal, events, site);
  return { index: [...pieces.index].join(''), past: [...pieces.past].join(''), widget: pieces.widget };
}
