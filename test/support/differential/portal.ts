// The portal of a generated history: real HTTP on 127.0.0.1 port 0, serving whatever state the
// history has reached. Each calendar chooses its validators (ETag, Last-Modified or none) and
// whether its event list is paged; an event's details can be made to fail. Between builds the test
// swaps the state (set()); the server answers from the state as it is at each request.

import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startServer, type TestServer } from '../../http/test-server.js';

export type Validators = 'etag' | 'last-modified' | 'none';

/** One list entry of an event, as the portal sends it (details add a description). */
export interface PortalEntry {
  id: string;
  title: string;
  [field: string]: unknown;
}

export interface PortalCalendar {
  id: string;
  title: string;
  validators: Validators;
  /** Page size of the event list; 0: one unpaged list; negative: pages of -pageSize whose last links back to page 1. */
  pageSize: number;
  events: PortalEntry[];
  /** Ids whose details answer 404. */
  brokenDetails: string[];
  /** What details hold: the list entry and a description, or only the id and a description. */
  details: 'full' | 'description';
}

export interface PortalState {
  calendars: PortalCalendar[];
}

export interface HistoryPortal {
  url: string;
  token: string;
  set(state: PortalState): void;
  /** Requests served since the last call. */
  takeRequests(): number;
  close(): Promise<void>;
}

export const PORTAL_TOKEN = 'differential-token';

/** Start a portal answering from `state` (replace it with set()). */
export async function startHistoryPortal(initial: PortalState): Promise<HistoryPortal> {
  let state = initial;
  // Last-Modified dates: the instant a body was first served, on a clock of its own that only
  // moves forward, so a changed body always gets a later date.
  const firstServed = new Map<string, string>();
  let clock = Date.UTC(2020, 0, 1);
  let requests = 0;
  const lastModified = (hash: string): string => {
    let date = firstServed.get(hash);
    if (date === undefined) {
      clock += 1000;
      date = new Date(clock).toUTCString();
      firstServed.set(hash, date);
    }
    return date;
  };

  const server: TestServer = await startServer({}, (req, res) => {
    requests++;
    if (req.headers.authorization !== `Bearer ${PORTAL_TOKEN}`) return send(res, 401, { error: 'unauthorized' });
    const url = new URL(req.url ?? '/', 'http://portal');
    const parts = url.pathname.split('/').slice(1).map(decodeURIComponent);
    if (parts.length === 1 && parts[0] === 'event-calendars') {
      return answer(req, res, 'etag', { data: state.calendars.map((c) => ({ id: c.id, title: c.title })) });
    }
    const calendar = state.calendars.find((c) => c.id === parts[1]);
    if (parts.length === 3 && parts[0] === 'event-calendar' && parts[2] === 'events') {
      if (!calendar) return send(res, 404, { error: 'no such calendar' });
      if (calendar.pageSize === 0) return answer(req, res, calendar.validators, { data: calendar.events });
      const size = Math.abs(calendar.pageSize);
      const page = Math.max(1, Number(url.searchParams.get('page') ?? '1'));
      const pages = Math.max(1, Math.ceil(calendar.events.length / size));
      const items = calendar.events.slice((page - 1) * size, page * size);
      const loops = calendar.pageSize < 0 && page === pages;
      const next = page < pages ? `${server.url}${url.pathname}?page=${page + 1}` : loops ? `${server.url}${url.pathname}?page=1` : null;
      return answer(req, res, calendar.validators, { data: items, links: { next } });
    }
    if (parts.length === 5 && parts[0] === 'event-calendar' && parts[2] === 'event' && parts[4] === 'details') {
      const eventId = parts[3]!;
      // A duplicated id's details are those of its first list entry.
      const event = calendar?.events.find((e) => e.id === eventId);
      if (!calendar || !event || calendar.brokenDetails.includes(eventId)) return send(res, 404, { error: 'no such event' });
      const description = `<p>About ${event.title}</p>`;
      return answer(req, res, calendar.validators, { data: calendar.details === 'full' ? { ...event, description } : { id: event.id, description } });
    }
    send(res, 404, { error: 'no route' });
  });

  function answer(req: IncomingMessage, res: ServerResponse, validators: Validators, body: unknown): void {
    const text = JSON.stringify(body, null, 1);
    const hash = createHash('sha1').update(text).digest('hex');
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    if (validators === 'etag') {
      headers.etag = `"${hash}"`;
      if (req.headers['if-none-match'] === headers.etag) return void res.writeHead(304, headers).end();
    } else if (validators === 'last-modified') {
      headers['last-modified'] = lastModified(hash);
      if (req.headers['if-modified-since'] === headers['last-modified']) return void res.writeHead(304, headers).end();
    }
    res.writeHead(200, headers).end(text);
  }

  function send(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  return {
    url: server.url,
    token: PORTAL_TOKEN,
    set: (next) => void (state = next),
    takeRequests: () => {
      const n = requests;
      requests = 0;
      return n;
    },
    close: () => server.close(),
  };
}
