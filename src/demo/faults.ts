// Fault injection (issues 4 and 7): what the portal does instead of answering normally. Decisions are
// pure and deterministic (a hash of the URL, not a random draw), so a flaky build fails the same
// requests every time; the server carries them out.

import type { ServerResponse } from 'node:http';
import { hash32 } from './data.js';
import { errorBody, type RequestKind } from './routes.js';

export const FAULTS = ['none', 'flaky', 'down', 'garbage', 'slow', 'empty', 'unauthorized', 'hostile', 'huge', 'redirect'] as const;
export type DemoFault = (typeof FAULTS)[number];

export type FaultAction =
  | { type: 'respond'; status: number; headers: Record<string, string>; body: string }
  /** Never answer: headers never arrive (the `slow` mode). */
  | { type: 'hang' }
  /** Destroy the connection without a response. */
  | { type: 'reset' }
  /** Stream a calendars list larger than 25 MB. */
  | { type: 'huge' }
  /** 302 to the foreign recorder (another origin). */
  | { type: 'foreign-redirect' };

const SERVER_ERROR_PAGE =
  '<!DOCTYPE html>\n<html><head><title>500 Internal Server Error</title></head>' +
  '<body><h1>Internal Server Error</h1><p>The server encountered an internal error and was unable to complete your request.</p></body></html>\n';

const LOGIN_PAGE =
  '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Sign in – University Portal</title></head>' +
  '<body><form method="post" action="/login"><label>User <input name="user"></label>' +
  '<label>Password <input name="password" type="password"></label><button>Sign in</button></form></body></html>\n';

const html = (status: number, body: string): FaultAction => ({
  type: 'respond',
  status,
  headers: { 'content-type': 'text/html; charset=utf-8' },
  body,
});

/** Faults a broken server shows whether or not the token is right. */
export function faultBeforeAuth(mode: DemoFault): FaultAction | undefined {
  switch (mode) {
    case 'down':
      return html(500, SERVER_ERROR_PAGE);
    case 'garbage':
      return html(200, LOGIN_PAGE);
    case 'unauthorized':
      return {
        type: 'respond',
        status: 401,
        headers: { 'content-type': 'application/json; charset=utf-8', 'www-authenticate': 'Bearer error="invalid_token"' },
        body: errorBody('unauthorized', 'The access token has expired. Ask your Organization Administrator for a new one.'),
      };
    default:
      return undefined;
  }
}

/**
 * Which one-time failure the `flaky` mode gives a URL, or none. The calendars list always fails once
 * with 503 so every flaky build exercises a retry; other URLs fail by hash (about 3 in 10).
 */
export function flakyFailure(urlKey: string, kind: RequestKind): '503' | '429' | 'reset' | undefined {
  if (kind === 'calendars') return '503';
  switch (hash32(urlKey) % 10) {
    case 0:
      return '503';
    case 1:
      return '429';
    case 2:
      return 'reset';
    default:
      return undefined;
  }
}

/**
 * Faults that apply to an authenticated request. `failedOnce` holds the URL keys that already had
 * their one flaky failure.
 */
export function faultAfterAuth(mode: DemoFault, kind: RequestKind, urlKey: string, failedOnce: Set<string>): FaultAction | undefined {
  if (mode === 'flaky') {
    const failure = flakyFailure(urlKey, kind);
    if (!failure || failedOnce.has(urlKey)) return undefined;
    failedOnce.add(urlKey);
    if (failure === 'reset') return { type: 'reset' };
    return {
      type: 'respond',
      status: failure === '503' ? 503 : 429,
      headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1' },
      body: errorBody(failure === '503' ? 'unavailable' : 'rate_limited', 'Try again in a second.'),
    };
  }
  if (kind !== 'calendars') return undefined;
  switch (mode) {
    case 'slow':
      return { type: 'hang' };
    case 'huge':
      return { type: 'huge' };
    case 'redirect':
      return { type: 'foreign-redirect' };
    default:
      return undefined;
  }
}

/** Bytes of the `huge` calendars list: over 25 MB, so a 20 MB default body cap must trip. */
export const HUGE_BYTES = 26 * 1024 * 1024;

/**
 * Stream a valid JSON array of calendars of at least HUGE_BYTES, chunk by chunk with backpressure,
 * so the portal never holds the body (nor twice).
 */
export async function streamHugeCalendars(res: ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  const padding = 'x'.repeat(4000);
  let written = 0;
  let index = 0;
  const write = (chunk: string): Promise<void> =>
    new Promise((resolve) => {
      written += Buffer.byteLength(chunk);
      if (res.write(chunk)) resolve();
      else {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
      }
    });
  await write('[');
  while (written < HUGE_BYTES && !res.destroyed) {
    const parts: string[] = [];
    for (let i = 0; i < 16; i++, index++) {
      parts.push(JSON.stringify({ eventCalendarId: `huge-${index}`, title: `Huge calendar ${index}`, description: padding }));
    }
    await write((index > 16 ? ',' : '') + parts.join(','));
  }
  if (!res.destroyed) res.end(']');
}
