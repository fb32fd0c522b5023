// Errors the HTTP client raises. Every message starts like ofetch's, `[GET] "url": ...`, so a CI log
// says which request failed, then says what to do about it. URLs in messages are always token-free.

import { STATUS_CODES } from 'node:http';
import { CalfeedError } from '../errors.js';

/** `[GET] "url"`: the prefix of every message about one request. */
export function requestLabel(url: string): string {
  return `[GET] "${url}"`;
}

/** "404 Not Found" (or just "599" for a status Node has no text for). */
export function statusLine(status: number): string {
  const text = STATUS_CODES[status];
  return text ? `${status} ${text}` : String(status);
}

/** The portal answered with an error status (code 'HTTP', or 'AUTH' for 401/403). */
export class HttpError extends CalfeedError {
  readonly url: string;
  readonly status: number;
  /** First bytes of the error body, escaped and token-free, for the log. */
  readonly bodySnippet: string;
  /** Retry-After the portal asked for, in ms, when it sent one. */
  readonly retryAfterMs: number | undefined;
  constructor(
    url: string,
    status: number,
    bodySnippet: string,
    options?: { message?: string; retryAfterMs?: number; cause?: unknown },
  ) {
    const auth = status === 401 || status === 403;
    super(auth ? 'AUTH' : 'HTTP', options?.message ?? HttpError.describe(url, status, bodySnippet), options);
    this.name = 'HttpError';
    this.url = url;
    this.status = status;
    this.bodySnippet = bodySnippet;
    this.retryAfterMs = options?.retryAfterMs;
  }

  /** The default message for a status; 401/403 tell the user what to do about the token. */
  static describe(url: string, status: number, bodySnippet: string): string {
    const head = `${requestLabel(url)}: ${statusLine(status)}`;
    if (status === 401 || status === 403) {
      return (
        `${head}. The portal rejected the token. Ask your organization's administrator for a valid ` +
        `token and set CALFEED_TOKEN (or --token-file).`
      );
    }
    return bodySnippet ? `${head}. Response starts with: ${bodySnippet}` : head;
  }
}

export type NetworkFailure = 'connect-timeout' | 'headers-timeout' | 'body-timeout' | 'request-timeout' | 'connection';

const TIMEOUT_HINT: Record<Exclude<NetworkFailure, 'connection'>, { what: string; flag: string }> = {
  'connect-timeout': { what: 'could not connect within', flag: '--connect-timeout' },
  'headers-timeout': { what: 'no response headers within', flag: '--headers-timeout' },
  'body-timeout': { what: 'the response body stalled for', flag: '--body-timeout' },
  'request-timeout': { what: 'the whole request took longer than', flag: '--request-timeout' },
};

/** Connection refused/reset or a timeout (code 'NETWORK'). */
export class NetworkError extends CalfeedError {
  readonly url: string;
  readonly failure: NetworkFailure;
  constructor(url: string, failure: NetworkFailure, detail: string, options?: { timeoutMs?: number; cause?: unknown }) {
    super('NETWORK', NetworkError.describe(url, failure, detail, options?.timeoutMs), options);
    this.name = 'NetworkError';
    this.url = url;
    this.failure = failure;
  }

  private static describe(url: string, failure: NetworkFailure, detail: string, timeoutMs?: number): string {
    if (failure === 'connection') {
      return `${requestLabel(url)}: ${detail}. Check --base-url and that the portal is reachable from this machine.`;
    }
    const hint = TIMEOUT_HINT[failure];
    const seconds = timeoutMs === undefined ? '' : ` ${formatSeconds(timeoutMs)}`;
    return `${requestLabel(url)}: ${hint.what}${seconds} (${failure.replace('-', ' ')}). If the portal is just slow, raise it with ${hint.flag} (seconds).`;
  }
}

/** The portal answered 2xx, but not with usable JSON (code 'RESPONSE'). */
export class ResponseError extends CalfeedError {
  readonly url: string;
  constructor(url: string, message: string, options?: { cause?: unknown }) {
    super('RESPONSE', message, options);
    this.name = 'ResponseError';
    this.url = url;
  }
}

/** A configured size limit was exceeded (code 'LIMIT'): the message names the limit and its flag. */
export class LimitError extends CalfeedError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('LIMIT', message, options);
    this.name = 'LimitError';
  }
}

/** "1.5 s", "60 s": how timeouts and waits are shown (the CLI takes seconds). */
export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
