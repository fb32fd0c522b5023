// View models: the plain data each template sees. Built here from the model, so templates (the
// built-in ones and users' overrides) get preformatted, already-safe values and nothing else: never
// the config, the token or a model object with a prototype.

import type { Calendar, CalendarEvent, FeedEvent, ListEvent, SiteContext } from '../../model.js';
import { isCancelled } from '../../model.js';
import { absoluteUrl, paths } from '../../paths.js';
import type { RenderContext } from '../context.js';
import { sanitizeHtml } from '../sanitize.js';
import { textSummary as summary } from '../text.js';
import {
  eventDayKey, eventSpan, formatDay, formatLongWhen, isoInZone, safeLocale, safeZone, splitPositions, todayIn,
} from './format.js';
import { eventJsonLd } from './jsonld.js';
import { relHref, safeHttpUrl, safeMailto, siteLinkViews, subscribeLinks, type SubscribeLinks } from './links.js';
import type { PageText } from './messages.js';
import { eventSource, groupPositions, item, SEGMENT, type EventSource } from './days.js';
import { eventCategoryLinks } from './category.js';
import { searchView } from './search.js';

export { allDays, type DayList, type EventSource } from './days.js';

/** Items the iframe widget lists before pointing to the calendar page. */
export const WIDGET_LIMIT = 20;

export interface PageView {
  /** The language of the page's text (its message catalog's). */
  lang: string;
  /** The locale dates are formatted in: the first of --locale, which may have no catalog. */
  locale: string;
  title: string;
  siteTitle: string;
  description: string | null;
  home: string;
  stylesheet: string;
  script: string;
  canonical: string;
  generator: string;
  /** --logo as an absolute URL, or null. */
  logo: string | null;
  /** --primary-color (#rgb or #rrggbb), or null. */
  primaryColor: string | null;
  crumbs: { label: string; href: string }[];
  /** --header-link and --footer-link: `[{ label, href }]`, hrefs as this page links them. */
  headerLinks: { label: string; href: string }[];
  footerLinks: { label: string; href: string }[];
  alternates: { type: string; title: string; href: string }[];
  /** An image for link previews (Open Graph): an event page's event image, else null. */
  image: string | null;
}

/** What every view of a build takes: its render context, its site, the locale dates use and the page text. */
export interface Scope {
  ctx: RenderContext;
  site: SiteContext;
  locale: string;
  text: PageText;
}

export function scope(ctx: RenderContext, site: SiteContext, text: PageText): Scope {
  return { ctx, site, locale: safeLocale(ctx, site.locale), text };
}

export function page(c: Scope, file: string, title: string, feeds: SubscribeLinks, feedName: string, crumbs: PageView['crumbs'], description?: string): PageView {
  return {
    lang: c.text.lang,
    locale: c.locale,
    title: siteTitled(title, c.site),
    siteTitle: c.site.title,
    description: description ?? null,
    home: relHref(file, paths.site('index.html')),
    stylesheet: relHref(file, paths.site('style.css')),
    script: relHref(file, paths.site('page.js')),
    canonical: absoluteUrl(c.site.siteUrl, file),
    generator: `calfeed ${c.site.version}`,
    logo: c.site.logo === undefined ? null : new URL(c.site.logo, c.site.siteUrl).href,
    primaryColor: c.site.primaryColor ?? null,
    crumbs,
    headerLinks: siteLinkViews(c.site.headerLinks, file, c.site.siteUrl),
    footerLinks: siteLinkViews(c.site.footerLinks, file, c.site.siteUrl),
    image: null,
    alternates: [
      { type: 'application/rss+xml', title: `${feedName} (RSS)`, href: feeds.rss },
      { type: 'application/atom+xml', title: `${feedName} (Atom)`, href: feeds.atom },
      { type: 'application/feed+json', title: `${feedName} (JSON Feed)`, href: feeds.json },
    ],
  };
}

/** A page's title ending with the site's name, but the home page's, which is the name. */
function siteTitled(title: string, site: SiteContext): string {
  return title === site.title ? title : `${title} · ${site.title}`;
}

export function zoneOf(ctx: RenderContext, cal: Calendar, site: SiteContext): string {
  return safeZone(ctx, cal.timeZone, safeZone(ctx, site.timeZone));
}

/** The instants a calendar's pages split an event at "now" by: upcoming while isUpcoming(span). */
export function pageSpan(ctx: RenderContext, cal: Calendar, e: CalendarEvent, site: SiteContext): { start: number; end: number } {
  return eventSpan(ctx, e.when, zoneOf(ctx, cal, site));
}

/**
 * "Today" on a calendar's index page, in its zone, under which events in progress are listed; with
 * pageSpan, all calendar pages take from "now". It holds until midnight.
 */
export function pageToday(ctx: RenderContext, cal: Calendar, site: SiteContext): string {
  return todayIn(ctx, site.clock, zoneOf(ctx, cal, site));
}

export function description(ctx: RenderContext, html: string | undefined, baseUrl: string | undefined): string | null {
  if (!html) return null;
  const clean = sanitizeHtml(ctx, html, baseUrl).trim();
  return clean === '' ? null : clean;
}

/** splitPositions of a source's events, and what the counts and day lists need of each (by position), read once in order. */
function splitSource(ctx: RenderContext, source: EventSource, zone: string, site: SiteContext) {
  const cancelled: boolean[] = [];
  const days: string[] = [];
  const noted = function* (): Generator<ListEvent> {
    for (const e of source) {
      cancelled.push(isCancelled(e));
      days.push(eventDayKey(ctx, e.when, zone));
      yield e;
    }
  };
  return { ...splitPositions(ctx, noted(), zone, site.clock), cancelled, days };
}

/**
 * Views of a calendar's index.html, past.html and widget.html, the index and past pages' days as
 * DayLists: events are read once in order, then a part at a time, so a source that reads them when
 * asked (the spool) never has them all in memory.
 */
export function calendarDayViews(ctx: RenderContext, cal: Calendar, events: readonly ListEvent[] | EventSource, site: SiteContext, text: PageText) {
  const c = scope(ctx, site, text);
  const zone = zoneOf(ctx, cal, site);
  const source = eventSource(events);
  const { upcoming, past, cancelled, days } = splitSource(ctx, source, zone, site);
  const dayList = (order: number[], file: string, today: string | null) =>
    groupPositions(c, days, today, (at) => source.read(at).map((e) => item(c, cal, e, zone, file, today)), order);
  const indexFile = paths.calendar(cal.slug, 'index.html');
  const pastFile = paths.calendar(cal.slug, 'past.html');
  const widgetFile = paths.calendar(cal.slug, 'widget.html');
  const subscribe = subscribeLinks(site.siteUrl, cal.slug, cal.title);
  const calendar = {
    title: cal.title,
    description: description(ctx, cal.description, safeHttpUrl(ctx, cal.url) ?? undefined),
    portalUrl: safeHttpUrl(ctx, cal.url),
    timeZone: zone,
    slug: cal.slug,
    removed: cal.removedAt !== undefined,
  };
  const embed = {
    widgetScript: absoluteUrl(site.siteUrl, paths.site('widget.js')),
    widgetPage: absoluteUrl(site.siteUrl, paths.calendar(cal.slug, 'widget.html')),
    // The frame's height messages come from here: the snippet's script accepts no other sender.
    origin: new URL(site.siteUrl).origin,
  };
  const back = [{ label: cal.title, href: relHref(pastFile, indexFile) }];
  const upcomingCount = upcoming.filter((i) => !cancelled[i]).length;
  return {
    index: {
      page: page(c, indexFile, cal.title, subscribe, cal.title, [], summary(ctx, cal.description)),
      calendar,
      subscribe,
      copyId: 'calfeed-url',
      embed,
      days: dayList(upcoming, indexFile, pageToday(ctx, cal, site)),
      upcomingCount,
      upcomingOne: upcomingCount === 1,
      pastHref: relHref(indexFile, pastFile),
      pastCount: past.length,
      search: searchView(indexFile, cal, text),
    },
    past: {
      page: page(c, pastFile, text.t('past.title', { title: cal.title }), subscribe, cal.title, back),
      calendar,
      days: dayList(past, pastFile, null),
      upcomingHref: relHref(pastFile, indexFile),
    },
    widget: {
      page: page(c, widgetFile, cal.title, subscribe, cal.title, []),
      calendar,
      events: source.read(upcoming.slice(0, WIDGET_LIMIT)).map((e) => ({
        ...item(c, cal, e, zone, widgetFile, null),
        day: formatDay(ctx, eventDayKey(ctx, e.when, zone), c.locale),
      })),
      more: upcoming.length > WIDGET_LIMIT,
      calendarHref: relHref(widgetFile, indexFile),
    },
  };
}

/**
 * What every event page of one calendar shares (links from its events/ folder, crumbs, heading):
 * built once per calendar, kept with its inputs, and rebuilt if any differs.
 */
export interface CalendarShared {
  /** What it was built from, each compared (===) before it is used again. */
  inputs: unknown[];
  zone: string;
  /** Base for the portal's relative links when the event has no URL of its own. */
  calendarBase: string | undefined;
  /** page() of an event page; each event sets its own title, canonical URL, description and image. */
  page: PageView;
  calendar: { title: string; href: string; timeZone: string };
}

// Keyed by slug, not by the Calendar object (one calendar may come as several). Past MAX_SHARED
// the cache starts over.
const MAX_SHARED = 4096;

function calendarShared(c: Scope, cal: Calendar): CalendarShared {
  const { ctx, site } = c;
  const links = site.headerLinks || site.footerLinks ? JSON.stringify([site.headerLinks, site.footerLinks]) : '';
  const inputs = [site.siteUrl, site.title, site.version, c.locale, c.text, site.timeZone, site.logo, site.primaryColor, links];
  inputs.push(cal.title, cal.timeZone, cal.url);
  const known = ctx.calendarShared.get(cal.slug);
  if (known && known.inputs.every((input, i) => input === inputs[i])) return known;
  // Every event page of the calendar is in this folder; a placeholder name stands for the event.
  const file = paths.eventPage(cal.slug, 'event');
  const indexHref = relHref(file, paths.calendar(cal.slug, 'index.html'));
  const zone = zoneOf(ctx, cal, site);
  const crumbs = [{ label: cal.title, href: indexHref }];
  const shared: CalendarShared = {
    inputs,
    zone,
    calendarBase: safeHttpUrl(ctx, cal.url) ?? undefined,
    page: page(c, file, '', subscribeLinks(site.siteUrl, cal.slug, cal.title), cal.title, crumbs),
    calendar: { title: cal.title, href: indexHref, timeZone: zone },
  };
  if (ctx.calendarShared.size >= MAX_SHARED) ctx.calendarShared.clear();
  ctx.calendarShared.set(cal.slug, shared);
  return shared;
}

/** View of one event's page. */
export function eventView(ctx: RenderContext, cal: Calendar, e: FeedEvent, site: SiteContext, text: PageText) {
  const c = scope(ctx, site, text);
  const file = paths.eventPage(cal.slug, e.slug);
  // The shared links are relative from the events/ folder: right for a slug that is one segment.
  const simple = SEGMENT.test(e.slug);
  const shared = simple ? calendarShared(c, cal) : undefined;
  const zone = shared ? shared.zone : zoneOf(ctx, cal, site);
  const indexFile = paths.calendar(cal.slug, 'index.html');
  const span = eventSpan(ctx, e.when, zone);
  const email = safeMailto(e.organizer?.email);
  const title = `${e.title} · ${cal.title}`;
  const portalUrl = safeHttpUrl(ctx, e.url);
  return {
    page: shared
      ? {
          ...shared.page,
          title: siteTitled(title, site),
          description: summary(ctx, e.description) ?? null,
          canonical: absoluteUrl(site.siteUrl, file),
          image: safeHttpUrl(ctx, e.image),
        }
      : { ...page(c, file, title, subscribeLinks(site.siteUrl, cal.slug, cal.title), cal.title, [{ label: cal.title, href: relHref(file, indexFile) }], summary(ctx, e.description)), image: safeHttpUrl(ctx, e.image) },
    calendar: shared ? shared.calendar : { title: cal.title, href: relHref(file, indexFile), timeZone: zone },
    event: {
      title: e.title,
      cancelled: isCancelled(e),
      removed: e.removedAt !== undefined,
      allDay: e.when.kind === 'allDay',
      when: formatLongWhen(ctx, e.when, zone, c.locale),
      datetime: e.when.kind === 'allDay' ? e.when.startDate : isoInZone(ctx, e.when.start, zone),
      // The visitor's-zone line is filled in by page.js from these instants.
      startIso: new Date(span.start).toISOString(),
      endIso: e.when.kind === 'timed' && e.when.end !== undefined ? new Date(e.when.end).toISOString() : '',
      endsAt: new Date(span.end).toISOString(), // page.js says "has ended" from then (all-day: the next midnight)
      location: e.location
        ? { name: e.location.name ?? null, address: e.location.address ?? null, text: e.location.text }
        : null,
      description: description(ctx, e.description, portalUrl ?? (shared ? shared.calendarBase : safeHttpUrl(ctx, cal.url) ?? undefined)),
      portalUrl,
      // The page and its .ics sit side by side.
      icsHref: simple ? `${e.slug}.ics` : relHref(file, paths.eventIcs(cal.slug, e.slug)),
      categories: eventCategoryLinks(e.categories, file),
      organizer: e.organizer?.name || email ? { name: e.organizer?.name ?? null, email: email ? e.organizer?.email ?? null : null, mailto: email } : null,
      image: safeHttpUrl(ctx, e.image),
    },
    jsonLd: eventJsonLd(ctx, cal, e, site.siteUrl, zone),
  };
}
