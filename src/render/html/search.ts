// Search without a server: search.json, the index page.js searches in the browser, and what the
// home and calendar pages give their search form. The index lists every upcoming event in start
// order with the few fields a result shows or is matched on, rendered in pieces from batches of
// events, so a big site never holds its index, or its events, whole.

import { isCancelled, type Calendar, type FeedEvent, type SiteContext } from '../../model.js';
import { categoryKey, categorySlug, paths } from '../../paths.js';
import type { RenderContext } from '../context.js';
import { cutText, stripControl, textSummary } from '../text.js';
import { relHref } from './links.js';
import type { Message, PageText } from './messages.js';
import { zoneOf } from './view.js';

/** The format of search.json; bumped when a field changes meaning (page.js checks it). */
export const SEARCH_INDEX_VERSION = 1;

/** The messages page.js shows around search results (given to it in the page, in the page's language). */
export const SEARCH_MESSAGES = ['search.loading', 'search.found', 'search.none', 'search.shown', 'search.error', 'list.allDay', 'status.cancelled'] as const;

/** Code points of a title or place in the index at most: a 100 KB title must not make every visitor download it. */
export const SEARCH_TEXT_MAX = 300;

/** What the search form of a page is given (see docs/templates.md). */
export interface SearchView {
  /** search.json, relative to the page. */
  index: string;
  /** The site's root folder, relative to the page (the index's URLs are relative to it). */
  root: string;
  /** The calendar a calendar page filters by at first (its slug and title); null on the home page. */
  calendar: { slug: string; title: string } | null;
  /** SEARCH_MESSAGES with their plural forms, as a JSON object, for page.js. */
  messages: string;
}

/**
 * The search form's data on the page at `file` (current: the calendar whose page it is); the rest
 * comes from the index, which page.js loads on first use, so pages do not grow with the site.
 */
export function searchView(file: string, current: Calendar | null, text: PageText): SearchView {
  const messages: Record<string, Message> = {};
  for (const key of SEARCH_MESSAGES) messages[key] = text.messages.get(key)!;
  return {
    index: relHref(file, paths.site('search.json')),
    root: relHref(file, './'),
    calendar: current && { slug: current.slug, title: current.title },
    messages: JSON.stringify(messages),
  };
}

/**
 * search.json as pieces: the calendars, each batch's events as given (the upcoming ones by start),
 * then the categories they named, numbered as the events refer to them.
 */
export function* searchIndexChunks(ctx: RenderContext, calendars: readonly Calendar[], batches: Iterable<readonly FeedEvent[]>, site: SiteContext, names: ReadonlyMap<string, string>): Generator<string> {
  const calendarIndex = new Map(calendars.map((cal, i) => [cal.id, i]));
  const calendarList = calendars.map((cal) => ({ slug: cal.slug, title: cal.title, timeZone: zoneOf(ctx, cal, site), url: paths.calendarDir(cal.slug) }));
  yield `{"version":${SEARCH_INDEX_VERSION},"calendars":${JSON.stringify(calendarList)},"events":[`;
  const categories = new Map<string, { n: number; name: string }>();
  let first = true;
  for (const batch of batches) {
    let piece = '';
    for (const e of batch) {
      const i = calendarIndex.get(e.calendarId);
      if (i === undefined) continue;
      piece += (first ? '' : ',') + JSON.stringify(searchEntry(ctx, calendars[i]!, i, e, categories, names));
      first = false;
    }
    if (piece !== '') yield piece;
  }
  const categoryList = [...categories].map(([key, { name }]) => ({ key, slug: categorySlug(key), name }));
  yield `],"categories":${JSON.stringify(categoryList)}}\n`;
}

/**
 * One event of search.json; its categories get numbers in `categories` as they are first named,
 * and the names their pages have (`names`, by key; else the event's spelling).
 */
function searchEntry(ctx: RenderContext, cal: Calendar, calendar: number, e: FeedEvent, categories: Map<string, { n: number; name: string }>, names: ReadonlyMap<string, string>) {
  const own = new Set<number>();
  for (const name of e.categories) {
    const key = categoryKey(name);
    if (key === '') continue;
    let category = categories.get(key);
    if (!category) categories.set(key, (category = { n: categories.size, name: names.get(key) ?? name.trim() }));
    own.add(category.n);
  }
  const when = e.when.kind === 'allDay' ? { start: e.when.startDate, end: e.when.endDate, allDay: true } : { start: iso(e.when.start), end: e.when.end === undefined ? null : iso(e.when.end), allDay: false };
  return {
    url: paths.eventPage(cal.slug, e.slug),
    title: indexText(e.title),
    ...when,
    calendar,
    categories: [...own],
    place: e.location?.text ? indexText(e.location.text) : null,
    description: textSummary(ctx, e.description) ?? null,
    cancelled: isCancelled(e),
  };
}

// As pages show it (without control characters), cut.
function indexText(text: string): string {
  return cutText(stripControl(text), SEARCH_TEXT_MAX);
}

// An instant the normalizer gave is finite; null rather than a throw for one that is not.
function iso(ms: number): string | null {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}
