// The embedded demo portal: calfeed's zero-config default and the fixture of every end-to-end test
// and the benchmark. node:http only. This file is the HTTP edge: routing to routes.ts, auth, faults,
// injected latency, ETag / Last-Modified with 304s, stats, and a close() that never hangs.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ConfigError } from '../errors.js';
import { DEMO_TOKENS, organizationOf, rawCredential, unauthorizedMessage, type DemoAuth } from './auth.js';
import { etagOf, isConditional, isNotModified } from './conditional.js';
import { curatedSource } from './curated.js';
import { DEMO_TIME_ZONE, anchorDay, type DemoSource } from './data.js';
import { DIALECTS, type DemoDialect } from './dialects.js';
import { listen } from '../listen.js';
import { FAULTS, faultAfterAuth, faultBeforeAuth, streamHugeCalendars, type DemoFault, type FaultAction } from './faults.js';
import { startForeignRecorder, type ForeignRecorder } from './foreign.js';
import { REDIRECTING_EVENT, hostileSource } from './hostile.js';
import { DemoMutations } from './mutations.js';
import { errorBody, parseRoute, resolveRoute, type RouteContext, type RouteResult } from './routes.js';
import { scaleSource } from './scale.js';

export type { DemoAuth } from './auth.js';
export type { DemoDialect } from './dialects.js';
export type { DemoFault } from './faults.js';
export { DEMO_TOKENS } from './auth.js';
export { DIALECTS } from './dialects.js';
export { FAULTS } from './faults.js';

export interface DemoPortalOptions {
  host?: string;
  port?: number;
  /** Epoch ms placing events relative to "today"; default Date.now() at start. Same day, same bytes. */
  now?: number;
  dialect?: DemoDialect;
  faults?: DemoFault;
  /** Delay before every response, for benchmarks. */
  latencyMs?: number;
  /** Scale mode: number of generated calendars (default: the curated set of 5). */
  calendars?: number;
  /** Scale mode: generated events per calendar. */
  eventsPerCalendar?: number;
  /** How the token must be sent; default `Authorization: Bearer <token>`. */
  auth?: DemoAuth;
}

export interface DemoStats {
  requests: number;
  byKind: { calendars: number; events: number; details: number; other: number };
  notModified: number;
  conditional: number;
  authFailures: number;
  /** Recent raw auth header values or query tokens seen (last 20), for tests. */
  lastAuthHeaders: string[];
  /** Requests the foreign origin (redirect target) received. */
  foreignRequests: number;
  /** Whether any request to the foreign origin carried an Authorization header or a token. */
  foreignAuthSeen: boolean;
  /** Responses replaced by an injected fault. */
  faultsInjected: number;
}

export interface DemoPortal {
  /** Base URL with a path prefix, e.g. http://127.0.0.1:43121/api */
  url: string;
  tokens: { university: string; faculty: string };
  /** The zone to pass as --time-zone (times without offset are wall times there). */
  timeZone: string;
  stats(): DemoStats;
  resetStats(): void;
  /** Change some events (title suffix, description, updatedAt, ETag), of one calendar if given. Returns [calendarId, eventId] pairs. */
  changeEvents(count: number, calendarId?: string): Array<[string, string]>;
  /** Remove one event from its calendar's list and make its details 404. */
  removeEvent(calendarId: string, eventId: string): void;
  /** Close the server and destroy open sockets, pending slow requests included. */
  close(): Promise<void>;
}


const PREFIX = '/api';
const JSON_TYPE = 'application/json; charset=utf-8';

function freshStats(): DemoStats {
  return {
    requests: 0,
    byKind: { calendars: 0, events: 0, details: 0, other: 0 },
    notModified: 0,
    conditional: 0,
    authFailures: 0,
    lastAuthHeaders: [],
    foreignRequests: 0,
    foreignAuthSeen: false,
    faultsInjected: 0,
  };
}

function positiveInt(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1) throw new ConfigError(`Demo portal: ${name} must be a positive integer, got ${value}.`);
  return value;
}

function chooseSource(options: DemoPortalOptions, now: number): DemoSource {
  if (options.faults === 'hostile') return hostileSource(now);
  // `empty`: a portal that suddenly lists no calendars (the shrink guard's case).
  if (options.faults === 'empty') return { ...curatedSource(now), calendars: () => [] };
  const calendars = positiveInt('calendars', options.calendars);
  const events = positiveInt('eventsPerCalendar', options.eventsPerCalendar);
  if (calendars === undefined && events === undefined) return curatedSource(now);
  return scaleSource(now, calendars ?? 5, events ?? 20);
}

/** Start the demo portal; resolves once it listens. */
export async function startDemoPortal(options: DemoPortalOptions = {}): Promise<DemoPortal> {
  const host = options.host ?? '127.0.0.1';
  const dialect = options.dialect ?? 'default';
  const faults = options.faults ?? 'none';
  if (!DIALECTS.includes(dialect)) throw new ConfigError(`Unknown demo dialect '${dialect}'. Valid: ${DIALECTS.join(', ')}.`);
  if (!FAULTS.includes(faults)) throw new ConfigError(`Unknown demo fault mode '${faults}'. Valid: ${FAULTS.join(', ')}.`);
  const latencyMs = options.latencyMs ?? 0;
  if (!Number.isFinite(latencyMs) || latencyMs < 0) throw new ConfigError(`Demo portal: latencyMs must be 0 or more, got ${latencyMs}.`);
  const auth: DemoAuth = options.auth ?? { mode: 'header', header: 'Authorization', scheme: 'Bearer' };
  const now = options.now ?? Date.now();
  const source = chooseSource(options, now);
  const scale = options.faults !== 'hostile' && (options.calendars !== undefined || options.eventsPerCalendar !== undefined);
  const ctx: RouteContext = {
    source,
    mutations: new DemoMutations(anchorDay(now).toMillis()),
    dialect,
    prefix: PREFIX,
    // Small pages so the curated calendars span several; larger at scale to keep request counts sane.
    pageSize: scale ? 100 : 5,
  };

  let stats = freshStats();
  let closed = false;
  const failedOnce = new Set<string>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  let foreign: ForeignRecorder | undefined;
  if (faults === 'hostile' || faults === 'redirect') {
    foreign = await startForeignRecorder(host, Object.values(DEMO_TOKENS), (path) => {
      // The foreign origin mirrors what the university would see, so following a redirect "works".
      const route = parseRoute(path.replace(/^\/mirror/, ''), PREFIX);
      const result = resolveRoute(ctx, 'university', route, new URLSearchParams());
      return result.status === 200 ? result.body : undefined;
    });
  }

  const delay = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': String(Buffer.byteLength(body)), ...headers });
    res.end(body);
  }


  async function carryOut(action: FaultAction, req: IncomingMessage, res: ServerResponse, rawPath: string): Promise<void> {
    stats.faultsInjected += 1;
    switch (action.type) {
      case 'respond':
        if (action.status === 401) stats.authFailures += 1;
        send(res, action.status, action.body, action.headers);
        return;
      case 'hang':
        return; // close() destroys the socket
      case 'reset':
        req.socket.destroy();
        return;
      case 'huge':
        await streamHugeCalendars(res);
        return;
      case 'foreign-redirect':
        // The Location never carries the token, even in query mode: only the path is forwarded.
        res.writeHead(302, { location: `${foreign?.origin ?? ''}/mirror${rawPath}`, 'content-type': JSON_TYPE, 'content-length': '0' });
        res.end();
        return;
    }
  }

  function answer(req: IncomingMessage, res: ServerResponse, result: RouteResult, origin: string): void {
    if (result.status !== 200) {
      send(res, result.status, result.body);
      return;
    }
    const etag = etagOf(result.body);
    const lastModified = new Date(result.lastModified ?? 0).toUTCString();
    const headers: Record<string, string> = { etag, 'last-modified': lastModified, 'cache-control': 'private, no-cache', vary: 'Authorization' };
    if (result.nextPath) headers.link = `<${origin}${result.nextPath}>; rel="next"`;
    if (isConditional(req.headers)) stats.conditional += 1;
    if (isNotModified(req.headers, etag, result.lastModified ?? Infinity)) {
      stats.notModified += 1;
      const { link: _link, ...rest } = headers;
      res.writeHead(304, rest).end();
      return;
    }
    send(res, 200, result.body, headers);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const rawPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : rawUrl.slice(q + 1));
    const route = parseRoute(rawPath, PREFIX);
    stats.requests += 1;
    stats.byKind[route.kind] += 1;
    if (latencyMs > 0) await delay(latencyMs);
    if (closed) return;
    if (req.method !== 'GET') {
      send(res, 405, errorBody('method_not_allowed', 'This API is read-only: use GET.'), { allow: 'GET' });
      return;
    }
    const early = faultBeforeAuth(faults);
    if (early) return carryOut(early, req, res, rawPath);

    const raw = rawCredential(auth, req, query);
    if (raw !== undefined) stats.lastAuthHeaders = [...stats.lastAuthHeaders, raw].slice(-20);
    const org = organizationOf(auth, raw);
    if (!org) {
      stats.authFailures += 1;
      send(res, 401, errorBody('unauthorized', unauthorizedMessage(auth)), { 'www-authenticate': auth.mode === 'header' && auth.scheme ? auth.scheme : 'Token' });
      return;
    }

    const keyQuery = new URLSearchParams(query);
    if (auth.mode === 'query') keyQuery.delete(auth.param);
    const urlKey = `${rawPath}?${keyQuery.toString()}`;
    let fault = faultAfterAuth(faults, route.kind, urlKey, failedOnce);
    if (!fault && faults === 'hostile' && route.calendarId === REDIRECTING_EVENT[0] && route.eventId === REDIRECTING_EVENT[1]) {
      fault = { type: 'foreign-redirect' };
    }
    if (fault) return carryOut(fault, req, res, rawPath);

    const origin = `http://${req.headers.host ?? host}`;
    answer(req, res, resolveRoute(ctx, org, route, query), origin);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent && !res.destroyed) send(res, 500, errorBody('internal', String(error)));
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await listen(server, options.port ?? 0, host).catch(async (error: unknown) => {
    await foreign?.close();
    throw error;
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('demo portal has no TCP address');
  const hostPart = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${hostPart}:${address.port}${PREFIX}`,
    tokens: { ...DEMO_TOKENS },
    timeZone: DEMO_TIME_ZONE,
    stats: () => ({
      ...stats,
      byKind: { ...stats.byKind },
      lastAuthHeaders: [...stats.lastAuthHeaders],
      foreignRequests: foreign?.requests() ?? 0,
      foreignAuthSeen: foreign?.authSeen() ?? false,
    }),
    resetStats: () => {
      stats = freshStats();
      foreign?.reset();
    },
    changeEvents: (count, calendarId) => ctx.mutations.change(source, count, calendarId),
    removeEvent: (calendarId, eventId) => ctx.mutations.remove(calendarId, eventId),
    close: async () => {
      if (closed) return;
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await Promise.all([done, foreign?.close()]);
    },
  };
}
