// Event history: what feeds need to know about earlier builds. Pure: the previous state and "now"
// come in, the new state goes out, and the caller stores it only after a successful publish, so a
// failed build never advances it.
//
// Why it exists: iCalendar clients need a SEQUENCE that grows when an event changes, a DTSTAMP
// that does not move when nothing changed, and a cancelled VEVENT for an event that vanished, or
// they keep showing it forever. The portal tells us none of that, so calfeed remembers it.

import { hash as digest } from 'node:crypto';
import type { CalendarEvent, FeedEvent } from '../model.js';
import { HistoryRecords, type EventRecord } from './records.js';

export const HISTORY_VERSION = 1;

export type { EventRecord } from './records.js';

export interface HistoryState {
  version: number;
  /** Keyed by JSON.stringify([calendarId, eventId]). */
  events: HistoryRecords;
}

export const emptyHistory = (): HistoryState => ({ version: HISTORY_VERSION, events: new HistoryRecords() });

const keyOf = (calendarId: string, eventId: string): string => JSON.stringify([calendarId, eventId]);

/** Hash of what subscribers see of an event; history fields and detailsMissing are left out. */
export function contentHash(e: CalendarEvent): string {
  const content = [e.title, e.when, e.description ?? null, e.location ?? null, e.url ?? null, e.status, e.categories, e.organizer ?? null, e.image ?? null, e.updated ?? null];
  // crypto.hash: one native call, without the Hash object createHash() builds (a third of the cost).
  return digest('sha256', JSON.stringify(content), 'base64url').slice(0, 22);
}

export interface HistoryResult {
  /** Current events with their history, in input order. */
  events: FeedEvent[];
  /** Events gone from the API within keepRemovedMs, as cancellations (removedAt set). */
  removed: FeedEvent[];
  state: HistoryState;
  /** Counts for the summary. */
  counts: { new: number; changed: number; removed: number };
}

/**
 * Joins this build's events with the previous history one event at a time, as they arrive from the
 * crawl, so each event's files can be rendered at once; finish() then works out what vanished.
 */
export class HistoryTracker {
  private readonly next: HistoryState = emptyHistory();
  readonly counts = { new: 0, changed: 0, removed: 0 };

  constructor(
    private readonly previous: HistoryState,
    private readonly now: number,
    private readonly keepRemovedMs: number,
  ) {}

  /** The event with its history; the render fingerprint it was last published with, if any. */
  observe(event: CalendarEvent): { event: FeedEvent; rendered?: string } {
    const key = keyOf(event.calendarId, event.id);
    const before = this.previous.events.get(key);
    const hash = contentHash(event);
    let record: EventRecord;
    // What a cancellation needs if the event vanishes later.
    const { calendarSlug, slug, title, when } = event;
    if (!before) {
      this.counts.new++;
      record = { firstSeen: this.now, changedAt: this.now, sequence: 0, hash, calendarSlug, slug, title, when };
    } else if (before.hash !== hash || before.removedAt !== undefined) {
      this.counts.changed++;
      record = { firstSeen: before.firstSeen, changedAt: this.now, sequence: before.sequence + 1, hash, calendarSlug, slug, title, when };
    } else {
      // Everything it had but the render fingerprint (set again by markRendered), keys in the same
      // order; left out rather than deleted, which would turn the object into a slow dictionary.
      const { rendered: _rendered, ...kept } = before;
      record = { ...kept, calendarSlug, slug, title, when };
    }
    this.next.events.set(key, record);
    return {
      event: { ...event, firstSeen: record.firstSeen, changedAt: record.changedAt, sequence: record.sequence },
      rendered: before?.rendered,
    };
  }

  /** Remember what an event's (or a removed event's) files were rendered from. */
  markRendered(calendarId: string, eventId: string, fingerprint: string): void {
    this.next.events.setRendered(keyOf(calendarId, eventId), fingerprint);
  }

  /** The render fingerprint a removed event was last published with. */
  renderedBefore(calendarId: string, eventId: string): string | undefined {
    return this.previous.events.rendered(keyOf(calendarId, eventId));
  }

  /** Events gone from the API (kept as cancellations within keepRemovedMs) and the new state. */
  finish(): { removed: FeedEvent[]; state: HistoryState } {
    const removed: FeedEvent[] = [];
    for (const key of this.previous.events.keys()) {
      if (this.next.events.has(key)) continue;
      const before = this.previous.events.get(key)!;
      const removedAt = before.removedAt ?? this.now;
      if (this.now - removedAt > this.keepRemovedMs) continue;
      const record: EventRecord =
        before.removedAt === undefined ? { ...before, removedAt, changedAt: this.now, sequence: before.sequence + 1 } : { ...before };
      if (before.removedAt === undefined) this.counts.removed++;
      this.next.events.set(key, record);
      const [calendarId, id] = JSON.parse(key) as [string, string];
      removed.push({
        calendarId,
        calendarSlug: record.calendarSlug,
        id,
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
    removed.sort((a, b) => (a.calendarId + '\0' + a.id < b.calendarId + '\0' + b.id ? -1 : 1));
    return { removed, state: this.next };
  }
}

/** Join this build's events with the previous history (all at once; see HistoryTracker). */
export function applyHistory(current: CalendarEvent[], previous: HistoryState, now: number, keepRemovedMs: number): HistoryResult {
  const tracker = new HistoryTracker(previous, now, keepRemovedMs);
  const events = current.map((e) => tracker.observe(e).event);
  const { removed, state } = tracker.finish();
  return { events, removed, state, counts: tracker.counts };
}

/** Check a parsed history file; anything unexpected gives an empty history (a full, correct build). */
export function parseHistory(data: unknown): HistoryState | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const state = data as { version?: unknown; events?: unknown };
  if (state.version !== HISTORY_VERSION || typeof state.events !== 'object' || state.events === null) return undefined;
  const events = new HistoryRecords();
  for (const [key, record] of Object.entries(state.events)) {
    if (!isEventRecord(record)) return undefined;
    events.set(key, record);
  }
  return { version: HISTORY_VERSION, events };
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
