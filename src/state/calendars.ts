// Calendars the portal stopped listing stay published for --keep-removed-days, every event
// cancelled: apps subscribed to a calendar.ics learn nothing from a 404 and keep the events forever.

import type { Calendar } from '../model.js';

/** What history keeps of a calendar: the calendar as last listed, and when it stopped being listed. */
export interface CalendarRecord {
  calendar: Calendar;
  removedAt?: number;
}

export interface SettledCalendars {
  /** Calendars gone from the list within keepRemovedMs, removedAt set, by id; their files stay. */
  removed: Calendar[];
  /** The records the next build starts from (listed and removed calendars). */
  records: CalendarRecord[];
  /** The first instant at which one of `removed` is dropped (Infinity: none). */
  stableUntil: number;
}

/**
 * Settle the previous builds' calendars against this build's list. A removed calendar whose
 * path a listed one has taken is dropped: the listed calendar owns that folder.
 */
export function settleCalendars(previous: readonly CalendarRecord[], listed: readonly Calendar[], now: number, keepRemovedMs: number): SettledCalendars {
  const listedIds = new Set(listed.map((c) => c.id));
  const listedSlugs = new Set(listed.map((c) => c.slug));
  const records: CalendarRecord[] = listed.map((calendar) => ({ calendar }));
  const removed: Calendar[] = [];
  let stableUntil = Infinity;
  for (const record of [...previous].sort((a, b) => (a.calendar.id < b.calendar.id ? -1 : a.calendar.id > b.calendar.id ? 1 : 0))) {
    if (listedIds.has(record.calendar.id)) continue;
    const removedAt = record.removedAt ?? now;
    if (now - removedAt > keepRemovedMs || listedSlugs.has(record.calendar.slug)) continue;
    stableUntil = Math.min(stableUntil, removedAt + keepRemovedMs + 1);
    records.push({ calendar: record.calendar, removedAt });
    removed.push({ ...record.calendar, removedAt });
  }
  return { removed, records, stableUntil };
}

/** Whether a parsed value is a calendar record (anything else makes the history unreadable). */
export function isCalendarRecord(value: unknown): value is CalendarRecord {
  if (typeof value !== 'object' || value === null) return false;
  const { calendar, removedAt } = value as Partial<CalendarRecord>;
  if (removedAt !== undefined && typeof removedAt !== 'number') return false;
  if (typeof calendar !== 'object' || calendar === null) return false;
  const c = calendar as Partial<Calendar>;
  return (
    typeof c.id === 'string' && typeof c.slug === 'string' && typeof c.title === 'string' && typeof c.timeZone === 'string' &&
    (c.description === undefined || typeof c.description === 'string') && (c.url === undefined || typeof c.url === 'string') &&
    c.removedAt === undefined
  );
}
