// One HTTP exchange over undici: send a GET, read the body under a size cap, and turn undici's
// low-level failures into NetworkError / LimitError with messages a person can act on.

import { request, type Dispatcher } from 'undici';
import { CalfeedError, interrupted } from '../errors.js';
import { LimitError, NetworkError, requestLabel } from './errors.js';
import { escapePortal } from '../safe-text.js';
import { redact } from './redact.js';

export interface ExchangeOptions {
  dispatcher: Dispatcher;
  headers: Record<string, string>;
  signal: AbortSignal | undefined;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  requestTimeoutMs: number;
  connectTimeoutMs: number;
  maxResponseBytes: number;
  /** Token-free URL for messages. */
  displayUrl: string;
  token: string | undefined;
}

export interface Exchange {
  status: number;
  /** Lower-case names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  /** The whole body for 2xx, the first bytes for 4xx/5xx, empty otherwise. */
  body: Buffer;
}

/** Bytes of an error body kept for the message; the rest is discarded. */
const ERROR_BODY_BYTES = 1024;

/** Sends one GET and reads its body; throws NetworkError, LimitError or CalfeedError('INTERRUPTED'). */
export async function exchange(url: URL, opts: ExchangeOptions): Promise<Exchange> {
  const deadline = new Deadline(opts.signal, opts.requestTimeoutMs);
  try {
    return await exchangeUntil(url, opts, deadline);
  } finally {
    deadline.clear();
  }
}

/** The caller's signal plus the request's deadline: undici's timeouts bound each wait, not the whole. */
class Deadline {
  readonly signal: AbortSignal;
  expired = false;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort = (): void => this.controller.abort(this.parent?.reason);

  constructor(private readonly parent: AbortSignal | undefined, ms: number) {
    this.signal = this.controller.signal;
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort();
    }, ms);
    if (parent?.aborted) this.onAbort();
    else parent?.addEventListener('abort', this.onAbort, { once: true });
  }

  clear(): void {
    clearTimeout(this.timer);
    this.parent?.removeEventListener('abort', this.onAbort);
  }
}

async function exchangeUntil(url: URL, opts: ExchangeOptions, deadline: Deadline): Promise<Exchange> {
  let response: Dispatcher.ResponseData;
  try {
    response = await request(url, {
      method: 'GET',
      dispatcher: opts.dispatcher,
      headers: opts.headers,
      signal: deadline.signal,
      headersTimeout: opts.headersTimeoutMs,
      bodyTimeout: opts.bodyTimeoutMs,
    });
  } catch (error) {
    throw networkError(error, opts, deadline);
  }
  const headers = flattenHeaders(response.headers);
  const status = response.statusCode;
  try {
    if (status >= 200 && status < 300) {
      return { status, headers, body: await readCapped(response.body, headers, opts) };
    }
    if (status >= 400) {
      return { status, headers, body: await readHead(response.body, ERROR_BODY_BYTES) };
    }
    await response.body.dump();
    return { status, headers, body: Buffer.alloc(0) };
  } catch (error) {
    // Destroying an unread undici body emits RequestAbortedError, which would crash an unlistened process.
    response.body.on('error', () => undefined);
    response.body.destroy();
    throw networkError(error, opts, deadline);
  }
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

async function readCapped(
  body: Dispatcher.ResponseData['body'],
  headers: Record<string, string>,
  opts: ExchangeOptions,
): Promise<Buffer> {
  const declared = Number(headers['content-length']);
  // Refuse a declared oversize body before downloading any of it.
  if (Number.isFinite(declared) && declared > opts.maxResponseBytes) throw tooLarge(opts);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > opts.maxResponseBytes) throw tooLarge(opts);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

async function readHead(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= maxBytes) break; // leaving the loop destroys the stream: no need to download an error page
  }
  return Buffer.concat(chunks, size).subarray(0, maxBytes);
}

function tooLarge(opts: ExchangeOptions): LimitError {
  return new LimitError(
    `${requestLabel(opts.displayUrl)}: the response is larger than ${formatBytes(opts.maxResponseBytes)}, ` +
      `the limit set by --max-response-bytes. Raise --max-response-bytes if the portal really sends bodies this big.`,
  );
}

/** "20 MB", "512 KB", "100 bytes". */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KB`;
  return `${n} bytes`;
}

const CONNECTION_TEXT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the portal',
  EPIPE: 'connection closed by the portal',
  UND_ERR_SOCKET: 'connection closed by the portal',
  UND_ERR_CLOSED: 'connection closed',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'response ended before its Content-Length',
};

/** Maps whatever undici threw to one of our errors; passes our own errors through. */
function networkError(error: unknown, opts: ExchangeOptions, deadline: Deadline): Error {
  if (error instanceof CalfeedError) return error;
  if (opts.signal?.aborted) return interrupted({ cause: error });
  const url = opts.displayUrl;
  if (deadline.expired) return new NetworkError(url, 'request-timeout', '', { timeoutMs: opts.requestTimeoutMs, cause: error });
  const code = (error as { code?: string }).code ?? '';
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new NetworkError(url, 'connect-timeout', '', { timeoutMs: opts.connectTimeoutMs, cause: error });
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new NetworkError(url, 'headers-timeout', '', { timeoutMs: opts.headersTimeoutMs, cause: error });
    case 'UND_ERR_BODY_TIMEOUT':
      return new NetworkError(url, 'body-timeout', '', { timeoutMs: opts.bodyTimeoutMs, cause: error });
  }
  const text = CONNECTION_TEXT[code] ?? `request failed (${escapePortal(redact((error as Error).message ?? String(error), opts.token))})`;
  return new NetworkError(url, 'connection', text, { cause: error });
}
