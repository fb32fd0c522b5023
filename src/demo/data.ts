// The demo portal's own model of its data, independent of any dialect. Dialects (src/demo/dialects.ts)
// serialize it; the curated, scale and hostile sets build it. Everything here is pure: dates come
// from an anchor day passed in, randomness from a seeded PRNG, so one day's data is always the same bytes.

import { DateTime } from 'luxon';

/** The zone of the demo portal: wall times without an offset (multilingual dialect) are read here. */
export const DEMO_TIME_ZONE = 'Europe/Vilnius';

export const DAY_MS = 86_400_000;

export interface DemoCalendar {
  /** A number or a string, as portals do both; URLs use String(id). */
  id: string | number;
  title: string;
  titleLt: string;
  description: string;
  descriptionLt: string;
  timeZone: string;
  url: string;
}

export type DemoWhen =
  | { kind: 'timed'; start: number; end?: number }
  /** Dates are `YYYY-MM-DD`; endDate is inclusive, as portals usually show it. */
  | { kind: 'allDay'; startDate: string; endDate: string };

export type DemoLocation = string | { name: string; address: string };

export interface DemoEvent {
  id: string | number;
  calendarId: string | number;
  title: string;
  titleLt: string;
  /** HTML. */
  description?: string;
  descriptionLt?: string;
  when: DemoWhen;
  location?: DemoLocation;
  cancelled: boolean;
  /** Epoch ms, whole seconds (HTTP dates have second precision). */
  updatedAt: number;
  url: string;
  categories: string[];
  organizer?: { name: string; email?: string };
  image?: string;
  /** Shown first on the home page (each dialect names it its own way). */
  featured?: boolean;
  /** Fields only the details carry, beyond the usual ones (realism: details are richer than lists). */
  extra?: Record<string, unknown>;
  /** Serialize a missing end as an explicit `null` rather than omitting it (portals do both). */
  endAsNull?: boolean;
}

/** A source of calendars and events; curated and scale sets implement it, lazily for scale. */
export interface DemoSource {
  calendars(): DemoCalendar[];
  /** Events of a calendar in list order, or undefined when the calendar does not exist. */
  events(calendarId: string): DemoEvent[] | undefined;
  /** One event, or undefined. Must agree with events(). */
  event(calendarId: string, eventId: string): DemoEvent | undefined;
  /** Event ids of a calendar in list order, without building the events (cheap at scale). */
  eventIds(calendarId: string): string[];
  /** Ids of the calendars the faculty organization may see (the university sees all). */
  facultyCalendarIds(): Set<string>;
  /** Last-Modified of the calendar list. */
  calendarsUpdatedAt(): number;
}

/** Anchor: 00:00 of the day containing `now`, in the demo zone. Everything is placed from it. */
export function anchorDay(now: number): DateTime {
  return DateTime.fromMillis(now, { zone: DEMO_TIME_ZONE }).startOf('day');
}

// Luxon is exact but slow (tens of microseconds a call); at 100,000 events the portal would become
// the benchmark's bottleneck. So zone offsets are looked up once per UTC hour (zones only change
// offset on whole hours here) and the rest is plain Date arithmetic.
const offsetCache = new Map<number, number>();

/** UTC offset of the demo zone, in minutes, at an instant. */
export function zoneOffsetMinutes(ms: number): number {
  const hour = Math.floor(ms / 3_600_000);
  let offset = offsetCache.get(hour);
  if (offset === undefined) {
    offset = DateTime.fromMillis(hour * 3_600_000, { zone: DEMO_TIME_ZONE }).offset;
    offsetCache.set(hour, offset);
  }
  return offset;
}

/** Epoch ms of a wall time `dayOffset` days after the anchor, at hh:mm in the demo zone (DST-correct). */
export function wallTime(anchor: DateTime, dayOffset: number, hour: number, minute = 0): number {
  const localAsUtc = Date.UTC(anchor.year, anchor.month - 1, anchor.day + dayOffset, hour, minute);
  // Two passes: the offset at the guessed instant, then at the corrected one (right across a DST change).
  const guess = localAsUtc - zoneOffsetMinutes(localAsUtc) * 60_000;
  return localAsUtc - zoneOffsetMinutes(guess) * 60_000;
}

/** `YYYY-MM-DD` of the day `dayOffset` days after the anchor. */
export function isoDay(anchor: DateTime, dayOffset: number): string {
  return new Date(Date.UTC(anchor.year, anchor.month - 1, anchor.day + dayOffset)).toISOString().slice(0, 10);
}

/** Wall-clock `YYYY-MM-DDTHH:mm:ss` of an instant in the demo zone, and its offset as `+HH:MM`. */
export function wallParts(ms: number): { local: string; offset: string } {
  const minutes = zoneOffsetMinutes(ms);
  const local = new Date(ms + minutes * 60_000).toISOString().slice(0, 19);
  const abs = Math.abs(minutes);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return { local, offset: `${minutes < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}` };
}

/** FNV-1a 32-bit hash of a string: seeds and stable per-key choices. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: a tiny seeded PRNG returning floats in [0, 1). Math.random would break determinism. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pick one element with a PRNG. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

/**
 * A fixed "last updated" time for an item: some whole second 1 to 40 days before the anchor,
 * derived from the item's key so it never depends on when a request arrives.
 */
export function updatedBefore(anchor: DateTime, key: string): number {
  const h = hash32(key);
  const seconds = (1 + (h % 40)) * 86_400 - (h % 86_400);
  return anchor.toMillis() - seconds * 1000;
}
