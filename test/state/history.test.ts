import { describe, expect, it } from 'vitest';
import type { CalendarEvent } from '../../src/model.js';
import { emptyHistory, HistoryTracker, type EventRecord, type HistoryState } from '../../src/state/history.js';
import { recordEntries } from '../support/records.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

function event(id: string, title = `Event ${id}`): CalendarEvent {
  return { calendarId: 'c', calendarSlug: 'c', id, slug: id, title, when: { kind: 'timed', start: T0 + 10 * DAY }, status: 'confirmed', categories: [] };
}

// Join a build's events with the previous history all at once, as a build does one by one.
function applyHistory(current: CalendarEvent[], previous: HistoryState, now: number, keepRemovedMs: number) {
  const tracker = new HistoryTracker(previous, now, keepRemovedMs);
  const events = current.map((e) => tracker.observe(e).event);
  const { removed } = tracker.finish();
  const state = emptyHistory();
  for (const event of events) state.events.set(JSON.stringify([event.calendarId, event.id]), JSON.parse(tracker.recordOf(event, undefined)) as EventRecord);
  for (const [key, json] of tracker.removed()) state.events.set(JSON.parse(key) as string, JSON.parse(json) as EventRecord);
  return { events, removed, state, counts: tracker.counts };
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
    const third = applyHistory([event('a'), event('b', 'Renamed')], second.state, T0 + 2 * DAY, 30 * DAY);
    expect(JSON.stringify(recordEntries(third.state.events))).toBe(JSON.stringify(recordEntries(second.state.events)));
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
});

describe('HistoryTracker.finishCalendar', () => {
  const inCalendar = (calendarId: string, id: string, title = `Event ${id}`): CalendarEvent => ({ ...event(id, title), calendarId, calendarSlug: calendarId });

  it("gives one calendar's removed events as finish() would, and finish() then gives only the rest", () => {
    const all = [inCalendar('c1', 'a'), inCalendar('c1', 'gone2'), inCalendar('c1', 'gone1'), inCalendar('c2', 'b'), inCalendar('c2', 'gone3'), inCalendar('c3', 'gone4')];
    const first = applyHistory(all, emptyHistory(), T0, 30 * DAY);
    const live = [inCalendar('c1', 'a'), inCalendar('c2', 'b')];
    // finish() alone: the reference.
    const whole = new HistoryTracker(first.state, T0 + DAY, 30 * DAY);
    for (const e of live) whole.observe(e);
    const reference = whole.finish();

    const split = new HistoryTracker(first.state, T0 + DAY, 30 * DAY);
    split.observe(live[0]!);
    const c1 = split.finishCalendar('c1');
    split.observe(live[1]!);
    const rest = split.finish();
    expect(c1.map((e) => e.id)).toEqual(['gone1', 'gone2']);
    expect(rest.removed.map((e) => `${e.calendarId}/${e.id}`)).toEqual(['c2/gone3', 'c3/gone4']);
    expect([...c1, ...rest.removed]).toEqual(reference.removed);
    expect(rest.stableUntil).toBe(reference.stableUntil);
    expect(split.counts).toEqual(whole.counts);
    expect(Object.fromEntries(split.removed())).toEqual(Object.fromEntries(whole.removed()));
    expect(split.finishCalendar('c9')).toEqual([]);
  });

  it('drops the cancellations kept past their time and counts the expiry of the rest in stableUntil', () => {
    const first = applyHistory([inCalendar('c1', 'old'), inCalendar('c2', 'new')], emptyHistory(), T0, 30 * DAY);
    const second = applyHistory([inCalendar('c2', 'new')], first.state, T0 + DAY, 30 * DAY); // c1/old removed at T0 + DAY
    const third = applyHistory([], second.state, T0 + 10 * DAY, 30 * DAY); // c2/new removed at T0 + 10 days
    const tracker = new HistoryTracker(third.state, T0 + 35 * DAY, 30 * DAY);
    expect(tracker.finishCalendar('c1')).toEqual([]); // dropped: removed 34 days ago
    expect(tracker.finishCalendar('c2').map((e) => e.id)).toEqual(['new']);
    const { removed, stableUntil } = tracker.finish();
    expect(removed).toEqual([]);
    expect(stableUntil).toBe(T0 + 10 * DAY + 30 * DAY + 1);
  });
});
