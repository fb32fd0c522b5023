import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CalfeedError } from '../../src/errors.js';
import { PortalClient, type HttpOptions } from '../../src/http/client.js';
import { HttpError, LimitError, NetworkError, ResponseError } from '../../src/http/errors.js';
import { json, startServer, wait, type TestServer } from './test-server.js';

const TOKEN = 's3cr3t+tok/en=';

let server: TestServer;
let foreign: TestServer;
const clients: PortalClient[] = [];

interface Harness {
  client: PortalClient;
  waits: number[];
  retries: Array<{ attempt: number; waitMs: number; reason: string }>;
  warnings: string[];
}

function harness(overrides: Partial<HttpOptions> = {}): Harness {
  const waits: number[] = [];
  const retries: Harness['retries'] = [];
  const warnings: string[] = [];
  const client = new PortalClient({
    baseUrl: server.url,
    token: TOKEN,
    auth: { mode: 'header', header: 'Authorization', scheme: 'Bearer', queryParam: 'access_token' },
    concurrency: 4,
    connectTimeoutMs: 5000,
    headersTimeoutMs: 5000,
    bodyTimeoutMs: 5000,
    requestTimeoutMs: 30_000,
    retries: 2,
    retryBaseMs: 100,
    retryMaxWaitMs: 10_000,
    maxResponseBytes: 1024 * 1024,
    userAgent: 'calfeed-test',
    random: () => 0.5,
    sleep: async (ms) => void waits.push(ms),
    onRetry: (info) => retries.push({ attempt: info.attempt, waitMs: info.waitMs, reason: info.reason }),
    onWarning: (m) => warnings.push(m),
    ...overrides,
  });
  clients.push(client);
  return { client, waits, retries, warnings };
}

/** The URL of a test server that has stopped: connecting to it is refused. */
async function refusingUrl(): Promise<string> {
  const closed = await startServer();
  await closed.close();
  return closed.url;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}

beforeAll(async () => {
  foreign = await startServer({
    '/landing': (_req, res) => json(res, { landed: true }),
  });
  server = await startServer({
    '/ok': (_req, res) => json(res, { ok: true }),
    '/api/event-calendars': (_req, res) => json(res, [{ id: 1 }]),
    '/503-then-ok': (_req, res, hit) => (hit === 1 ? json(res, { busy: true }, 503) : json(res, { ok: hit })),
    '/always-503': (_req, res) => json(res, { busy: true }, 503),
    '/always-500': (_req, res) => res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>Internal error</h1>'),
    '/429-retry-after': (_req, res, hit) => (hit === 1 ? json(res, {}, 429, { 'retry-after': '2' }) : json(res, { ok: true })),
    '/429-date': (_req, res, hit) =>
      hit === 1 ? json(res, {}, 429, { 'retry-after': new Date(Date.now() + 30_000).toUTCString() }) : json(res, { ok: true }),
    '/429-too-long': (_req, res) => json(res, {}, 429, { 'retry-after': '3600' }),
    '/reset': (_req, res, hit) => (hit === 1 ? res.socket?.destroy() : json(res, { ok: true })),
    '/slow-headers': () => undefined, // never answers
    '/slow-body': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":'); // and then nothing
    },
    '/drip': async (_req, res) => {
      // A byte every 100 ms, for as long as the client listens: each pause is far under the body timeout.
      res.writeHead(200, { 'content-type': 'application/json' });
      while (!res.destroyed) {
        res.write(' ');
        await wait(100);
      }
    },
    '/html-200': (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!DOCTYPE html>\n<html><body>Maintenance</body></html>'),
    '/bad-json': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"events": [1, 2,'),
    '/pwned-json': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('\n::error::PWNED\n\u001b[31mred\u009b2J'),
    '/huge': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.alloc(2 * 1024 * 1024, 0x20)),
    '/huge-chunked': async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 40 && !res.destroyed; i++) {
        res.write(Buffer.alloc(64 * 1024, 0x20));
        await wait(1);
      }
      res.end();
    },
    '/redirect-same': (_req, res) => res.writeHead(302, { location: '/ok' }).end(),
    '/redirect-foreign': (_req, res) => res.writeHead(307, { location: `${foreign.url}/landing` }).end(),
    '/redirect-foreign-tokened': (_req, res) => res.writeHead(302, { location: `${foreign.url}/landing?sig=${encodeURIComponent(TOKEN)}` }).end(),
    '/tokened-redirect': (_req, res) =>
      res.writeHead(302, { location: `/t/${encodeURIComponent(TOKEN)}?sig=${Buffer.from(TOKEN).toString('base64url')}` }).end(),
    [`/t/${encodeURIComponent(TOKEN)}`]: (_req, res) => json(res, { tokenedPath: true }),
    '/redirect-loop': (_req, res) => res.writeHead(302, { location: '/redirect-loop' }).end(),
    '/etag': (req, res) => {
      if (req.headers['if-none-match'] === '"v1"') return void res.writeHead(304, { etag: '"v1"' }).end();
      json(res, { version: 1 }, 200, { etag: '"v1"', 'last-modified': 'Tue, 01 Oct 2024 10:00:00 GMT' });
    },
    '/401': (_req, res) => json(res, { error: 'invalid token' }, 401),
    '/403-echo': (req, res) => res.writeHead(403, { 'content-type': 'text/plain' }).end(`token ${req.headers.authorization} is not allowed`),
    '/404-echo': (req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end(`nothing at ${req.url}`),
    '/delay': async (_req, res) => {
      await wait(30);
      json(res, { ok: true });
    },
  });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

afterAll(async () => {
  await server.close();
  await foreign.close();
});

describe('PortalClient requests', () => {
  it('resolves paths under a base URL with a path prefix and sends auth and user agent', async () => {
    const { client } = harness({ baseUrl: `${server.url}/api` });
    const result = await client.getJson('event-calendars');
    expect(result.json).toEqual([{ id: 1 }]);
    expect(result.url).toBe(`${server.url}/api/event-calendars`);
    const seen = server.hits('/api/event-calendars').at(-1)!;
    expect(seen.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seen.headers['user-agent']).toBe('calfeed-test');
    expect(client.urlFor('/event-calendars')).toBe(`${server.url}/api/event-calendars`);
  });

  it('gives cache keys relative to the base URL, absolute elsewhere', () => {
    const { client } = harness({ baseUrl: `${server.url}/api/` });
    expect(client.keyFor('event-calendar/a%2Fb/events')).toBe('event-calendar/a%2Fb/events');
    expect(client.keyFor(`${server.url}/api/event-calendars?page=2`)).toBe('event-calendars?page=2');
    expect(client.keyFor('https://elsewhere.example/api/x')).toBe('https://elsewhere.example/api/x');
    expect(client.urlFor(client.keyFor('event-calendars?page=2'))).toBe(`${server.url}/api/event-calendars?page=2`);
  });

  it('sends the bare token in a custom header when the scheme is empty', async () => {
    const { client } = harness({ auth: { mode: 'header', header: 'X-Api-Key', scheme: '', queryParam: 'access_token' } });
    await client.get('ok');
    const seen = server.hits('/ok').at(-1)!;
    expect(seen.headers['x-api-key']).toBe(TOKEN);
    expect(seen.headers.authorization).toBeUndefined();
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    const before = server.maxInFlight;
    server.maxInFlight = 0;
    const { client } = harness({ concurrency: 3 });
    await Promise.all(Array.from({ length: 20 }, () => client.get('delay')));
    expect(server.maxInFlight).toBe(3);
    expect(client.maxInFlight).toBe(3);
    expect(client.stats.requests).toBe(20);
    server.maxInFlight = before;
  });
});

describe('requests not yet sent', () => {
  // The crawl's own work waits while a request is about to be written (crawl/queue.ts, Handoff).
  it('counts a request from its dispatch until it is written, and one that fails before that', async () => {
    const { client } = harness({ concurrency: 2 });
    const seenByServer: number[] = [];
    server.route('/unsent', (_req, res) => {
      seenByServer.push(client.unsentRequests);
      json(res, { ok: true });
    });
    let most = 0;
    let sampling = true;
    const sample = (): void => {
      most = Math.max(most, client.unsentRequests);
      if (sampling) setImmediate(sample);
    };
    sample();
    await client.get('unsent');
    await Promise.all([client.get('unsent'), client.get('unsent')]); // reusing the kept-alive connections
    sampling = false;
    expect(most).toBeGreaterThanOrEqual(1);
    expect(seenByServer).toEqual([0, 0, 0]);
    expect(client.unsentRequests).toBe(0);

    const { client: nowhere } = harness({ baseUrl: await refusingUrl(), retries: 0 });
    await expect(nowhere.get('x')).rejects.toThrow(/connection refused/);
    expect(nowhere.unsentRequests).toBe(0);
  });
});

describe('rate limit', () => {
  it('paces requests to --rate-limit per second', async () => {
    const h = harness({ rateLimit: 2 });
    await Promise.all([h.client.get('ok'), h.client.get('ok'), h.client.get('ok')]);
    // The sleep is injected (instant), so these are the waits the pacer asked for: ~500 ms apart.
    expect(h.waits).toHaveLength(2);
    expect(h.waits[0]).toBeGreaterThan(400);
    expect(h.waits[0]).toBeLessThanOrEqual(500);
    expect(h.waits[1]).toBeGreaterThan(900);
    expect(h.waits[1]).toBeLessThanOrEqual(1000);
  });
});

describe('retries', () => {
  it('retries a 503 with jittered backoff and then succeeds', async () => {
    const h = harness();
    const result = await h.client.getJson('503-then-ok');
    expect(result.json).toEqual({ ok: 2 });
    expect(h.waits).toEqual([50]); // 0.5 * 100 * 2^0
    expect(h.retries).toEqual([{ attempt: 1, waitMs: 50, reason: '503 service unavailable' }]);
    expect(h.client.stats).toMatchObject({ requests: 2, retries: 1 });
  });

  it('backs off exponentially, capped by retryMaxWaitMs, then gives up with the last status', async () => {
    const h = harness({ retries: 3, retryMaxWaitMs: 150 });
    const error = await failure(h.client.get('always-503'));
    expect(h.waits).toEqual([50, 75, 75]); // 0.5 * min(150, 100 * 2^n)
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(503);
    expect(error.message).toContain(`[GET] "${server.url}/always-503": 503 Service Unavailable`);
    expect(error.message).toContain('Gave up after 4 attempts');
    expect(server.hits('/always-503').length).toBeGreaterThanOrEqual(4);
  });

  it('shows the start of an HTML error body after retries are exhausted', async () => {
    const h = harness({ retries: 1 });
    const error = await failure(h.client.get('always-500'));
    expect((error as CalfeedError).code).toBe('HTTP');
    expect(error.message).toContain('500 Internal Server Error');
    expect(error.message).toContain('<h1>Internal error</h1>');
  });

  it('honors Retry-After in seconds', async () => {
    const h = harness();
    await h.client.get('429-retry-after');
    expect(h.waits).toEqual([2000]);
    expect(h.retries[0]!.reason).toBe('429 rate limited');
  });

  it('honors Retry-After as an HTTP date', async () => {
    const h = harness({ retryMaxWaitMs: 60_000 });
    await h.client.get('429-date');
    expect(h.waits).toHaveLength(1);
    // The date has one-second resolution, so the wait is a little under 30 s.
    expect(h.waits[0]).toBeGreaterThan(25_000);
    expect(h.waits[0]).toBeLessThanOrEqual(30_000);
  });

  it('fails clearly when Retry-After is longer than the maximum wait', async () => {
    const h = harness({ retryMaxWaitMs: 60_000 });
    const before = server.hits('/429-too-long').length;
    const error = await failure(h.client.get('429-too-long'));
    expect(server.hits('/429-too-long').length - before).toBe(1);
    expect(h.waits).toEqual([]);
    expect(error.message).toContain('429 Too Many Requests');
    expect(error.message).toContain('asked to wait 3600 s (Retry-After)');
    expect(error.message).toContain('--retry-max-wait (60 s)');
  });

  it('retries a connection reset', async () => {
    const h = harness();
    const result = await h.client.getJson('reset');
    expect(result.json).toEqual({ ok: true });
    expect(h.retries).toHaveLength(1);
    expect(h.retries[0]!.reason).toBe('connection failed');
  });

  it('does not retry a 404 or a 401', async () => {
    const h = harness();
    await failure(h.client.get('404-echo'));
    await failure(h.client.get('401'));
    expect(h.retries).toEqual([]);
  });
});

describe('timeouts, limits and bad bodies', () => {
  it('ends a request whose headers never come, naming the flag', async () => {
    const h = harness({ headersTimeoutMs: 200, retries: 0 });
    const error = await failure(h.client.get('slow-headers'));
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as CalfeedError).code).toBe('NETWORK');
    expect(error.message).toContain(`[GET] "${server.url}/slow-headers": no response headers within 0.2 s`);
    expect(error.message).toContain('--headers-timeout');
  });

  it('ends a body that stalls, naming the flag, and retries it first', async () => {
    const h = harness({ bodyTimeoutMs: 200, retries: 1 });
    const error = await failure(h.client.get('slow-body'));
    expect((error as NetworkError).failure).toBe('body-timeout');
    expect(error.message).toContain('--body-timeout');
    expect(h.retries.map((r) => r.reason)).toEqual(['body timeout']);
  });

  it('regression: no request had a total deadline (issue 17, item 5): a drip-fed body ends at --request-timeout, named, and is retried', async () => {
    const h = harness({ bodyTimeoutMs: 5000, requestTimeoutMs: 600, retries: 1 });
    const error = await failure(h.client.get('drip'));
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).failure).toBe('request-timeout');
    expect(error.message).toContain(`[GET] "${server.url}/drip": the whole request took longer than 0.6 s (request timeout)`);
    expect(error.message).toContain('raise it with --request-timeout (seconds)');
    expect(error.message).toContain('Gave up after 2 attempts');
    expect(h.retries.map((r) => r.reason)).toEqual(['request timeout']);
  }, 10_000);

  it('refuses a body larger than the cap (declared length)', async () => {
    const h = harness();
    const error = await failure(h.client.get('huge'));
    expect(error).toBeInstanceOf(LimitError);
    expect((error as CalfeedError).code).toBe('LIMIT');
    expect(error.message).toContain('larger than 1 MB');
    expect(error.message).toContain('--max-response-bytes');
    expect(h.retries).toEqual([]);
  });

  it('refuses a chunked body once it passes the cap', async () => {
    const h = harness();
    const error = await failure(h.client.get('huge-chunked'));
    expect((error as CalfeedError).code).toBe('LIMIT');
  });

  it('names the URL, content type and first bytes of an HTML page with status 200', async () => {
    const h = harness();
    const error = await failure(h.client.getJson('html-200'));
    expect(error).toBeInstanceOf(ResponseError);
    expect((error as CalfeedError).code).toBe('RESPONSE');
    expect(error.message).toContain(`[GET] "${server.url}/html-200": expected JSON but got an HTML page`);
    expect(error.message).toContain('text/html');
    expect(error.message).toContain('"<!DOCTYPE html>\\n<html><body>Maintenance');
  });

  it('names malformed JSON', async () => {
    const h = harness();
    const error = await failure(h.client.getJson('bad-json'));
    expect((error as CalfeedError).code).toBe('RESPONSE');
    expect(error.message).toContain('is not valid JSON');
    expect(error.message).toContain('{\\"events\\": [1, 2,');
  });

  it('regression: portal bytes in logs (issue 17, item 4): the JSON parser\'s message is escaped, CI commands defused', async () => {
    const h = harness();
    const error = await failure(h.client.getJson('pwned-json'));
    expect((error as CalfeedError).code).toBe('RESPONSE');
    expect(error.message).not.toMatch(/[\n\r\u001b\u009b]/);
    expect(error.message).toContain('is not valid JSON');
    expect(error.message).toContain('\\n::error::PWNED\\n');
  });

  it('stops at once when the signal aborts', async () => {
    const controller = new AbortController();
    const h = harness({ signal: controller.signal, retries: 0 });
    const pending = failure(h.client.get('slow-headers'));
    setTimeout(() => controller.abort(), 50);
    const error = await pending;
    expect((error as CalfeedError).code).toBe('INTERRUPTED');
  });
});

describe('redirects', () => {
  it('follows a same-origin redirect with the token', async () => {
    const h = harness();
    const result = await h.client.getJson('redirect-same');
    expect(result.url).toBe(`${server.url}/ok`);
    expect(server.hits('/ok').at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(h.warnings).toEqual([]);
  });

  it('regression: redirects to another origin were followed (issue 17, item 7): refused, naming both origins and the flag', async () => {
    const h = harness();
    const before = foreign.requests.length;
    const error = await failure(h.client.get('redirect-foreign'));
    expect(error).toBeInstanceOf(HttpError);
    expect((error as CalfeedError).code).toBe('HTTP');
    const other = new URL(foreign.url);
    expect(error.message).toContain(`[GET] "${server.url}/redirect-foreign": 307 Temporary Redirect, a redirect to another origin, ${other.origin} (the portal is ${server.url})`);
    expect(error.message).toContain(`--allow-redirect-host ${other.host}`);
    expect(foreign.requests.length).toBe(before);
    expect(h.retries).toEqual([]);
    // A paging link to another origin is refused the same way.
    const link = await failure(h.client.get(`${foreign.url}/landing`));
    expect(link.message).toContain(`the portal links to another origin, ${other.origin}`);
    expect(foreign.requests.length).toBe(before);
  });

  it('follows a cross-origin redirect to an allowed host (any port, or name:port) without the token header, and warns', async () => {
    const h = harness({ allowRedirectHosts: ['127.0.0.1'] });
    const result = await h.client.getJson('redirect-foreign');
    expect(result.json).toEqual({ landed: true });
    const landed = foreign.hits('/landing').at(-1)!;
    expect(landed.headers.authorization).toBeUndefined();
    expect(JSON.stringify(landed)).not.toContain(TOKEN);
    expect(h.warnings).toHaveLength(1);
    expect(h.warnings[0]).toContain('without the token');
  });

  it('follows a cross-origin redirect to an allowed host without the token query parameter', async () => {
    const h = harness({
      auth: { mode: 'query', header: 'Authorization', scheme: 'Bearer', queryParam: 'access_token' },
      allowRedirectHosts: [new URL(foreign.url).host],
    });
    await h.client.get('redirect-foreign');
    expect(server.hits('/redirect-foreign').at(-1)!.url).toBe(`/redirect-foreign?access_token=${encodeURIComponent(TOKEN)}`);
    expect(foreign.hits('/landing').at(-1)!.url).toBe('/landing');
  });

  it('never sends the token to an allowed host, even when the Location carries it', async () => {
    const h = harness({ allowRedirectHosts: [new URL(foreign.url).host] });
    const result = await h.client.get('redirect-foreign-tokened');
    expect(result.url).toBe(`${foreign.url}/landing?sig=***`);
    const landed = foreign.hits('/landing').at(-1)!;
    expect(landed.url).toBe('/landing?sig=***');
    expect(JSON.stringify(landed)).not.toContain(encodeURIComponent(TOKEN));
    expect(JSON.stringify(landed)).not.toContain(TOKEN);
  });

  it('gives up after five redirects', async () => {
    const h = harness();
    const error = await failure(h.client.get('redirect-loop'));
    expect((error as CalfeedError).code).toBe('HTTP');
    expect(error.message).toContain('more than 5 redirects');
  });
});

describe('conditional requests', () => {
  it('returns validators, and notModified with an empty body on 304', async () => {
    const h = harness();
    const first = await h.client.getJson('etag');
    expect(first).toMatchObject({ notModified: false, etag: '"v1"', lastModified: 'Tue, 01 Oct 2024 10:00:00 GMT', json: { version: 1 } });
    const second = await h.client.getJson('etag', { etag: first.etag, lastModified: first.lastModified });
    expect(second.notModified).toBe(true);
    expect(second.status).toBe(304);
    expect(second.body.length).toBe(0);
    const sent = server.hits('/etag').at(-1)!.headers;
    expect(sent['if-none-match']).toBe('"v1"');
    expect(sent['if-modified-since']).toBe('Tue, 01 Oct 2024 10:00:00 GMT');
    expect(h.client.stats.notModified).toBe(1);
  });
});

describe('the token never leaks', () => {
  it('401 says the token was rejected and what to do', async () => {
    const h = harness();
    const error = await failure(h.client.get('401'));
    expect((error as CalfeedError).code).toBe('AUTH');
    expect(error.message).toBe(
      `[GET] "${server.url}/401": 401 Unauthorized. The portal rejected the token. Ask your organization's administrator for a valid token and set CALFEED_TOKEN (or --token-file).`,
    );
  });

  it('header mode: an error body echoing the token is redacted', async () => {
    const h = harness();
    const error = (await failure(h.client.get('403-echo'))) as HttpError;
    expect(error.code).toBe('AUTH');
    expect(error.bodySnippet).toContain('Bearer ***');
    expect(JSON.stringify({ m: error.message, s: error.bodySnippet, u: error.url })).not.toContain(TOKEN);
  });

  it('query mode: the token is on the wire but in no URL or message', async () => {
    const h = harness({ auth: { mode: 'query', header: 'Authorization', scheme: 'Bearer', queryParam: 'access_token' }, retries: 0 });
    const ok = await h.client.get('ok');
    expect(ok.url).toBe(`${server.url}/ok`);
    expect(server.hits('/ok').at(-1)!.url).toContain(`access_token=${encodeURIComponent(TOKEN)}`);
    const errors = [await failure(h.client.get('404-echo')), await failure(h.client.get('401'))];
    errors.push(await failure(h.client.getJson('html-200')));
    for (const error of errors) {
      const text = JSON.stringify({ m: error.message, ...(error as unknown as Record<string, unknown>) });
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(encodeURIComponent(TOKEN));
    }
    expect(errors[0]!.message).toContain('nothing at /404-echo?access_token=***');
    // A paging link that echoes the token is normalized away from cache keys.
    expect(h.client.urlFor(`${server.url}/ok?page=2&access_token=${encodeURIComponent(TOKEN)}`)).toBe(`${server.url}/ok?page=2`);
  });

  it('regression: the token by value (issue 17, item 3): a link or Location echoing it under another name or in the path is masked in every URL, and sent back to the portal as it was', async () => {
    const h = harness();
    const link = `${server.url}/ok?page=2&sig=${encodeURIComponent(TOKEN)}`;
    expect(h.client.urlFor(link)).toBe(`${server.url}/ok?page=2&sig=***`);
    const key = h.client.keyFor(link);
    expect(key).toBe('ok?page=2&sig=***');
    expect((await h.client.get(key)).url).toBe(`${server.url}/ok?page=2&sig=***`);
    expect(server.hits('/ok').at(-1)!.url).toBe(`/ok?page=2&sig=${encodeURIComponent(TOKEN)}`);
    const moved = await h.client.getJson('tokened-redirect');
    expect(moved.json).toEqual({ tokenedPath: true });
    // base64url keeps the characters at its edges, which carry a few bits of what surrounds the token.
    expect(moved.url).toMatch(new RegExp(`^${server.url}/t/\\*\\*\\*\\?sig=\\*\\*\\*.?$`));
    const error = await failure(h.client.get(`404-echo?sig=${encodeURIComponent(TOKEN).toLowerCase()}`));
    expect(JSON.stringify({ m: error.message, ...(error as unknown as Record<string, unknown>) })).not.toMatch(/s3cr3t/i);
    // A masked key read back from the cache by the next run has no original to send.
    expect(h.client.replayable(key)).toBe(true);
    expect(harness().client.replayable(key)).toBe(false);
    expect(harness().client.replayable('ok?page=2')).toBe(true);
  });

  it('a connection failure names the URL without the token', async () => {
    const url = await refusingUrl();
    const h = harness({ baseUrl: url, retries: 1, auth: { mode: 'query', header: 'Authorization', scheme: '', queryParam: 'key' } });
    const error = await failure(h.client.get('event-calendars'));
    expect((error as CalfeedError).code).toBe('NETWORK');
    expect(error.message).toContain(`[GET] "${url}/event-calendars": connection refused`);
    expect(error.message).toContain('Gave up after 2 attempts');
    expect(error.message).not.toContain(TOKEN);
  });
});
