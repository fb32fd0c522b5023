// The home page's view (and the 404 page's): the soonest upcoming events of every calendar
// (featured ones first, then today, this week and later, by day in the site's zone), and the
// calendars with their counts and subscribe links. The build chooses the events; this arranges them.

import type { Calendar, FeedEvent, SiteContext } from '../../model.js';
import { absoluteUrl, paths } from '../../paths.js';
import type { RenderContext } from '../context.js';
import { eventDayKey, formatDay, formatLongWhen, safeZone, todayIn } from './format.js';
import { addDays } from '../../calendar-date.js';
import { relHref, safeHttpUrl, siteLinkViews, subscribeLinks } from './links.js';
import { categoryLinks, type CategoryCount } from './category.js';
import { item, type DayView, type EventItemView } from './days.js';
import type { PageText } from './messages.js';
import { description, page, scope, zoneOf, type Scope } from './view.js';
import { searchView } from './search.js';

/** Upcoming events the build hands the home page: the featured ones are looked for among them. */
export const HOME_CANDIDATES = 100;
/** Events the home page lists (besides the featured ones). */
export const HOME_EVENTS = 30;
/** Featured events shown first. */
export const HOME_FEATURED = 3;

export function indexView(ctx: RenderContext, calendarList: Calendar[], upcoming: ReadonlyMap<string, number>, events: readonly FeedEvent[], categories: readonly CategoryCount[], site: SiteContext, text: PageText) {
  const c = scope(ctx, site, text);
  const file = paths.site('index.html');
  const subscribe = subscribeLinks(site.siteUrl, null, site.title);
  const calendars = calendarList.map((cal) => {
    const count = upcoming.get(cal.id) ?? 0;
    return {
      title: cal.title,
      href: relHref(file, paths.calendar(cal.slug, 'index.html')),
      description: description(ctx, cal.description, safeHttpUrl(ctx, cal.url) ?? undefined),
      upcomingCount: count,
      upcomingOne: count === 1,
      subscribe: subscribeLinks(site.siteUrl, cal.slug, cal.title),
    };
  });
  return {
    page: page(c, file, site.title, subscribe, site.title, []),
    ...upcomingSections(c, calendarList, events, file),
    calendars,
    // Those with upcoming events; categories/index.html lists every one.
    categories: categoryLinks(c, categories.filter((entry) => entry.upcoming > 0), file),
    categoriesHref: relHref(file, paths.categoriesIndex()),
    subscribe,
    copyId: 'calfeed-url-all',
    search: searchView(file, null, text),
  };
}

/**
 * The featured events, then today's (in progress included), the rest of the week's and later ones
 * by day, in the site's zone; the page holds until the next midnight there.
 */
function upcomingSections(c: Scope, calendarList: readonly Calendar[], events: readonly FeedEvent[], file: string) {
  const { ctx, site } = c;
  const byId = new Map(calendarList.map((cal) => [cal.id, cal]));
  const zone = safeZone(ctx, site.timeZone);
  const today = todayIn(ctx, site.clock, zone);
  // Seven calendar days on, not now + 168 h: across a DST change that would move the week's end
  // off midnight, which is all todayIn() records until.
  const weekEnd = addDays(today, 7);
  const view = (e: FeedEvent): EventItemView | undefined => {
    const cal = byId.get(e.calendarId);
    if (!cal) return undefined;
    return { ...item(c, cal, e, zoneOf(ctx, cal, site), file, today), calendar: { title: cal.title, href: relHref(file, paths.calendar(cal.slug, 'index.html')) } };
  };
  const views = (list: readonly FeedEvent[]): EventItemView[] => list.flatMap((e) => view(e) ?? []);
  const listed = events.slice(0, HOME_EVENTS);
  const dayOf = (e: FeedEvent): string => eventDayKey(ctx, e.when, zone);
  const byDay = (list: readonly FeedEvent[]): DayView[] => {
    const days = new Map<string, FeedEvent[]>();
    for (const e of list) days.set(dayOf(e), [...(days.get(dayOf(e)) ?? []), e]);
    return [...days].map(([key, dayEvents]) => ({ key, label: formatDay(ctx, key, c.locale), events: views(dayEvents) }));
  };
  const week = listed.filter((e) => dayOf(e) > today && dayOf(e) < weekEnd);
  const later = listed.filter((e) => dayOf(e) >= weekEnd);
  return {
    // Listed apart from their day, so with their date.
    featured: events
      .filter((e) => e.featured && e.status !== 'cancelled')
      .slice(0, HOME_FEATURED)
      .flatMap((e) => {
        const v = view(e);
        return v ? [{ ...v, time: formatLongWhen(ctx, e.when, zoneOf(ctx, byId.get(e.calendarId)!, site), c.locale) }] : [];
      }),
    today: views(listed.filter((e) => dayOf(e) <= today)),
    thisWeek: byDay(week),
    later: byDay(later),
    hasUpcoming: listed.length > 0,
  };
}

/**
 * 404.html: hosts serve it for any missing URL, at that URL, so its links are absolute (from
 * --site-url) where the other pages' are relative.
 */
export function notFoundView(ctx: RenderContext, site: SiteContext, text: PageText) {
  const c = scope(ctx, site, text);
  const file = paths.site('404.html');
  const relative = page(c, file, text.t('notFound.title'), subscribeLinks(site.siteUrl, null, site.title), site.title, []);
  const absolute = (href: string): string => absoluteUrl(site.siteUrl, href);
  return {
    page: {
      ...relative,
      home: site.siteUrl,
      stylesheet: absolute(paths.site('style.css')),
      script: absolute(paths.site('page.js')),
      headerLinks: siteLinkViews(site.headerLinks, null, site.siteUrl),
      footerLinks: siteLinkViews(site.footerLinks, null, site.siteUrl),
    },
    calendars: absolute(paths.site('index.html')),
  };
}
