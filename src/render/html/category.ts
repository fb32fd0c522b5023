// Views of the category pages: a category's upcoming events from every calendar by day in the
// site's zone (each with its calendar's time and name), and the list of every category with its
// count. The build chooses the events; this arranges them.

import type { Calendar, Category, ListEvent, SiteContext } from '../../model.js';
import { categoryKey, categorySlug, paths } from '../../paths.js';
import type { RenderContext } from '../context.js';
import { eventSource, item, groupPositions, type DayList, type EventSource } from './days.js';
import { eventDayKey, safeZone, todayIn } from './format.js';
import { relHref, subscribeLinks } from './links.js';
import type { PageText } from './messages.js';
import { page, scope, zoneOf, type Scope } from './view.js';

/** A category with its count of upcoming events that are not cancelled. */
export interface CategoryCount {
  category: Category;
  upcoming: number;
}

/** A category as the home page and categories/index.html list it. */
export interface CategoryLinkView {
  name: string;
  href: string;
  upcomingCount: number;
}

/** The view of categories/{slug}/index.html, its days as a DayList (made a part at a time). */
export function categoryDayView(ctx: RenderContext, category: Category, calendars: readonly Calendar[], events: readonly ListEvent[] | EventSource, upcomingCount: number, site: SiteContext, text: PageText) {
  const c = scope(ctx, site, text);
  const file = paths.category(category.slug, 'index.html');
  const listHref = relHref(file, paths.categoriesIndex());
  const subscribe = subscribeLinks(site.siteUrl, category.slug, category.name, 'category');
  return {
    page: page(c, file, category.name, subscribe, category.name, [{ label: text.t('categories.title'), href: listHref }]),
    category: { name: category.name, slug: category.slug },
    subscribe,
    copyId: 'calfeed-url',
    days: categoryDays(c, calendars, events, file),
    upcomingCount,
    categoriesHref: listHref,
  };
}

/**
 * A category's events by day in the site's zone (in progress: under today), each with its time in
 * its calendar's zone and a link to its calendar. The page holds until the next midnight. The
 * events are read twice, once for their days and once a part at a time for their views, so a
 * source that reads them when asked never holds them all.
 */
function categoryDays(c: Scope, calendars: readonly Calendar[], events: readonly ListEvent[] | EventSource, file: string): DayList {
  const { ctx, site } = c;
  const byId = new Map(calendars.map((cal) => [cal.id, cal]));
  const zone = safeZone(ctx, site.timeZone);
  const today = todayIn(ctx, site.clock, zone);
  const source = eventSource(events);
  // In day order: events of calendars in other zones start their days at other instants.
  const known: Array<{ i: number; day: string }> = [];
  let i = 0;
  for (const e of source) {
    if (byId.has(e.calendarId)) known.push({ i, day: eventDayKey(ctx, e.when, zone) });
    i++;
  }
  known.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.i - b.i));
  return groupPositions(c, known.map(({ day }) => day), today, (at) => source.read(at.map((k) => known[k]!.i)).map((e) => {
    const cal = byId.get(e.calendarId)!;
    return { ...item(c, cal, e, zoneOf(ctx, cal, site), file, today), calendar: { title: cal.title, href: relHref(file, paths.calendar(cal.slug, 'index.html')) } };
  }));
}

/** The view of categories/index.html: every category with its upcoming count, by name. */
export function categoriesView(ctx: RenderContext, counts: readonly CategoryCount[], site: SiteContext, text: PageText) {
  const c = scope(ctx, site, text);
  const file = paths.categoriesIndex();
  return {
    page: page(c, file, text.t('categories.title'), subscribeLinks(site.siteUrl, null, site.title), site.title, []),
    categories: categoryLinks(c, counts, file),
  };
}

/** Categories as links from `file`, with their counts, sorted by name in the page's locale. */
export function categoryLinks(c: Scope, counts: readonly CategoryCount[], file: string): CategoryLinkView[] {
  const collator = new Intl.Collator(c.locale);
  return [...counts]
    .sort((a, b) => collator.compare(a.category.name, b.category.name) || (a.category.key < b.category.key ? -1 : a.category.key > b.category.key ? 1 : 0))
    .map(({ category, upcoming }) => ({ name: category.name, href: relHref(file, paths.category(category.slug, 'index.html')), upcomingCount: upcoming }));
}

/** An event's categories as links from `file` (its page), each category once, in the event's spelling. */
export function eventCategoryLinks(categories: readonly string[], file: string): Array<{ name: string; href: string }> {
  const seen = new Set<string>();
  const links: Array<{ name: string; href: string }> = [];
  for (const name of categories) {
    const key = categoryKey(name);
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    links.push({ name, href: relHref(file, paths.category(categorySlug(key), 'index.html')) });
  }
  return links;
}
