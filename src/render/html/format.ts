// Dates for people: which events are upcoming or past, which day they fall on in the calendar's
// zone, and how their time reads in the site's locale. Pure: "now" is always passed in, and Intl
// output depends only on its input (and the ICU data of the Node that runs the build).

import { DateTime, IANAZone } from 'luxon';
import type { EventWhen, FeedEvent } from '../../model.js';

// Checking a zone or locale builds an Intl object (tens of microseconds); a site has few of each
// and asks once per event, so the answers are remembered.
const validZones = new Map<string, boolean>();
function isZone(zone: string): boolean {
  let valid = validZones.get(zone);
  if (valid === undefined) {
    valid = IANAZone.isValidZone(zone);
    validZones.set(zone, valid);
  }
  return valid;
}

/** A zone Intl and luxon both accept: the given one, else the fallback, else UTC. */
export function safeZone(zone: string | undefined, fallback = 'UTC'): string {
  if (zone && isZone(zone)) return zone;
  return isZone(fallback) ? fallback : 'UTC';
}

const checkedLocales = new Map<string, string>();

/** The first locale of a list like "lt,en" that Intl accepts, else "en". */
export function safeLocale(locale: string | undefined): string {
  const key = locale ?? '';
  const known = checkedLocales.get(key);
  if (known !== undefined) return known;
  let result = 'en';
  for (const candidate of key.split(',').map((l) => l.trim())) {
    if (!candidate) continue;
    try {
      new Intl.DateTimeFormat(candidate);
      result = candidate;
      break;
    } catch {
      // Not a valid BCP 47 tag: try the next one.
    }
  }
  checkedLocales.set(key, result);
  return result;
}

// Building an Intl.DateTimeFormat costs far more than using one, and a big site formats hundreds of
// thousands of dates with a handful of distinct (locale, zone, style) triples.
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(locale: string, timeZone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}|${timeZone}|${JSON.stringify(options)}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, { ...options, timeZone });
    formatters.set(key, f);
  }
  return f;
}

const DAY_MS = 86_400_000;

/** Epoch ms of midnight starting an ISO date in a zone. */
function dayStart(isoDate: string, zone: string): number {
  return DateTime.fromISO(isoDate, { zone }).startOf('day').toMillis();
}

/** The instant range an event occupies; an all-day event runs to midnight after its last day. */
export function eventSpan(when: EventWhen, zone: string): { start: number; end: number } {
  if (when.kind === 'timed') return { start: when.start, end: when.end ?? when.start };
  const start = dayStart(when.startDate, zone);
  const end = DateTime.fromISO(when.endDate, { zone }).startOf('day').plus({ days: 1 }).toMillis();
  return { start, end: Number.isFinite(end) ? end : start + DAY_MS };
}

/**
 * Events split at "now" and ordered by start (all-day events before timed ones that start at the
 * same midnight; ties by title, then id, so the order never depends on the input's).
 */
export function splitByNow(events: FeedEvent[], zone: string, now: number): { upcoming: FeedEvent[]; past: FeedEvent[] } {
  // Spans are computed once per event: zone arithmetic is the costly part on a big calendar.
  const keyed = events.map((e) => {
    const span = eventSpan(e.when, zone);
    return { e, key: span.start - (e.when.kind === 'allDay' ? 0.5 : 0), upcoming: span.end > now || span.start >= now };
  });
  keyed.sort((a, b) => a.key - b.key || (a.e.title < b.e.title ? -1 : a.e.title > b.e.title ? 1 : 0) || (a.e.id < b.e.id ? -1 : a.e.id > b.e.id ? 1 : 0));
  return {
    upcoming: keyed.filter((k) => k.upcoming).map((k) => k.e),
    past: keyed.filter((k) => !k.upcoming).map((k) => k.e).reverse(),
  };
}

/** `YYYY-MM-DD` of an instant in a zone. */
export function dayKeyOf(ms: number, zone: string): string {
  // A cached Intl formatter is several times faster than a luxon DateTime per call.
  const parts = formatter('en-US', zone, { year: 'numeric', month: '2-digit', day: '2-digit', calendar: 'iso8601', numberingSystem: 'latn' }).formatToParts(ms);
  const part = (type: string): string => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year').padStart(4, '0')}-${part('month')}-${part('day')}`;
}

/** The day an event is listed under: its first day in the calendar's zone. */
export function eventDayKey(when: EventWhen, zone: string): string {
  return when.kind === 'allDay' ? when.startDate : dayKeyOf(when.start, zone);
}

/** A day heading such as "Wednesday, March 25, 2026" for a `YYYY-MM-DD` key. */
export function formatDay(dayKey: string, locale: string): string {
  const ms = Date.parse(`${dayKey}T00:00:00Z`);
  return formatter(locale, 'UTC', { dateStyle: 'full' }).format(Number.isFinite(ms) ? ms : 0);
}

/** Short time label for a list: "5:00 – 7:00 PM", "All day", or a range for multi-day events. */
export function formatListTime(when: EventWhen, zone: string, locale: string): string {
  if (when.kind === 'allDay') {
    if (when.startDate === when.endDate) return '';
    return formatDateRange(when.startDate, when.endDate, locale);
  }
  const end = when.end ?? when.start;
  const sameDay = dayKeyOf(when.start, zone) === dayKeyOf(end, zone);
  const options: Intl.DateTimeFormatOptions = sameDay
    ? { hour: 'numeric', minute: '2-digit' }
    : { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' };
  const f = formatter(locale, zone, options);
  return end > when.start ? f.formatRange(when.start, end) : f.format(when.start);
}

/** Full date-and-time label for an event page, in one zone. */
export function formatLongWhen(when: EventWhen, zone: string, locale: string): string {
  if (when.kind === 'allDay') return formatDateRange(when.startDate, when.endDate, locale, 'full');
  const f = formatter(locale, zone, { dateStyle: 'full', timeStyle: 'short' });
  const end = when.end ?? when.start;
  return end > when.start ? f.formatRange(when.start, end) : f.format(when.start);
}

/** A range of whole days ("April 6 – 8, 2026"); dates are calendar days, so format them in UTC. */
function formatDateRange(startDate: string, endDate: string, locale: string, style: 'long' | 'full' = 'long'): string {
  const start = Date.parse(`${startDate}T00:00:00Z`);
  const end = Date.parse(`${endDate}T00:00:00Z`);
  const f = formatter(locale, 'UTC', { dateStyle: style });
  if (!Number.isFinite(start)) return startDate;
  return Number.isFinite(end) && end > start ? f.formatRange(start, end) : f.format(start);
}

/** ISO 8601 for `<time datetime>` and JSON-LD: dates stay dates, instants carry the zone's offset. */
export function isoInZone(ms: number, zone: string): string {
  return DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true }) ?? new Date(ms).toISOString();
}
