// Event history, which the portal does not give: iCalendar clients need a SEQUENCE that grows when
// an event changes, a DTSTAMP that stays when nothing did, and a cancelled VEVENT for an event that
// vanished, or they keep showing it forever. Stored only after a successful publish.

import { hash as digest } from 'node:crypto';
import type { CalendarEvent, FeedEvent } from '../model.js';
import type { CalendarRecord } from './calendars.js';
import { HistoryRecords, type EventRecord } from './records.js';

export type { EventRecord } from './records.js';

export interface HistoryState {
  /** Keyed by JSON.stringify([calendarId, eventId]). */
  events: HistoryRecords;
  /** The calendars of the last build, and those removed since (see calendars.ts). */
  calendars: CalendarRecord[];
}

export const emptyHistory = (): HistoryState => ({ events: new HistoryRecords(), calendars: [] });

const keyOf = (calendarId: string, eventId: string): string => JSON.stringify([calendarId, eventId]);

const SETTLED = 2;

// Removed events in the order finish() has always given them: by calendar, then id.
const byCalendarAndId = (a: FeedEvent, b: FeedEvent): number => (a.calendarId + '\0' + a.id < b.calendarId + '\0' + b.id ? -1 : 1);

/** Hash of what subscribers see of an event; history fields and detailsMissing are left out. */
export function contentHash(e: CalendarEvent): string {
  const content = [e.title, e.when, e.description ?? null, e.location ?? null, e.url ?? null, e.status, e.categories, e.organizer ?? null, e.image ?? null, e.updated ?? null];
  // crypto.hash: one native call, without the Hash object createHash() builds (a third of the cost).
  return digest('sha256', JSON.stringify(content), 'base64url').slice(0, 22);
}

/** What the next history records of a live event (JSON, kept in its row): observe()'s event and its fingerprint. */
export function liveRecord(event: FeedEvent, rendered: string | undefined, hash = contentHash(event)): string {
  const { firstSeen, changedAt, sequence, calendarSlug, slug, title, when } = event;
  const record: EventRecord = { firstSeen, changedAt, sequence, hash, calendarSlug, slug, title, when };
  if (rendered !== undefined) record.rendered = rendered;
  return JSON.stringify(record);
}

/**
 * Joins this build's events with the previous history as they arrive from the crawl; finish() then
 * works out what vanished. Per live event only a "seen" flag stays (its record goes to the spool).
 */
export class HistoryTracker {
  // Removed events kept as cancellations (finish()), with their render fingerprints.
  private readonly removedRecords = new HistoryRecords();
  // The content hash of each event observe() gave out, for its record (recordOf()).
  private readonly hashes = new WeakMap<FeedEvent, string>();
  // One flag per previous record: seen in this build (1), or settled as removed or dropped (SETTLED).
  private readonly seen: Uint8Array;
  readonly counts = { new: 0, changed: 0, removed: 0 };
  // What settling removed records found so far (finishCalendar() and finish() share them).
  private tombstonesUntil = Infinity;
  // Previous record ids per calendar id, for finishCalendar(); made on its first call.
  private byCalendar: Map<string, number[]> | undefined;

  constructor(
    private readonly previous: HistoryState,
    private readonly now: number,
    private readonly keepRemovedMs: number,
  ) {
    this.seen = new Uint8Array(previous.events.size);
  }

  /** The event with its history; the render fingerprint it was last published with, if any. */
  observe(event: CalendarEvent): { event: FeedEvent; rendered?: string } {
    const key = keyOf(event.calendarId, event.id);
    const id = this.previous.events.idOf(key);
    const before = id < 0 ? undefined : this.previous.events.recordAt(id);
    if (id >= 0) this.seen[id] = 1;
    const hash = contentHash(event);
    let history: Pick<FeedEvent, 'firstSeen' | 'changedAt' | 'sequence'>;
    if (!before) {
      this.counts.new++;
      history = { firstSeen: this.now, changedAt: this.now, sequence: 0 };
    } else if (before.hash !== hash || before.removedAt !== undefined) {
      this.counts.changed++;
      history = { firstSeen: before.firstSeen, changedAt: this.now, sequence: before.sequence + 1 };
    } else {
      history = { firstSeen: before.firstSeen, changedAt: before.changedAt, sequence: before.sequence };
    }
    const observed = { ...event, ...history };
    this.hashes.set(observed, hash);
    return { event: observed, rendered: before?.rendered };
  }

  /** liveRecord() of an event observe() gave out, without hashing its content again. */
  recordOf(event: FeedEvent, rendered: string | undefined): string {
    return liveRecord(event, rendered, this.hashes.get(event));
  }

  /** Mark an event of the previous build as still there, unchanged (taken from its row, not observed). */
  markSeen(calendarId: string, eventId: string): void {
    const id = this.previous.events.idOf(keyOf(calendarId, eventId));
    if (id >= 0) this.seen[id] = 1;
  }

  /** Remember what a removed event's files were rendered from (a live event's is given to records()). */
  markRendered(calendarId: string, eventId: string, fingerprint: string | undefined): void {
    this.removedRecords.setRendered(keyOf(calendarId, eventId), fingerprint);
  }

  /** The render fingerprint a removed event was last published with. */
  renderedBefore(calendarId: string, eventId: string): string | undefined {
    return this.previous.events.rendered(keyOf(calendarId, eventId));
  }

  /** finish() for one calendar whose events are all observed: its removed events kept, sorted by id. */
  finishCalendar(calendarId: string, calendarSlug?: string): FeedEvent[] {
    const ids = this.idsOf(calendarId);
    this.byCalendar!.delete(calendarId);
    const removed: FeedEvent[] = [];
    for (const id of ids) this.settle(id, removed, () => calendarSlug);
    return removed.sort(byCalendarAndId);
  }

  /**
   * Events gone from the API, kept as cancellations within keepRemovedMs, by calendar and id (but
   * finishCalendar()'s), and the first instant at which a kept one is dropped (Infinity: none).
   */
  finish(slugOf: (calendarId: string) => string | undefined = () => undefined): { removed: FeedEvent[]; stableUntil: number } {
    const removed: FeedEvent[] = [];
    for (let id = 0; id < this.previous.events.size; id++) this.settle(id, removed, slugOf);
    return { removed: removed.sort(byCalendarAndId), stableUntil: this.tombstonesUntil };
  }

  // The previous record `id`, if not seen nor settled: dropped after keepRemovedMs, else kept as a
  // cancellation, its files where its calendar's are now (slugOf, else where they were).
  private settle(id: number, removed: FeedEvent[], slugOf: (calendarId: string) => string | undefined): void {
    if (this.seen[id] !== 0) return;
    this.seen[id] = SETTLED;
    const previous = this.previous.events;
    const key = previous.keyAt(id);
    const [calendarId, eventId] = JSON.parse(key) as [string, string];
    const recorded = previous.recordAt(id);
    const slug = slugOf(calendarId) ?? recorded.calendarSlug;
    const before = slug === recorded.calendarSlug ? recorded : { ...recorded, calendarSlug: slug };
    const removedAt = before.removedAt ?? this.now;
    if (this.now - removedAt > this.keepRemovedMs) return;
    this.tombstonesUntil = Math.min(this.tombstonesUntil, removedAt + this.keepRemovedMs + 1);
    const record: EventRecord =
      before.removedAt === undefined ? { ...before, removedAt, changedAt: this.now, sequence: before.sequence + 1 } : { ...before };
    if (before.removedAt === undefined) this.counts.removed++;
    this.removedRecords.set(key, record);
    removed.push({
      calendarId,
      calendarSlug: record.calendarSlug,
      id: eventId,
      slug: record.slug,
      title: record.title,
      when: record.when,
      status: 'cancelled',
      categories: [],
      firstSeen: record.firstSeen,
      changedAt: record.changedAt,
      sequence: record.sequence,
      removedAt,
    });
  }

  // The previous records of a calendar, by id; grouped on the first call (one pass over the keys).
  private idsOf(calendarId: string): readonly number[] {
    if (!this.byCalendar) {
      this.byCalendar = new Map();
      const previous = this.previous.events;
      for (let id = 0; id < previous.size; id++) {
        const [calendar] = JSON.parse(previous.keyAt(id)) as [string, string];
        const ids = this.byCalendar.get(calendar);
        if (ids) ids.push(id);
        else this.byCalendar.set(calendar, [id]);
      }
    }
    return this.byCalendar.get(calendarId) ?? [];
  }

  /** The records of the removed events finish() kept, as [key JSON, record JSON] pairs. */
  removed(): Generator<[string, string]> {
    return this.removedRecords.texts();
  }
}

/** Whether a parsed value has the fields a history record must have. */
export function isEventRecord(record: unknown): record is EventRecord {
  if (typeof record !== 'object' || record === null) return false;
  const r = record as Partial<EventRecord>;
  return (
    typeof r.firstSeen === 'number' && typeof r.changedAt === 'number' &&
    typeof r.sequence === 'number' && typeof r.hash === 'string' &&
    typeof r.title === 'string' && typeof r.when === 'object' && r.when !== null
  );
}
