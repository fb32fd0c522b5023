// Calendar pages' day lists: their events grouped by day in the calendar's zone, each event's
// list view, and the link to its page. Made a part at a time, so a day list of 100,000 events is
// never 100,000 views at once.

import type { Calendar, ListEvent } from '../../model.js';
import { isCancelled } from '../../model.js';
import { paths } from '../../paths.js';
import { eventDayKey, formatDay, formatListTime, isoInZone } from './format.js';
import { relHref } from './links.js';
import type { Scope } from './view.js';

export interface EventItemView {
  title: string;
  href: string;
  time: string;
  datetime: string;
  allDay: boolean;
  ongoing: boolean;
  location: string | null;
  cancelled: boolean;
  /** On the home page, where events of every calendar are listed together: the event's calendar. */
  calendar?: { title: string; href: string };
}

export interface DayView {
  key: string;
  label: string;
  events: EventItemView[];
}

export function item(c: Scope, cal: Calendar, e: ListEvent, zone: string, fromFile: string, todayKey: string | null): EventItemView {
  const day = eventDayKey(c.ctx, e.when, zone);
  return {
    title: e.title,
    href: eventHref(cal, e, fromFile),
    time: formatListTime(c.ctx, e.when, zone, c.locale),
    datetime: e.when.kind === 'allDay' ? e.when.startDate : isoInZone(c.ctx, e.when.start, zone),
    allDay: e.when.kind === 'allDay',
    ongoing: todayKey !== null && day < todayKey,
    location: e.location?.text || null,
    cancelled: isCancelled(e),
  };
}

// A path segment as src/paths.ts makes them: one folder level, nothing for relHref to normalize.
export const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** The link from a calendar page to one of its events: relHref, without path arithmetic for the usual case. */
function eventHref(cal: Calendar, e: Pick<ListEvent, 'slug'>, fromFile: string): string {
  // From a file directly in the calendar's folder (its index, past and widget pages), the page of
  // an event whose slug is one plain segment is always events/{slug}.html.
  const folder = paths.calendarDir(cal.slug);
  if (SEGMENT.test(e.slug) && fromFile.length > folder.length && fromFile.startsWith(folder) && fromFile.indexOf('/', folder.length) === -1) {
    return `events/${e.slug}.html`;
  }
  return relHref(fromFile, paths.eventPage(cal.slug, e.slug));
}

/** A list's events by position, read when wanted (a calendar's, from the spool): all in order, or some. */
export interface EventSource extends Iterable<ListEvent> {
  readonly length: number;
  read(at: readonly number[]): ListEvent[];
}

/** Events as an EventSource: a source as it is, events in memory read from the array. */
export function eventSource(events: readonly ListEvent[] | EventSource): EventSource {
  if ('read' in events) return events;
  return { length: events.length, read: (at) => at.map((i) => events[i]!), [Symbol.iterator]: () => events[Symbol.iterator]() };
}

/**
 * Events grouped by day: `days[i]` is the day of the event at position i, listed in `order` (else
 * by position); one before `todayKey` (in progress) is listed under today. `views` makes the views
 * of the events at some positions, a part at a time, so a day list is never all its views at once.
 */
export function groupPositions(c: Scope, days: readonly string[], todayKey: string | null, views: (at: number[]) => EventItemView[], order?: readonly number[]): DayList {
  const groups = new Map<string, number[]>();
  const add = (i: number): void => {
    const own = days[i]!;
    const key = todayKey !== null && own < todayKey ? todayKey : own;
    const day = groups.get(key);
    if (day) day.push(i);
    else groups.set(key, [i]);
  };
  if (order) order.forEach(add);
  else for (let i = 0; i < days.length; i++) add(i);
  const dayViews = (group: Array<[string, number[]]>): DayView[] => {
    const all = views(group.flatMap(([, at]) => at));
    let from = 0;
    return group.map(([key, at]) => ({ key, label: formatDay(c.ctx, key, c.locale), events: all.slice(from, (from += at.length)) }));
  };
  return {
    length: groups.size,
    *parts(size) {
      let group: Array<[string, number[]]> = [];
      let count = 0;
      for (const day of groups) {
        group.push(day);
        count += day[1].length;
        if (count >= size) {
          yield dayViews(group);
          group = [];
          count = 0;
        }
      }
      if (group.length > 0) yield dayViews(group);
    },
  };
}

/** A page's days, each with its events' views, made a part at a time. */
export interface DayList {
  /** How many days. */
  readonly length: number;
  /** The days in order, in parts of whole days with at least `size` events each (but the last). */
  parts(size: number): Iterable<DayView[]>;
}

/** Every day of a DayList, at once. */
export function allDays(days: DayList): DayView[] {
  return [...days.parts(Infinity)].flat();
}
