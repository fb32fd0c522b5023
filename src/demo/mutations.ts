// Changes made to a running demo portal (changeEvents / removeEvent), kept as an overlay on the
// generated data so scale mode never has to hold every event. Times of changes come from a counter
// on the anchor day, not the clock, so a test that makes the same changes sees the same bytes.

import type { DemoEvent, DemoSource } from './data.js';

const key = (calendarId: string, eventId: string): string => `${calendarId}\u0000${eventId}`;

export class DemoMutations {
  private readonly changed = new Map<string, { version: number; updatedAt: number }>();
  private readonly removed = new Set<string>();
  /** Per calendar: when its list last lost an event (a removal changes the list but no updatedAt). */
  private readonly listChangedAt = new Map<string, number>();
  private counter = 0;
  private cursor = 0;

  /** @param anchorMs midnight of the demo day; every change is stamped a few seconds after it. */
  constructor(private readonly anchorMs: number) {}

  private stamp(): number {
    this.counter += 1;
    return this.anchorMs + this.counter * 1000;
  }

  /** The event as currently served: undefined when removed, the changed version when changed. */
  apply(event: DemoEvent): DemoEvent | undefined {
    const k = key(String(event.calendarId), String(event.id));
    if (this.removed.has(k)) return undefined;
    const change = this.changed.get(k);
    if (!change) return event;
    const suffix = change.version === 1 ? ' (updated)' : ` (updated ${change.version})`;
    return {
      ...event,
      title: event.title + suffix,
      titleLt: `${event.titleLt} (atnaujinta)`,
      description: `${event.description ?? ''}<p>Update ${change.version}: the programme has changed.</p>`,
      updatedAt: change.updatedAt,
    };
  }

  /** Last time a calendar's list changed for a reason other than an event's updatedAt. */
  listStamp(calendarId: string): number | undefined {
    return this.listChangedAt.get(calendarId);
  }

  /**
   * Change `count` events spread over all calendars, or over one (a fixed stride through them,
   * continuing where the last call stopped). Returns the changed [calendarId, eventId] pairs.
   */
  change(source: DemoSource, count: number, calendarId?: string): Array<[string, string]> {
    const all: Array<[string, string]> = [];
    for (const cal of source.calendars()) {
      if (calendarId !== undefined && String(cal.id) !== calendarId) continue;
      for (const eventId of source.eventIds(String(cal.id))) {
        if (!this.removed.has(key(String(cal.id), eventId))) all.push([String(cal.id), eventId]);
      }
    }
    if (all.length === 0) return [];
    // A prime stride visits every position once per cycle unless it divides the total.
    const stride = all.length % 7919 === 0 ? 1 : 7919;
    const picked = new Map<string, [string, string]>();
    for (let i = 0; i < Math.min(count, all.length); i++) {
      const pair = all[((this.cursor + i) * stride) % all.length];
      if (pair) picked.set(key(...pair), pair);
    }
    this.cursor += Math.min(count, all.length);
    for (const [k] of picked) {
      const previous = this.changed.get(k);
      this.changed.set(k, { version: (previous?.version ?? 0) + 1, updatedAt: this.stamp() });
    }
    return [...picked.values()];
  }

  /** Remove an event: gone from its list, details 404. */
  remove(calendarId: string, eventId: string): void {
    this.removed.add(key(calendarId, eventId));
    this.listChangedAt.set(calendarId, this.stamp());
  }
}
