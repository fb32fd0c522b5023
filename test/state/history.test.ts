import { describe, expect, it } from 'vitest';
import type { CalendarEvent } from '../../src/model.js';
import { applyHistory, emptyHistory, HistoryTracker, parseHistory } from '../../src/state/history.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

function event(id: string, title = `Event ${id}`): CalendarEvent {
  return { calendarId: 'c', calendarSlug: 'c', id, slug: id, title, when: { kind: 'timed', start: T0 + 10 * DAY }, status: 'confirmed', categories: [] };
}

describe('applyHistory', () => {
  it('stamps new events with the build time and sequence 0', () => {
    const r = applyHistory([event('a')], emptyHistory(), T0, 30 * DAY);
    expect(r.events[0]).toMatchObject({ firstSeen: T0, changedAt: T0, sequence: 0 });
    expect(r.counts).toEqual({ new: 1, changed: 0, removed: 0 });
  });

  it('keeps stamps for unchanged events and bumps SEQUENCE for changed ones', () => {
    const first = applyHistory([event('a'), event('b')], emptyHistory(), T0, 30 * DAY);
    const second = applyHistory([event('a'), event('b', 'Renamed')], first.state, T0 + DAY, 30 * DAY);
    expect(second.events[0]).toMatchObject({ firstSeen: T0, changedAt: T0, sequence: 0 });
    expect(second.events[1]).toMatchObject({ firstSeen: T0, changedAt: T0 + DAY, sequence: 1 });
    expect(second.counts).toEqual({ new: 0, changed: 1, removed: 0 });
    expect(JSON.stringify(applyHistory([event('a'), event('b', 'Renamed')], second.state, T0 + 2 * DAY, 30 * DAY).state)).toBe(JSON.stringify(second.state));
  });

  it('keeps a vanished event as a cancellation until keep-removed-days pass', () => {
    const first = applyHistory([event('a'), event('gone')], emptyHistory(), T0, 30 * DAY);
    const second = applyHistory([event('a')], first.state, T0 + DAY, 30 * DAY);
    expect(second.removed).toHaveLength(1);
    expect(second.removed[0]).toMatchObject({ id: 'gone', status: 'cancelled', removedAt: T0 + DAY, sequence: 1, title: 'Event gone' });
    expect(second.counts.removed).toBe(1);
    const third = applyHistory([event('a')], second.state, T0 + 20 * DAY, 30 * DAY);
    expect(third.removed[0]).toMatchObject({ removedAt: T0 + DAY, sequence: 1 });
    expect(third.counts.removed).toBe(0);
    expect(applyHistory([event('a')], third.state, T0 + 32 * DAY, 30 * DAY).removed).toHaveLength(0);
  });

  it('says when the first kept cancellation expires: kept a millisecond before, dropped at it', () => {
    const first = applyHistory([event('a'), event('gone'), event('later')], emptyHistory(), T0, 30 * DAY);
    const second = applyHistory([event('a'), event('later')], first.state, T0 + DAY, 30 * DAY);
    const third = applyHistory([event('a')], second.state, T0 + 2 * DAY, 30 * DAY);
    const tracker = new HistoryTracker(third.state, T0 + 3 * DAY, 30 * DAY);
    tracker.observe(event('a'));
    const { removed, stableUntil } = tracker.finish();
    expect(removed.map((e) => e.id)).toEqual(['gone', 'later']);
    expect(stableUntil).toBe(T0 + DAY + 30 * DAY + 1);
    const ids = (now: number): string[] => applyHistory([event('a')], third.state, now, 30 * DAY).removed.map((e) => e.id);
    expect(ids(stableUntil - 1)).toEqual(['gone', 'later']);
    expect(ids(stableUntil)).toEqual(['later']);
    expect(new HistoryTracker(emptyHistory(), T0, 30 * DAY).finish().stableUntil).toBe(Infinity);
  });

  it('treats a returning event as changed', () => {
    const first = applyHistory([event('a')], emptyHistory(), T0, 30 * DAY);
    const gone = applyHistory([], first.state, T0 + DAY, 30 * DAY);
    const back = applyHistory([event('a')], gone.state, T0 + 2 * DAY, 30 * DAY);
    expect(back.events[0]).toMatchObject({ sequence: 2, firstSeen: T0 });
    expect(back.removed).toHaveLength(0);
  });

  it('rejects corrupt history so the build starts afresh', () => {
    expect(parseHistory({ version: 1, events: { x: { firstSeen: 'yesterday' } } })).toBeUndefined();
    expect(parseHistory({ version: 99, events: {} })).toBeUndefined();
    expect(parseHistory(null)).toBeUndefined();
    const ok = applyHistory([event('a')], emptyHistory(), T0, DAY).state;
    expect(parseHistory(JSON.parse(JSON.stringify(ok)))).toEqual(ok);
  });
});
