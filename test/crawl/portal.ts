// A small Event Calendar API for crawl tests: real HTTP on 127.0.0.1, ETags on every answer,
// several paging styles, per-event failures, and data the test can change between crawls.
// Bodies are indented on purpose: a crawler that re-serializes instead of mirroring bytes shows up.

import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startServer, wait, type Recorded, type TestServer } from '../http/test-server.js';

export type PagingStyle =
  | 'none'
  | 'next'
  | 'links.next'
  | '_links.next.href'
  | 'meta.next'
  | 'paging.next'
  | '@odata.nextLink'
  | 'link-header'
  | 'counters'
  | 'meta-counters'
  | 'query'
  | 'loop'
  | 'endless';

export interface PortalEvent {
  id: string;
  title: string;
  [key: string]: unknown;
}

export interface PortalOptions {
  token: string;
  calendars: Array<{ id: string; title: string }>;
  /** Events per calendar id; tests may change it between crawls. */
  events: Map<string, PortalEvent[]>;
  paging?: PagingStyle;
  pageSize?: number;
  /** Delay before every answer, so requests overlap and in-flight counts mean something. */
  delayMs?: number;
  /** A status to answer instead of the details (e.g. 404), per event. */
  detailsStatus?: (calendarId: string, eventId: string) => number | undefined;
  /** Answer an event's details only once this settles (when it returns a promise). */
  holdDetails?: (calendarId: string, eventId: string) => Promise<void> | undefined;
  /** A status to answer instead of a calendar's event list. */
  eventsStatus?: (calendarId: string) => number | undefined;
}

export interface Portal {
  url: string;
  server: TestServer;
  opts: PortalOptions;
  /** The last 200 body served per request path (with query), for byte-for-byte checks. */
  bodies: Map<string, string>;
  listRequests(): Recorded[];
  detailsRequests(): Recorded[];
  close(): Promise<void>;
}

/** Starts the portal. */
export async function startPortal(opts: PortalOptions): Promise<Portal> {
  const bodies = new Map<string, string>();
  const server = await startServer({}, async (req, res) => {
    if (opts.delayMs) await wait(opts.delayMs);
    if (req.headers.authorization !== `Bearer ${opts.token}`) return send(req, res, 401, '{"error":"unauthorized"}');
    const url = new URL(req.url ?? '/', 'http://portal');
    const parts = url.pathname.split('/').slice(1).map(decodeURIComponent);
    if (parts.length === 1 && parts[0] === 'event-calendars') {
      return ok(req, res, { data: opts.calendars });
    }
    if (parts.length === 3 && parts[0] === 'event-calendar' && parts[2] === 'events') {
      const calendarId = parts[1]!;
      const events = opts.events.get(calendarId);
      const status = opts.eventsStatus?.(calendarId);
      if (!events || status) return send(req, res, status ?? 404, '{"error":"no such calendar"}');
      return page(req, res, url, events);
    }
    if (parts.length === 5 && parts[0] === 'event-calendar' && parts[2] === 'event' && parts[4] === 'details') {
      const [, calendarId, , eventId] = parts as [string, string, string, string, string];
      await opts.holdDetails?.(calendarId, eventId);
      const status = opts.detailsStatus?.(calendarId, eventId);
      const event = opts.events.get(calendarId)?.find((e) => e.id === eventId);
      if (!event || status) return send(req, res, status ?? 404, '{"error":"no such event"}');
      return ok(req, res, { data: { ...event, description: `<p>Details of ${event.title}</p>` } });
    }
    send(req, res, 404, '{"error":"no route"}');
  });

  const abs = (url: URL, page: number): string => `${server.url}${url.pathname}?page=${page}`;

  function page(req: IncomingMessage, res: ServerResponse, url: URL, events: PortalEvent[]): void {
    const style = opts.paging ?? 'none';
    if (style === 'none') return ok(req, res, { events });
    const size = opts.pageSize ?? 10;
    const p = Number(url.searchParams.get('page') ?? '1');
    const last = Math.max(1, Math.ceil(events.length / size));
    const items = events.slice((p - 1) * size, p * size);
    const next = p < last ? abs(url, p + 1) : null;
    switch (style) {
      case 'next':
        return ok(req, res, { events: items, next: next && `?page=${p + 1}` }); // relative link
      case 'links.next':
        return ok(req, res, { data: items, links: { self: abs(url, p), next } });
      case '_links.next.href':
        return ok(req, res, { _embedded: { events: items }, _links: next ? { next: { href: next } } : {} });
      case 'meta.next':
        return ok(req, res, { items, meta: { next } });
      case 'paging.next':
        return ok(req, res, { data: items, paging: { next } });
      case '@odata.nextLink':
        return ok(req, res, next ? { value: items, '@odata.nextLink': next } : { value: items });
      case 'link-header':
        return ok(req, res, items, next ? { link: `<${abs(url, 1)}>; rel="first", <${next}>; rel="next"` } : {});
      case 'counters':
        return ok(req, res, { events: items, page: p, totalPages: last });
      case 'meta-counters':
        return ok(req, res, { data: items, meta: { current_page: String(p), last_page: last } });
      case 'query':
        return ok(req, res, items);
      case 'loop':
        return ok(req, res, { events: items, next: abs(url, p === 1 ? 2 : 1) });
      case 'endless':
        return ok(req, res, { events: [{ id: `e${p}`, title: `Event ${p}` }], next: abs(url, p + 1) });
    }
  }

  function ok(req: IncomingMessage, res: ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body, null, 2);
    const etag = `"${createHash('sha1').update(text).digest('hex')}"`;
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { etag }).end();
      return;
    }
    bodies.set(req.url ?? '/', text);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', etag, ...headers }).end(text);
  }

  function send(_req: IncomingMessage, res: ServerResponse, status: number, body: string): void {
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  }

  return {
    url: server.url,
    server,
    opts,
    bodies,
    listRequests: () => server.requests.filter((r) => !r.url.includes('/details')),
    detailsRequests: () => server.requests.filter((r) => r.url.includes('/details')),
    close: () => server.close(),
  };
}

/** Events e1..eN for a calendar. */
export function makeEvents(calendarId: string, n: number): PortalEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `e${i + 1}`,
    title: `${calendarId} event ${i + 1}`,
    start: `2024-11-${String((i % 28) + 1).padStart(2, '0')}T10:00:00Z`,
  }));
}
