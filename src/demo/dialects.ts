// How each dialect writes the same data. All four describe the same events (same English titles,
// same UTC instants, same locations), so end-to-end tests can build each and compare. Pure.
//
//   default       bare arrays, camelCase, ISO times with offset, all-day as startDate/endDate (inclusive)
//   envelope      {"data": ..., "meta": ...}, snake_case, UTC `Z` times, epoch-second updated_at,
//                 location under `venue` {name, address}, paged event lists (see server.ts)
//   multilingual  {"en","lt"} titles and titleEn/titleLt siblings, startDate + startTime wall times
//                 with no offset (Europe/Vilnius), list under {"items": [...]}
//   custom        like default, but the start sits under `kickoff.at`, which detection cannot find

import { wallParts, type DemoCalendar, type DemoEvent } from './data.js';

export const DIALECTS = ['default', 'envelope', 'multilingual', 'custom'] as const;
export type DemoDialect = (typeof DIALECTS)[number];

/** Paging facts for one page of an envelope event list. Paths are root-relative, without the token. */
export interface PageInfo {
  page: number;
  perPage: number;
  total: number;
  totalPages: number;
  selfPath: string;
  nextPath?: string;
}

type Json = Record<string, unknown>;

const isoZ = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
const isoOffset = (ms: number): string => {
  const { local, offset } = wallParts(ms);
  return local + offset;
};

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function snakeKeys(record: Json): Json {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [snake(k), v]));
}

// ---- default (and custom, which differs only in the start field) ----

function defaultWhen(e: DemoEvent, custom: boolean): Json {
  const w = e.when;
  if (w.kind === 'allDay') {
    const start = custom ? { kickoff: { at: w.startDate } } : { startDate: w.startDate };
    return { ...start, endDate: w.endDate, allDay: true };
  }
  const start = custom ? { kickoff: { at: isoOffset(w.start) } } : { startDateTime: isoOffset(w.start) };
  const end = w.end !== undefined ? { endDateTime: isoOffset(w.end) } : e.endAsNull ? { endDateTime: null } : {};
  return { ...start, ...end, allDay: false };
}

function defaultEntry(e: DemoEvent, custom: boolean): Json {
  return {
    eventId: e.id,
    title: e.title,
    ...defaultWhen(e, custom),
    ...(e.location !== undefined ? { location: e.location } : {}),
    status: e.cancelled ? 'cancelled' : 'scheduled',
    updatedAt: isoZ(e.updatedAt),
  };
}

function defaultDetails(e: DemoEvent, custom: boolean): Json {
  return {
    ...defaultEntry(e, custom),
    eventCalendarId: e.calendarId,
    description: e.description,
    url: e.url,
    categories: e.categories,
    ...(e.organizer ? { organizer: e.organizer } : {}),
    ...(e.image ? { image: e.image } : {}),
    ...(e.featured ? { featured: true } : {}),
    ...e.extra,
  };
}

// ---- envelope ----

function envelopeEntry(e: DemoEvent): Json {
  const w = e.when;
  const when: Json =
    w.kind === 'allDay'
      ? { start_date: w.startDate, end_date: w.endDate, is_all_day: true }
      : { start_date_time: isoZ(w.start), ...(w.end !== undefined ? { end_date_time: isoZ(w.end) } : {}), is_all_day: false };
  const loc = e.location;
  return {
    event_id: e.id,
    title: e.title,
    ...when,
    ...(loc !== undefined ? { venue: typeof loc === 'string' ? { name: loc } : { name: loc.name, address: loc.address } } : {}),
    is_cancelled: e.cancelled,
    updated_at: Math.floor(e.updatedAt / 1000),
  };
}

function envelopeDetails(e: DemoEvent): Json {
  return {
    ...envelopeEntry(e),
    description: e.description,
    url: e.url,
    tags: e.categories,
    ...(e.organizer ? { contact: e.organizer } : {}),
    ...(e.image ? { image: e.image } : {}),
    ...(e.featured ? { is_featured: 1 } : {}),
    ...snakeKeys(e.extra ?? {}),
  };
}

// ---- multilingual ----

function multilingualWhen(e: DemoEvent): Json {
  const w = e.when;
  if (w.kind === 'allDay') {
    return { startDate: w.startDate, ...(w.endDate !== w.startDate ? { endDate: w.endDate } : {}), allDay: true };
  }
  const start = wallParts(w.start).local;
  const out: Json = { startDate: start.slice(0, 10), startTime: start.slice(11, 16) };
  if (w.end !== undefined) {
    const end = wallParts(w.end).local;
    out.endDate = end.slice(0, 10);
    out.endTime = end.slice(11, 16);
  }
  return { ...out, allDay: false };
}

function multilingualEntry(e: DemoEvent): Json {
  return {
    eventId: e.id,
    title: { en: e.title, lt: e.titleLt },
    ...multilingualWhen(e),
    ...(e.location !== undefined ? { location: e.location } : {}),
    cancelled: e.cancelled,
    lastModified: isoOffset(e.updatedAt),
  };
}

function multilingualDetails(e: DemoEvent): Json {
  return {
    ...multilingualEntry(e),
    description: { en: e.description, lt: e.descriptionLt },
    url: e.url,
    categories: e.categories,
    ...(e.organizer ? { organiser: e.organizer } : {}),
    ...(e.image ? { image: e.image } : {}),
    ...(e.featured ? { highlighted: 'yes' } : {}),
    ...e.extra,
  };
}

// ---- public ----

/** Body of GET /event-calendars in a dialect. */
export function calendarsBody(dialect: DemoDialect, calendars: DemoCalendar[]): string {
  switch (dialect) {
    case 'envelope':
      return JSON.stringify(
        {
          data: calendars.map((c) => ({ event_calendar_id: c.id, title: c.title, description: c.description, time_zone: c.timeZone, url: c.url })),
          meta: { total: calendars.length },
        },
        null,
        2,
      );
    case 'multilingual':
      return JSON.stringify({
        eventCalendars: calendars.map((c) => ({
          calendarId: c.id,
          titleEn: c.title,
          titleLt: c.titleLt,
          descriptionEn: c.description,
          descriptionLt: c.descriptionLt,
          timeZone: c.timeZone,
          url: c.url,
        })),
      });
    default:
      return JSON.stringify(
        calendars.map((c) => ({ eventCalendarId: c.id, title: c.title, description: c.description, timeZone: c.timeZone, url: c.url })),
      );
  }
}

/** Body of GET /event-calendar/{id}/events (one page of it for the envelope dialect). */
export function eventsBody(dialect: DemoDialect, events: DemoEvent[], page?: PageInfo): string {
  switch (dialect) {
    case 'envelope': {
      const meta = page
        ? { page: page.page, per_page: page.perPage, total: page.total, total_pages: page.totalPages }
        : { page: 1, per_page: events.length, total: events.length, total_pages: 1 };
      const links = page ? { self: page.selfPath, ...(page.nextPath ? { next: page.nextPath } : {}) } : {};
      return JSON.stringify({ data: events.map(envelopeEntry), meta, links }, null, 2);
    }
    case 'multilingual':
      return JSON.stringify({ items: events.map(multilingualEntry), count: events.length });
    case 'custom':
      return JSON.stringify(events.map((e) => defaultEntry(e, true)));
    default:
      return JSON.stringify(events.map((e) => defaultEntry(e, false)));
  }
}

/** Body of GET /event-calendar/{id}/event/{eventId}/details. */
export function detailsBody(dialect: DemoDialect, event: DemoEvent): string {
  switch (dialect) {
    case 'envelope':
      return JSON.stringify({ data: envelopeDetails(event), meta: { language: 'en' } }, null, 2);
    case 'multilingual':
      return JSON.stringify(multilingualDetails(event));
    case 'custom':
      return JSON.stringify(defaultDetails(event, true));
    default:
      return JSON.stringify(defaultDetails(event, false));
  }
}
