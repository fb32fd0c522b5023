// Dates for people: which events are upcoming or past, which day they fall on in the calendar's
// zone, and how their time reads in the site's locale. Pure: "now" is always passed in, and Intl
// output depends only on its input (and the ICU data of the Node that runs the build).

import { DateTime } from 'luxon';
import type { EventWhen, FeedEvent } from '../../model.js';
import { holdsUntil, reached, type Clock } from '../clock.js';
import { remember, type RenderContext } from '../context.js';
import { wallRangeFormatter } from '../range.js';
import { isUniversalZone, isZone, wallMs } from '../zone.js';

// Checking a locale builds an Intl object, asked once per event: answers are remembered (ctx.pageLocales).

/** A zone Intl and luxon both accept: the given one, else the fallback, else UTC. */
export function safeZone(ctx: RenderContext, zone: string | undefined, fallback = 'UTC'): string {
  if (zone && isZone(ctx, zone)) return zone;
  return isZone(ctx, fallback) ? fallback : 'UTC';
}

/** The first locale of a list like "lt,en" that Intl accepts, else "en". */
export function safeLocale(ctx: RenderContext, locale: string | undefined): string {
  return remember(ctx.pageLocales, locale ?? '', 1000, firstValidLocale);
}

function firstValidLocale(list: string): string {
  for (const candidate of list.split(',').map((l) => l.trim())) {
    if (!candidate) continue;
    try {
      new Intl.DateTimeFormat(candidate);
      return candidate;
    } catch {
      // Not a valid BCP 47 tag: try the next one.
    }
  }
  return 'en';
}

// Building an Intl.DateTimeFormat costs far more than using one, and a site has few (locale, zone,
// style) triples. Styles are the constant objects below, so keyed by identity, then locale and zone.
function formatter(ctx: RenderContext, locale: string, timeZone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  let byPlace = ctx.pageFormatters.get(options);
  if (!byPlace) ctx.pageFormatters.set(options, (byPlace = new Map()));
  const make = (): Intl.DateTimeFormat => new Intl.DateTimeFormat(locale, { ...options, timeZone });
  return remember(byPlace, `${locale}|${timeZone}`, Infinity, make);
}

const DAY_KEY: Intl.DateTimeFormatOptions = { year: 'numeric', month: '2-digit', day: '2-digit', calendar: 'iso8601', numberingSystem: 'latn' };
const DAY_FULL: Intl.DateTimeFormatOptions = { dateStyle: 'full' };
const DATE_LONG: Intl.DateTimeFormatOptions = { dateStyle: 'long' };
const TIME_SAME_DAY: Intl.DateTimeFormatOptions = { hour: 'numeric', minute: '2-digit' };
const TIME_MULTI_DAY: Intl.DateTimeFormatOptions = { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' };
const LONG_WHEN: Intl.DateTimeFormatOptions = { dateStyle: 'full', timeStyle: 'short' };

// Labels are remembered per input (ctx.pageLabels): events repeat the same times and days.
const DAY_MS = 86_400_000;

// All-day events share few distinct dates, each converted for the list, the page and the JSON-LD:
// midnights are remembered per zone and date (bounded, as dates come from portal data).
function midnight(cache: Map<string, Map<string, number>>, zone: string, isoDate: string, end: boolean): number {
  return remember(remember(cache, zone, 1000, () => new Map()), isoDate, 50_000, () => {
    const midnight = DateTime.fromISO(isoDate, { zone }).startOf('day');
    return (end ? midnight.plus({ days: 1 }) : midnight).toMillis();
  });
}

/** The instant range an event occupies; an all-day event runs to midnight after its last day. */
export function eventSpan(ctx: RenderContext, when: EventWhen, zone: string): { start: number; end: number } {
  if (when.kind === 'timed') return { start: when.start, end: when.end ?? when.start };
  const start = midnight(ctx.dayStarts, zone, when.startDate, false);
  // NaN when the date does not parse.
  const end = midnight(ctx.dayEnds, zone, when.endDate, true);
  return { start, end: Number.isFinite(end) ? end : start + DAY_MS };
}

/**
 * Positions in `events` split at "now" and ordered by start (all-day events before timed ones that
 * start at the same midnight; ties by title, then id, so the order never depends on the input's),
 * read once each in order: what the order needs is kept, not the events.
 */
export function splitPositions(ctx: RenderContext, events: Iterable<Pick<FeedEvent, 'when' | 'title' | 'id'>>, zone: string, clock: Clock): { upcoming: number[]; past: number[] } {
  // Spans are computed once per event: zone arithmetic is the costly part on a big calendar.
  const keyed: Array<{ i: number; key: number; upcoming: boolean; title: string; id: string }> = [];
  for (const e of events) {
    const span = eventSpan(ctx, e.when, zone);
    keyed.push({ i: keyed.length, key: span.start - (e.when.kind === 'allDay' ? 0.5 : 0), upcoming: isUpcoming(span, clock), title: e.title, id: e.id });
  }
  keyed.sort((a, b) => a.key - b.key || (a.title < b.title ? -1 : a.title > b.title ? 1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    upcoming: keyed.filter((k) => k.upcoming).map((k) => k.i),
    past: keyed.filter((k) => !k.upcoming).map((k) => k.i).reverse(),
  };
}

/**
 * Whether a calendar page lists an event with this span (eventSpan) as upcoming now: it has not
 * ended, or (no end) not started. The build reads it too, for index.html's counts.
 */
export function isUpcoming(span: { start: number; end: number }, clock: Clock): boolean {
  // Upcoming while now < end or now <= start: until both are false.
  return !reached(clock, Math.max(span.end, span.start + 1));
}

/**
 * The next midnight after `now` in `zone`, found by halving the next two days with dayKeyOf itself,
 * so it agrees with it across DST changes and odd zones.
 */
export function nextDayKeyAt(ctx: RenderContext, now: number, zone: string): number {
  const today = dayKeyOf(ctx, now, zone);
  let lo = now; // same day
  let hi = now + 2 * 86_400_000; // another day
  if (dayKeyOf(ctx, hi, zone) === today) return now; // cannot happen; "changes now" is the safe answer
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (dayKeyOf(ctx, mid, zone) === today) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** `YYYY-MM-DD` of now in a zone, an answer that holds until the next midnight there. */
export function todayIn(ctx: RenderContext, clock: Clock, zone: string): string {
  holdsUntil(clock, nextDayKeyAt(ctx, clock.now, zone));
  return dayKeyOf(ctx, clock.now, zone);
}

/** `YYYY-MM-DD` of an instant in a zone. */
export function dayKeyOf(ctx: RenderContext, ms: number, zone: string): string {
  // The wall date from the zone's (remembered) offset; Intl for years outside 1900-9999.
  const local = wallMs(ctx, zone, ms);
  if (local) {
    const d = new Date(local.wall);
    return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
  }
  const parts = formatter(ctx, 'en-US', zone, DAY_KEY).formatToParts(ms);
  const part = (type: string): string => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year').padStart(4, '0')}-${part('month')}-${part('day')}`;
}

/** The day an event is listed under: its first day in the calendar's zone. */
export function eventDayKey(ctx: RenderContext, when: EventWhen, zone: string): string {
  return when.kind === 'allDay' ? when.startDate : dayKeyOf(ctx, when.start, zone);
}

/** A day heading such as "Wednesday, March 25, 2026" for a `YYYY-MM-DD` key. */
export function formatDay(ctx: RenderContext, dayKey: string, locale: string): string {
  return ctx.pageLabels.get(`day|${locale}|${dayKey}`, () => {
    const ms = Date.parse(`${dayKey}T00:00:00Z`);
    return formatter(ctx, locale, 'UTC', DAY_FULL).format(Number.isFinite(ms) ? ms : 0);
  });
}

/** Short time label for a list: "5:00 – 7:00 PM", "All day", or a range for multi-day events. */
export function formatListTime(ctx: RenderContext, when: EventWhen, zone: string, locale: string): string {
  if (when.kind === 'allDay') {
    if (when.startDate === when.endDate) return '';
    return formatDateRange(ctx, when.startDate, when.endDate, locale);
  }
  const end = when.end ?? when.start;
  const start = when.start;
  const sameDay = dayKeyOf(ctx, start, zone) === dayKeyOf(ctx, end, zone);
  if (sameDay) {
    // Made from the two wall times on one UTC day, so shared by every event at those times in any
    // zone; not when the end's wall time is before the start's (an hour repeated when clocks go back).
    const from = wallMs(ctx, zone, start);
    const to = wallMs(ctx, zone, end);
    if (from && to && to.wall >= from.wall) {
      const a = ((from.wall % DAY_MS) + DAY_MS) % DAY_MS;
      const b = a + (to.wall - from.wall);
      return ctx.pageLabels.get(`time|${locale}|${a}|${b}|${end > start}`, () => {
        const f = formatter(ctx, locale, 'UTC', TIME_SAME_DAY);
        return end > start ? f.formatRange(a, b) : f.format(a);
      });
    }
  }
  const f = formatter(ctx, locale, zone, sameDay ? TIME_SAME_DAY : TIME_MULTI_DAY);
  return ctx.pageLabels.get(`list|${locale}|${zone}|${sameDay}|${start}|${end}`, () => (end > start ? f.formatRange(start, end) : f.format(start)));
}

/** Full date-and-time label for an event page, in one zone. */
export function formatLongWhen(ctx: RenderContext, when: EventWhen, zone: string, locale: string): string {
  if (when.kind === 'allDay') return formatDateRange(ctx, when.startDate, when.endDate, locale, 'full');
  const start = when.start;
  const end = when.end ?? start;
  // Wall-clock fields only, so made from the two wall times placed in UTC, where same-day ranges
  // compose from remembered parts (../range.ts); not when the end's wall time is before the start's.
  const from = wallMs(ctx, zone, start);
  const to = end === start ? from : wallMs(ctx, zone, end);
  if (from && to && to.wall >= from.wall) {
    const f = formatter(ctx, locale, 'UTC', LONG_WHEN);
    // Nearly every event's label is new (its own day and times), so the composing formatter, not
    // the label memo, is what saves ICU's formatRange here.
    if (end > start) return wallRangeFormatter(ctx, f).formatRange(from.wall, to.wall);
    return ctx.pageLabels.get(`long|${locale}|${from.wall}`, () => f.format(from.wall));
  }
  const f = formatter(ctx, locale, zone, LONG_WHEN);
  return ctx.pageLabels.get(`long|${locale}|${zone}|${start}|${end}`, () => (end > start ? f.formatRange(start, end) : f.format(start)));
}

/** A range of whole days ("April 6 – 8, 2026"); dates are calendar days, so format them in UTC. */
function formatDateRange(ctx: RenderContext, startDate: string, endDate: string, locale: string, style: 'long' | 'full' = 'long'): string {
  const start = Date.parse(`${startDate}T00:00:00Z`);
  const end = Date.parse(`${endDate}T00:00:00Z`);
  const f = formatter(ctx, locale, 'UTC', style === 'full' ? DAY_FULL : DATE_LONG);
  if (!Number.isFinite(start)) return startDate;
  return ctx.pageLabels.get(`range|${locale}|${style}|${start}|${end}`, () => (Number.isFinite(end) && end > start ? f.formatRange(start, end) : f.format(start)));
}

/** ISO 8601 for `<time datetime>` and JSON-LD: dates stay dates, instants carry the zone's offset. */
export function isoInZone(ctx: RenderContext, ms: number, zone: string): string {
  // What luxon's toISO({ suppressMilliseconds: true }) writes, from the remembered offset.
  const local = wallMs(ctx, zone, ms);
  if (local) {
    // YYYY-MM-DDTHH:mm:ss, and .sss when there are milliseconds (these years have four digits).
    const d = new Date(local.wall);
    const milliseconds = d.getUTCMilliseconds();
    const head =
      `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}T${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}` +
      (milliseconds === 0 ? '' : milliseconds < 10 ? `.00${milliseconds}` : milliseconds < 100 ? `.0${milliseconds}` : `.${milliseconds}`);
    const { offset } = local;
    if (offset === 0 && isUniversalZone(ctx, zone)) return `${head}Z`;
    const abs = Math.abs(offset);
    return `${head}${offset < 0 ? '-' : '+'}${pad2(Math.trunc(abs / 60))}:${pad2(abs % 60)}`;
  }
  return DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true }) ?? new Date(ms).toISOString();
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));
