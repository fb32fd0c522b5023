// A portal's history as data: an initial portal and a sequence of steps, each a batch of mutations
// and a move of "now". Plain JSON, so a failing history prints as a literal a regression test can
// replay. Mutations name calendars and events by position (taken modulo what exists when they
// apply), so any generated step applies to any state and shrinking keeps histories valid.

import type { PortalCalendar, PortalEntry, PortalState, Validators } from './portal.js';

/** The first build's "now": a Monday morning in Vilnius. */
export const BASE_NOW = Date.UTC(2026, 2, 2, 7, 30);
const MINUTE = 60_000;

export interface ModelEvent {
  id: string;
  title: string;
  /** Minutes from BASE_NOW. */
  start: number;
  /** Minutes from the start; null: no end. */
  duration: number | null;
  allDay: boolean;
  location: string | null;
  cancelled: boolean;
  /** Minutes from BASE_NOW; null: the portal sends no updatedAt. */
  updatedAt: number | null;
  categories: string[];
  /** Field names the portal leaves out of this entry ("start": the event cannot be read). */
  omit: string[];
}

export interface ModelCalendar {
  id: string;
  title: string;
  validators: Validators;
  pageSize: number;
  events: ModelEvent[];
  brokenDetails: string[];
  details: 'full' | 'description';
}

export type Mutation =
  | { kind: 'addEvent'; cal: number; event: ModelEvent }
  | { kind: 'removeEvent'; cal: number; at: number }
  | { kind: 'editEvent'; cal: number; at: number; patch: Partial<ModelEvent> }
  | { kind: 'cancel'; cal: number; at: number; cancelled: boolean }
  | { kind: 'moveToPast'; cal: number; at: number; minutesAgo: number }
  | { kind: 'duplicate'; cal: number; at: number; title: string }
  | { kind: 'addCalendar'; calendar: ModelCalendar }
  | { kind: 'removeCalendar'; cal: number }
  | { kind: 'renameCalendar'; cal: number; title: string }
  | { kind: 'emptyCalendar'; cal: number }
  | { kind: 'breakDetails'; cal: number; at: number }
  | { kind: 'fixDetails'; cal: number; at: number }
  | { kind: 'validators'; cal: number; validators: Validators }
  | { kind: 'paging'; cal: number; pageSize: number };

export interface Step {
  mutations: Mutation[];
  /** How far "now" moves before this step's build, in minutes. */
  advance: number;
  /** Also rebuild once more with nothing changed: it must be up to date and touch nothing. */
  checkUnchanged: boolean;
  /** The build store loses its record of the last build first (as a build killed after its publish leaves it). */
  loseRecord?: boolean;
}

export interface History {
  calendars: ModelCalendar[];
  steps: Step[];
}

/** An ordinary event for hand-written histories: a 90-minute lecture, `more` changing any field. */
export function modelEvent(id: string, more: Partial<ModelEvent> = {}): ModelEvent {
  return { id, title: `Event ${id}`, start: 600, duration: 90, allDay: false, location: 'Room 1', cancelled: false, updatedAt: null, categories: [], omit: [], ...more };
}

/** The portal state after applying `mutations` at `now` (minutes from BASE_NOW); `calendars` is not changed. */
export function applyMutations(calendars: readonly ModelCalendar[], mutations: readonly Mutation[], now: number): ModelCalendar[] {
  const next = calendars.map((c) => ({ ...c, events: c.events.map((e) => ({ ...e })), brokenDetails: [...c.brokenDetails] }));
  for (const m of mutations) applyOne(next, m, now);
  return next;
}

function applyOne(cals: ModelCalendar[], m: Mutation, now: number): void {
  if (m.kind === 'addCalendar') {
    if (!cals.some((c) => c.id === m.calendar.id)) cals.push(structuredClone(m.calendar));
    return;
  }
  if (cals.length === 0) return;
  const ci = m.cal % cals.length;
  const cal = cals[ci]!;
  switch (m.kind) {
    case 'removeCalendar':
      cals.splice(ci, 1);
      return;
    case 'renameCalendar':
      cal.title = m.title;
      return;
    case 'emptyCalendar':
      cal.events = [];
      return;
    case 'validators':
      cal.validators = m.validators;
      return;
    case 'paging':
      cal.pageSize = m.pageSize;
      return;
    case 'addEvent':
      cal.events.push(structuredClone(m.event));
      return;
  }
  if (cal.events.length === 0) return;
  const at = m.at % cal.events.length;
  const event = cal.events[at]!;
  switch (m.kind) {
    case 'removeEvent':
      cal.events.splice(at, 1);
      return;
    case 'editEvent':
      Object.assign(event, structuredClone(m.patch));
      return;
    case 'cancel':
      event.cancelled = m.cancelled;
      return;
    case 'moveToPast':
      event.start = now - m.minutesAgo;
      return;
    case 'duplicate':
      cal.events.push({ ...structuredClone(event), title: m.title });
      return;
    case 'breakDetails':
      if (!cal.brokenDetails.includes(event.id)) cal.brokenDetails.push(event.id);
      // calfeed asks again for the details of an unchanged list entry only after --details-max-age
      // (a documented delay, which spares the portal); the portal's list shows the change here, so
      // the step compares what both builds can know.
      for (const e of cal.events) if (e.id === event.id) e.updatedAt = now;
      return;
    case 'fixDetails':
      cal.brokenDetails = cal.brokenDetails.filter((id) => id !== event.id);
      return;
  }
}

/** What the portal serves for a model state. */
export function portalState(calendars: readonly ModelCalendar[]): PortalState {
  return {
    calendars: calendars.map(
      (c): PortalCalendar => ({
        id: c.id,
        title: c.title,
        validators: c.validators,
        pageSize: c.pageSize,
        events: c.events.map(portalEntry),
        brokenDetails: c.brokenDetails,
        details: c.details,
      }),
    ),
  };
}

function portalEntry(e: ModelEvent): PortalEntry {
  const entry: PortalEntry = { id: e.id, title: e.title };
  const start = BASE_NOW + e.start * MINUTE;
  if (e.allDay) {
    entry.start = isoDate(start);
    if (e.duration !== null) entry.end = isoDate(start + Math.max(1, Math.ceil(e.duration / 1440)) * 86_400_000);
    entry.allDay = true;
  } else {
    entry.start = isoInstant(start);
    if (e.duration !== null) entry.end = isoInstant(start + e.duration * MINUTE);
  }
  if (e.location !== null) entry.location = e.location;
  if (e.cancelled) entry.status = 'cancelled';
  if (e.updatedAt !== null) entry.updatedAt = isoInstant(BASE_NOW + e.updatedAt * MINUTE);
  if (e.categories.length > 0) entry.categories = e.categories;
  for (const field of e.omit) delete entry[field];
  return entry;
}

const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
// With an offset, as portals in Vilnius send them; the instant is the same.
const isoInstant = (ms: number): string => new Date(ms + 2 * 3_600_000).toISOString().slice(0, 19) + '+02:00';
