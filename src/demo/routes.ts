// The three API paths of the spec, answered from a DemoSource in a dialect. No sockets here: the
// server (server.ts) adds auth, faults, latency and conditional requests around `resolveRoute`.

import type { DemoEvent, DemoSource } from './data.js';
import { calendarsBody, detailsBody, eventsBody, type DemoDialect, type PageInfo } from './dialects.js';
import type { DemoMutations } from './mutations.js';

export type RequestKind = 'calendars' | 'events' | 'details' | 'other';
export type Organization = 'university' | 'faculty';

export interface Route {
  kind: RequestKind;
  calendarId?: string;
  eventId?: string;
}

export interface RouteResult {
  status: number;
  body: string;
  /** Epoch ms for Last-Modified; only on 200. */
  lastModified?: number;
  /** Root-relative path of the next page (envelope paging), for the Link header. */
  nextPath?: string;
}

export interface RouteContext {
  source: DemoSource;
  mutations: DemoMutations;
  dialect: DemoDialect;
  /** Path prefix of the API, e.g. '/api'. */
  prefix: string;
  /** Events per page in the envelope dialect. */
  pageSize: number;
}

/**
 * Parse a raw request path (no query) into a route. Segments are split on '/' *before* decoding,
 * so an id like `../../etc/passwd` arrives percent-encoded as one segment and is never normalized.
 */
export function parseRoute(rawPath: string, prefix: string): Route {
  if (!rawPath.startsWith(prefix + '/')) return { kind: 'other' };
  let parts: string[];
  try {
    parts = rawPath.slice(prefix.length + 1).split('/').map(decodeURIComponent);
  } catch {
    return { kind: 'other' };
  }
  const [a, calendarId, c, eventId, e, ...rest] = parts;
  if (parts.length === 1 && a === 'event-calendars') return { kind: 'calendars' };
  if (a !== 'event-calendar' || calendarId === undefined) return { kind: 'other' };
  if (parts.length === 3 && c === 'events') return { kind: 'events', calendarId };
  if (parts.length === 5 && c === 'event' && eventId !== undefined && e === 'details' && rest.length === 0) {
    return { kind: 'details', calendarId, eventId };
  }
  return { kind: 'other' };
}

/** A JSON error body, the same shape for every error the portal gives. */
export function errorBody(error: string, message: string): string {
  return JSON.stringify({ error, message });
}

const notFound = (message: string): RouteResult => ({ status: 404, body: errorBody('not_found', message) });

function visible(ctx: RouteContext, org: Organization) {
  const faculty = ctx.source.facultyCalendarIds();
  return ctx.source.calendars().filter((c) => org === 'university' || faculty.has(String(c.id)));
}

function currentEvents(ctx: RouteContext, calendarId: string): DemoEvent[] | undefined {
  const events = ctx.source.events(calendarId);
  if (!events) return undefined;
  const out: DemoEvent[] = [];
  for (const e of events) {
    const current = ctx.mutations.apply(e);
    if (current) out.push(current);
  }
  return out;
}

/** Answer one API request for an organization. */
export function resolveRoute(ctx: RouteContext, org: Organization, route: Route, query: URLSearchParams): RouteResult {
  if (route.kind === 'calendars') {
    return { status: 200, body: calendarsBody(ctx.dialect, visible(ctx, org)), lastModified: ctx.source.calendarsUpdatedAt() };
  }
  if (route.kind === 'other' || route.calendarId === undefined) {
    return notFound('No such API path. Paths: /event-calendars, /event-calendar/{eventCalendarId}/events, /event-calendar/{eventCalendarId}/event/{eventId}/details.');
  }
  const calendarId = route.calendarId;
  // Visibility first, and without generating the calendar's events: a details request must stay O(1) at scale.
  if (!visible(ctx, org).some((c) => String(c.id) === calendarId)) return notFound(`Event calendar '${calendarId}' was not found.`);

  if (route.kind === 'details') {
    const raw = route.eventId === undefined ? undefined : ctx.source.event(calendarId, route.eventId);
    const event = raw && ctx.mutations.apply(raw);
    if (!event) return notFound(`Event '${route.eventId}' was not found in event calendar '${calendarId}'.`);
    return { status: 200, body: detailsBody(ctx.dialect, event), lastModified: event.updatedAt };
  }

  const events = currentEvents(ctx, calendarId);
  if (!events) return notFound(`Event calendar '${calendarId}' was not found.`);
  let lastModified = Math.max(ctx.source.calendarsUpdatedAt(), ctx.mutations.listStamp(calendarId) ?? 0);
  for (const e of events) lastModified = Math.max(lastModified, e.updatedAt);
  if (ctx.dialect !== 'envelope') return { status: 200, body: eventsBody(ctx.dialect, events), lastModified };

  const pageParam = query.get('page') ?? '1';
  if (!/^[1-9][0-9]*$/.test(pageParam)) return { status: 400, body: errorBody('bad_request', `'page' must be a positive integer, got '${pageParam}'.`) };
  const page = Number(pageParam);
  const totalPages = Math.max(1, Math.ceil(events.length / ctx.pageSize));
  const base = `${ctx.prefix}/event-calendar/${encodeURIComponent(calendarId)}/events`;
  const info: PageInfo = {
    page,
    perPage: ctx.pageSize,
    total: events.length,
    totalPages,
    selfPath: `${base}?page=${page}`,
    ...(page < totalPages ? { nextPath: `${base}?page=${page + 1}` } : {}),
  };
  const slice = events.slice((page - 1) * ctx.pageSize, page * ctx.pageSize);
  return { status: 200, body: eventsBody('envelope', slice, info), lastModified, ...(info.nextPath ? { nextPath: info.nextPath } : {}) };
}
