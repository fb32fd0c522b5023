// Where the data comes from: the configured portal, or, with no --base-url, the embedded demo
// portal started for the duration of one command. Shared by `build` and `inspect`.

import type { ResolvedConfig } from '../config/resolve.js';
import { startDemoPortal } from '../demo/server.js';
import type { HttpOptions } from '../http/index.js';
import type { Logger } from '../log.js';
import { VERSION } from '../version.js';

export interface PortalSource {
  baseUrl: string;
  token?: string;
  /** Zone for times without an offset. */
  timeZone: string;
  demo: boolean;
}

/** Run `fn` against the configured portal, or against the embedded demo portal (stopped afterwards). */
export async function withPortalSource<T>(
  args: { config: ResolvedConfig; token?: string; now: number; log: Logger; doing: string },
  fn: (source: PortalSource) => Promise<T>,
): Promise<T> {
  const { config, log } = args;
  if (config.baseUrl) {
    if (!args.token) log.warn('No token: set env CALFEED_TOKEN or --token-file. Requests go out without authorization.');
    if (config.baseUrl.startsWith('http://') && !isLoopback(config.baseUrl)) {
      log.warn(`--base-url ${config.baseUrl} is plain http: the token travels unencrypted. Use https.`);
    }
    return fn({ baseUrl: config.baseUrl, token: args.token, timeZone: config.timeZone, demo: false });
  }
  const demo = await startDemoPortal({ now: args.now });
  try {
    log.info(`No --base-url configured: ${args.doing} the embedded demo portal at ${demo.url} (set CALFEED_BASE_URL or --base-url for your portal).`);
    // The demo's times carry offsets; its zone only matters for display, unless the user chose one.
    const timeZone = config.timeZone === 'UTC' ? demo.timeZone : config.timeZone;
    return await fn({ baseUrl: demo.url, token: demo.tokens.university, timeZone, demo: true });
  } finally {
    await demo.close();
  }
}

/** HTTP client options from the config, for one source. */
export function httpOptions(config: ResolvedConfig, source: PortalSource, extra: Partial<HttpOptions> = {}): HttpOptions {
  return {
    baseUrl: source.baseUrl,
    token: source.token,
    auth: config.auth,
    concurrency: config.concurrency,
    rateLimit: config.rateLimit,
    connectTimeoutMs: config.connectTimeoutMs,
    headersTimeoutMs: config.headersTimeoutMs,
    bodyTimeoutMs: config.bodyTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    retries: config.retries,
    retryBaseMs: 500,
    retryMaxWaitMs: config.retryMaxWaitMs,
    maxResponseBytes: config.maxResponseBytes,
    allowRedirectHosts: config.allowRedirectHosts,
    userAgent: `calfeed/${VERSION}`,
    ...extra,
  };
}

/**
 * Whether a URL's host is this machine's loopback: localhost, 127.0.0.0/8 (an address, not a name
 * such as 127.example.edu), ::1, or 127.x written as an IPv4-mapped IPv6 address (which URL
 * normalizes to hex: [::ffff:7f00:1]).
 */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host) || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host);
}
