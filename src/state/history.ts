// Event history: what feeds need to know about earlier builds. Pure: the previous state and "now"
// come in, the new state goes out, and the caller stores it only after a successful publish, so a
// failed build never advances it.
//
// Why it exists: iCalendar clients need a SEQUENCE that grows when an event changes, a DTSTAMP
// that does not move when nothing changed, and a cancelled VEVENT for an event that vanished, or
// they keep showing it forever. The portal tells us none of that, so calfeed remembers it.

import { hash as digest } from 'node:crypto';
import type { CalendarEvent, EventWhen, FeedEvent } from '../model.js';

export const HISTORY_VERSION = 1;

interface EventRecord {
  firstSeen: number;
  changedAt: number;
  sequence: number;
  /** Hash of the event's content, to notice changes. */
  hash: string;
  /** Enough to publish a cancellation after the event is gone. */
  calendarSlug: string;
  slug: string;
  title: string;
  when: EventWhen;
  removedAt?: number;
  /** Fingerprint of everything the event's page and .ics were last rendered from (see build/render-site). */
  rendered?: string;
}

export interface HistoryState {
  version: number;
  /** Keyed by JSON.stringify([calendarId, eventId]). */
  events: Record<string, EventRecord>;
}

export const emptyHistory = (): HistoryState => ({ version: HISTORY_VERSION, events: {} });

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
    const before = this.previous.events[key];
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
    this.next.events[key] = record;
    return {
      event: { ...event, firstSeen: record.firstSeen, changedAt: record.changedAt, sequence: record.sequence },
      rendered: before?.rendered,
    };
  }

  /** Remember what an event's (or a removed event's) files were rendered from. */
  markRendered(calendarId: string, eventId: string, fingerprint: string): void {
    const record = this.next.events[keyOf(calendarId, eventId)];
    if (record) record.rendered = fingerprint;
  }

  /** The render fingerprint a removed event was last published with. */
  renderedBefore(calendarId: string, eventId: string): string | undefined {
    return this.previous.events[keyOf(calendarId, eventId)]?.rendered;
  }

  /** Events gone from the API (kept as cancellations within keepRemovedMs) and the new state. */
  finish(): { removed: FeedEvent[]; state: HistoryState } {
    const removed: FeedEvent[] = [];
    for (const [key, before] of Object.entries(this.previous.events)) {
      if (this.next.events[key]) continue;
      const removedAt = before.removedAt ?? this.now;
      if (this.now - removedAt > this.keepRemovedMs) continue;
      const record: EventRecord =
        before.removedAt === undefined ? { ...before, removedAt, changedAt: this.now, sequence: before.sequence + 1 } : { ...before };
      if (before.removedAt === undefined) this.counts.removed++;
      this.next.events[key] = record;
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
  const state = data as Partial<HistoryState>;
  if (state.version !== HISTORY_VERSION || typeof state.events !== 'object' || state.events === null) return undefined;
  for (const record of Object.values(state.events)) {
    if (
      typeof record !== 'object' || record === null ||
      typeof record.firstSeen !== 'number' || typeof record.changedAt !== 'number' ||
      typeof record.sequence !== 'number' || typeof record.hash !== 'string' ||
      typeof record.title !== 'string' || typeof record.when !== 'object'
    ) {
      return undefined;
    }
  }
  return state as HistoryState;
}
