// The portal client: keep-alive connections, a bound on requests in flight, an optional pacer,
// retries that honor Retry-After, redirects kept to the portal's origin, conditional GETs. Every URL
// it reports is token-free: the token is added only on the wire, and one the portal echoes is masked.

import { setTimeout as delay } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import { interrupted } from '../errors.js';
import { HttpError, requestLabel, statusLine } from './errors.js';
import { exchange, type Exchange } from './exchange.js';
import type { JsonList } from './json-list.js';
import { parseJson, parseJsonList } from './json.js';
import { Gate, Pacer } from './rate-limit.js';
import { bodySnippet } from './redact.js';
import { parseRetryAfter, retryWait } from './retry.js';
import { OriginPolicy, portalBase } from './origins.js';
import { TokenUrls } from './token-urls.js';
import { UnsentRequests } from './unsent.js';

export interface AuthConfig {
  mode: 'header' | 'query' | 'none';
  /** Header name, default 'Authorization'. */
  header: string;
  /** Scheme before the token, default 'Bearer'; '' sends the raw token. */
  scheme: string;
  /** Query parameter name in 'query' mode, default 'access_token'. */
  queryParam: string;
}

export interface HttpOptions {
  /** May carry a path prefix (http://host/api); trailing slash optional. */
  baseUrl: string;
  token?: string;
  auth: AuthConfig;
  concurrency: number;
  /** Requests per second, optional. */
  rateLimit?: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** Deadline for a whole request, connect to last byte: a body dripped slowly never trips bodyTimeoutMs. */
  requestTimeoutMs: number;
  /** Extra attempts after the first. */
  retries: number;
  retryBaseMs: number;
  /** Cap on any single wait, Retry-After included; a longer Retry-After fails with a clear message. */
  retryMaxWaitMs: number;
  maxResponseBytes: number;
  /** Hosts ("name" or "name:port") that redirects and links may lead to besides the portal's origin. */
  allowRedirectHosts?: string[];
  userAgent: string;
  signal?: AbortSignal;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  onRetry?: (info: { url: string; attempt: number; waitMs: number; reason: string }) => void;
  onWarning?: (message: string) => void;
}

export interface Validators {
  etag?: string;
  lastModified?: string;
}

export interface FetchResult {
  /** Final URL (after redirects), token-free. */
  url: string;
  status: number;
  notModified: boolean;
  body: Buffer;
  etag?: string;
  lastModified?: string;
  link?: string;
  contentType?: string;
}

/** A list's response, its entries kept as text (undefined for a 304). */
export type ListResult = FetchResult & { list: JsonList | undefined };

/** Per-call options: the crawler passes its own signal so one fatal error can stop the rest. */
export interface CallOptions {
  signal?: AbortSignal;
}

const REDIRECT = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

/** An HTTP client for one portal; call close() when done. */
export class PortalClient {
  readonly stats = { requests: 0, retries: 0, notModified: 0, bytes: 0 };
  readonly concurrency: number;
  private readonly opts: HttpOptions;
  private readonly base: URL;
  private readonly agent: Dispatcher;
  private readonly unsent = new UnsentRequests();
  private readonly gate: Gate;
  private readonly pacer: Pacer | undefined;
  private readonly random: () => number;
  private readonly tokenUrls: TokenUrls;
  private readonly origins: OriginPolicy;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  // One combined signal per call signal, not per request: each AbortSignal.any() leaves a WeakRef
  // in its sources for good.
  private readonly combined = new WeakMap<AbortSignal, AbortSignal>();

  constructor(opts: HttpOptions) {
    this.opts = opts;
    this.base = portalBase(opts.baseUrl);
    this.concurrency = Math.max(1, Math.floor(opts.concurrency));
    this.agent = new Agent({
      connections: this.concurrency,
      connect: { timeout: opts.connectTimeoutMs },
      headersTimeout: opts.headersTimeoutMs,
      bodyTimeout: opts.bodyTimeoutMs,
    }).compose(this.unsent.interceptor);
    this.gate = new Gate(this.concurrency);
    this.random = opts.random ?? Math.random;
    this.tokenUrls = new TokenUrls(opts.token);
    this.origins = new OriginPolicy(this.base, opts.allowRedirectHosts);
    // The default sleep ends with the signal, so an aborted crawl leaves no timer keeping Node alive.
    this.sleep = opts.sleep ? (ms) => opts.sleep!(ms) : (ms, signal) => delay(ms, undefined, { signal }).then(() => undefined);
    this.pacer = opts.rateLimit ? new Pacer(opts.rateLimit, Date.now, this.sleep) : undefined;
  }

  /** Requests given to the connections and not yet written: work that can wait should let them go first. */
  get unsentRequests(): number {
    return this.unsent.count;
  }

  /** Most requests seen in flight at once. */
  get maxInFlight(): number {
    return this.gate.maxActive;
  }

  /** The token-free absolute URL for a path relative to baseUrl, or for an absolute URL. */
  urlFor(pathOrUrl: string): string {
    return this.resolve(pathOrUrl).href;
  }

  /** A cache key get() accepts: relative to baseUrl when under it (so a moved portal keeps its cache). */
  keyFor(pathOrUrl: string): string {
    const href = this.resolve(pathOrUrl).href;
    return href.startsWith(this.base.href) && href.length > this.base.href.length ? href.slice(this.base.href.length) : href;
  }

  /** Whether a cache key can be requested again as it was (see TokenUrls.replayable). */
  replayable(pathOrUrl: string): boolean {
    return this.tokenUrls.replayable(this.resolve(pathOrUrl));
  }

  /** GET a path relative to baseUrl (e.g. 'event-calendar/7/events') or an absolute URL on the same origin (paging links). */
  async get(pathOrUrl: string, validators?: Validators, call?: CallOptions): Promise<FetchResult> {
    const url = this.resolve(pathOrUrl);
    const signal = this.signalFor(call?.signal);
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.follow(url, validators, signal);
      } catch (error) {
        const wait = retryWait(error, attempt, { ...this.opts, random: this.random });
        if (wait === undefined) throw error;
        this.stats.retries++;
        this.opts.onRetry?.({ url: url.href, attempt: attempt + 1, waitMs: wait.ms, reason: wait.reason });
        await this.pause(wait.ms, signal);
      }
    }
  }

  /** GET and parse JSON; RESPONSE error naming the URL, content type and the first ~200 bytes when the body is not JSON. */
  async getJson(pathOrUrl: string, validators?: Validators, call?: CallOptions): Promise<FetchResult & { json: unknown }> {
    const result = await this.get(pathOrUrl, validators, call);
    return { ...result, json: result.notModified ? undefined : parseJson(result, this.opts.token) };
  }

  /** GET a list and read it with its entries kept as text (parseJsonList); the errors of getJson. */
  async getJsonList(pathOrUrl: string, validators?: Validators, call?: CallOptions): Promise<ListResult> {
    const result = await this.get(pathOrUrl, validators, call);
    return { ...result, list: result.notModified ? undefined : parseJsonList(result, this.opts.token) };
  }

  /** The client's signal combined with a call's, made once per call signal. */
  private signalFor(call: AbortSignal | undefined): AbortSignal | undefined {
    const own = this.opts.signal;
    if (!own || !call || own === call) return call ?? own;
    let signal = this.combined.get(call);
    if (!signal) {
      signal = AbortSignal.any([own, call]);
      this.combined.set(call, signal);
    }
    return signal;
  }

  /** Closes the keep-alive connections. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  private resolve(pathOrUrl: string): URL {
    const absolute = /^[a-z][a-z0-9+.-]*:/i.test(pathOrUrl);
    const url = absolute ? new URL(pathOrUrl) : new URL(pathOrUrl.replace(/^\/+/, ''), this.base);
    // A paging link may echo our token back: our parameter is dropped, any other form masked.
    const { mode, queryParam } = this.opts.auth;
    if (mode === 'query' && url.searchParams.has(queryParam)) url.searchParams.delete(queryParam);
    return this.tokenUrls.mask(url);
  }

  /** One logical attempt: a request plus up to five redirects. */
  private async follow(start: URL, validators: Validators | undefined, signal: AbortSignal | undefined): Promise<FetchResult> {
    let url = start;
    this.origins.check(start, start);
    let withAuth = this.sameOrigin(url, start);
    for (let hop = 0; ; hop++) {
      const res = await this.send(url, withAuth, validators, signal);
      const display = url.href;
      if (REDIRECT.has(res.status)) {
        const location = res.headers['location'];
        if (!location || hop >= MAX_REDIRECTS) {
          const why = location ? `more than ${MAX_REDIRECTS} redirects` : 'a redirect without a Location header';
          throw new HttpError(display, res.status, '', {
            message: `${requestLabel(display)}: ${statusLine(res.status)}, ${why}. Check --base-url.`,
          });
        }
        const next = this.resolve(new URL(location, url).href);
        this.origins.check(next, url, res.status);
        withAuth = withAuth && this.sameOrigin(next, url);
        url = next;
        continue;
      }
      const result: FetchResult = {
        url: display,
        status: res.status,
        notModified: res.status === 304,
        body: res.body,
        etag: res.headers['etag'],
        lastModified: res.headers['last-modified'],
        link: res.headers['link'],
        contentType: res.headers['content-type'],
      };
      if (res.status === 304) {
        this.stats.notModified++;
        return { ...result, body: Buffer.alloc(0) };
      }
      if (res.status >= 200 && res.status < 300) {
        this.stats.bytes += res.body.length;
        return result;
      }
      throw new HttpError(display, res.status, res.body.length ? bodySnippet(res.body, this.opts.token) : '', {
        retryAfterMs: parseRetryAfter(res.headers['retry-after'], Date.now()),
      });
    }
  }

  /** Whether a URL may receive the token; warns when the token is being withheld (from an allowed host). */
  private sameOrigin(url: URL, from: URL): boolean {
    if (this.origins.isPortal(url)) return true;
    if (this.opts.auth.mode !== 'none' && this.opts.token) {
      this.opts.onWarning?.(
        `${requestLabel(from.href)} leads to another origin, ${url.origin}; following it without the token.`,
      );
    }
    return false;
  }

  private async send(url: URL, withAuth: boolean, validators: Validators | undefined, signal: AbortSignal | undefined): Promise<Exchange> {
    const { auth, token } = this.opts;
    const headers: Record<string, string> = { 'user-agent': this.opts.userAgent, accept: 'application/json' };
    if (validators?.etag) headers['if-none-match'] = validators.etag;
    if (validators?.lastModified) headers['if-modified-since'] = validators.lastModified;
    // The portal's own origin gets a link back as the portal gave it; any other gets it masked.
    let wire = withAuth ? this.tokenUrls.wireFor(url) : url;
    if (withAuth && token && auth.mode === 'header') {
      headers[auth.header.toLowerCase()] = auth.scheme ? `${auth.scheme} ${token}` : token;
    } else if (withAuth && token && auth.mode === 'query') {
      wire = new URL(wire.href);
      wire.searchParams.set(auth.queryParam, token);
    }
    const release = await this.gate.acquire(signal);
    try {
      await this.pacer?.take(signal);
      if (signal?.aborted) throw interrupted();
      this.stats.requests++;
      return await exchange(wire, {
        dispatcher: this.agent,
        headers,
        signal,
        headersTimeoutMs: this.opts.headersTimeoutMs,
        bodyTimeoutMs: this.opts.bodyTimeoutMs,
        requestTimeoutMs: this.opts.requestTimeoutMs,
        connectTimeoutMs: this.opts.connectTimeoutMs,
        maxResponseBytes: this.opts.maxResponseBytes,
        displayUrl: url.href,
        token,
      });
    } finally {
      release();
    }
  }

  private async pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) throw interrupted();
    if (!signal) return this.sleep(ms);
    // Injected sleeps (tests) ignore the signal, so race them against it.
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(interrupted());
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([this.sleep(ms, signal).catch((e: unknown) => (signal.aborted ? undefined : Promise.reject(e))), aborted]);
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
    if (signal.aborted) throw interrupted();
  }
}
