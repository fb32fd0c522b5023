// When an event starts and ends as instants, and how their dates read in a locale. iCalendar and
// the syndication feeds both use these, so a feed and a calendar agree on which events are upcoming.

import { DateTime } from 'luxon';
import { addDays } from '../../calendar-date.js';
import type { Calendar, CalendarEvent, SiteContext } from '../../model.js';
import { remember, type RenderContext } from '../context.js';
import { wallRangeFormatter } from '../range.js';
import { isZone, wallMs } from '../zone.js';

/** The IANA zone each event is shown in (its calendar's, else the site default), as a map lookup. */
export function zoneLookup(calendars: Calendar[], site: SiteContext): (event: CalendarEvent) => string {
  const zones = new Map(calendars.map((c) => [c.id, c.timeZone]));
  return (event) => zones.get(event.calendarId) ?? site.timeZone;
}

/** Midnight starting a `YYYY-MM-DD` day in a zone, epoch ms (remembered: all-day events share few dates). */
function dayStart(ctx: RenderContext, date: string, zone: string): number {
  return remember(ctx.feedMidnights, date + ' ' + zone, 50_000, () => {
    const dt = DateTime.fromISO(date, { zone });
    // An unknown zone was rejected by configuration; UTC keeps rendering total rather than NaN.
    return (dt.isValid ? dt : DateTime.fromISO(date, { zone: 'utc' })).toMillis();
  });
}

/** Start instant, epoch ms (all-day events start at midnight in their zone). */
export function eventStartMs(ctx: RenderContext, event: CalendarEvent, zone: string): number {
  return event.when.kind === 'timed' ? event.when.start : dayStart(ctx, event.when.startDate, zone);
}

/**
 * End instant, epoch ms, exclusive: an all-day event ends at midnight after its last day; a timed
 * event without an end is an instant (RFC 5545 3.6.1: no DTEND means it ends when it starts).
 */
export function eventEndMs(ctx: RenderContext, event: CalendarEvent, zone: string): number {
  if (event.when.kind === 'timed') return event.when.end ?? event.when.start;
  return dayStart(ctx, addDays(event.when.endDate, 1), zone);
}

/** A remembered Intl formatter; an invalid locale or zone falls back to en / UTC instead of throwing. */
function formatter(ctx: RenderContext, locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  return remember(ctx.feedFormatters, locale + JSON.stringify(options), Infinity, () => {
    try {
      return new Intl.DateTimeFormat(locale, options);
    } catch {
      return new Intl.DateTimeFormat('en', { ...options, timeZone: options.timeZone && isZone(ctx, options.timeZone) ? options.timeZone : 'UTC' });
    }
  });
}

// Labels are remembered per input (ctx.feedLabels): an event is labelled in several feeds.

const DATE: Intl.DateTimeFormatOptions = { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' };
const TIME: Intl.DateTimeFormatOptions = { hour: 'numeric', minute: '2-digit' };

/** Noon UTC of a `YYYY-MM-DD` date: formatted in UTC it is that date whatever the locale. */
function dateOnly(date: string): Date {
  return new Date(`${date}T12:00:00Z`);
}

/** The date (and start time) that leads an item title, e.g. "Wed, Mar 25, 2026, 5:00 PM"; all-day events show their date range. */
export function formatWhenShort(ctx: RenderContext, event: CalendarEvent, locale: string, zone: string): string {
  const when = event.when;
  if (when.kind === 'allDay') {
    return ctx.feedLabels.get(`days|${locale}|${when.startDate}|${when.endDate}`, () =>
      formatter(ctx, locale, { ...DATE, timeZone: 'UTC' }).formatRange(dateOnly(when.startDate), dateOnly(when.endDate)),
    );
  }
  return ctx.feedLabels.get(`short|${locale}|${zone}|${when.start}`, () => formatter(ctx, locale, { ...DATE, ...TIME, timeZone: zone }).format(new Date(when.start)));
}

/** The full time span for an item body, with the zone named, e.g. "Wed, Mar 25, 2026, 5:00 – 7:00 PM (Europe/Vilnius)". */
export function formatWhenLong(ctx: RenderContext, event: CalendarEvent, locale: string, zone: string): string {
  if (event.when.kind === 'allDay') return formatWhenShort(ctx, event, locale, zone);
  const { start, end } = event.when;
  if (end !== undefined && end > start && isZone(ctx, zone)) {
    // Wall-clock fields only: the two wall times formatted in UTC, composing same-day ranges
    // (../range.ts). A zone Intl does not know makes formatter() fall back to English: left below.
    const from = wallMs(ctx, zone, start);
    const to = wallMs(ctx, zone, end);
    if (from && to && to.wall >= from.wall) {
      return `${wallRangeFormatter(ctx, formatter(ctx, locale, { ...DATE, ...TIME, timeZone: 'UTC' })).formatRange(from.wall, to.wall)} (${zone})`;
    }
  }
  return ctx.feedLabels.get(`long|${locale}|${zone}|${start}|${end}`, () => {
    const f = formatter(ctx, locale, { ...DATE, ...TIME, timeZone: zone });
    const span = end !== undefined && end > start ? f.formatRange(new Date(start), new Date(end)) : f.format(new Date(start));
    return `${span} (${zone})`;
  });
}
