// Retry policy: which answers deserve another try, and how long to wait.

import { formatSeconds, HttpError, NetworkError } from './errors.js';

/** Statuses worth retrying, each with the reason shown in the log. */
export const RETRY_STATUS: ReadonlyMap<number, string> = new Map([
  [408, 'request timeout'],
  [425, 'too early'],
  [429, 'rate limited'],
  [500, 'server error'],
  [502, 'bad gateway'],
  [503, 'service unavailable'],
  [504, 'gateway timeout'],
]);

/** Whether a response status is worth another attempt. */
export function isRetryableStatus(status: number): boolean {
  return RETRY_STATUS.has(status);
}

/** Full-jitter backoff, a random wait in [0, min(cap, base * 2^attempt)); `attempt` 0 is the first retry. */
export function backoffMs(attempt: number, baseMs: number, capMs: number, random: () => number): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}

/** Retry-After (RFC 9110): seconds or an HTTP date, as ms from `nowMs` (0 if past); else undefined. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only accept something that looks like an HTTP date: Date.parse is lenient about junk like "5".
  if (!/^[A-Za-z]{3},? /.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

export interface RetryPolicy {
  /** Extra attempts after the first. */
  retries: number;
  retryBaseMs: number;
  /** Cap on any single wait, Retry-After included. */
  retryMaxWaitMs: number;
  random: () => number;
}

/** The wait before the next attempt, with the reason for the log; undefined: give up (the message says why). */
export function retryWait(error: unknown, attempt: number, policy: RetryPolicy): { ms: number; reason: string } | undefined {
  let reason: string;
  if (error instanceof HttpError && isRetryableStatus(error.status)) {
    reason = `${error.status} ${RETRY_STATUS.get(error.status)}`;
  } else if (error instanceof NetworkError) {
    reason = error.failure === 'connection' ? 'connection failed' : error.failure.replace('-', ' ');
  } else {
    return undefined;
  }
  if (attempt >= policy.retries) {
    if (policy.retries > 0) error.message += ` Gave up after ${attempt + 1} attempts.`;
    return undefined;
  }
  const asked = error instanceof HttpError ? error.retryAfterMs : undefined;
  if (asked !== undefined && asked > policy.retryMaxWaitMs) {
    error.message +=
      ` The portal asked to wait ${formatSeconds(asked)} (Retry-After), longer than --retry-max-wait ` +
      `(${formatSeconds(policy.retryMaxWaitMs)}). Try again later, or raise --retry-max-wait.`;
    return undefined;
  }
  const ms = asked ?? backoffMs(attempt, policy.retryBaseMs, policy.retryMaxWaitMs, policy.random);
  return { ms, reason };
}
