import { describe, expect, it } from 'vitest';
import { Gate, Pacer } from '../../src/http/rate-limit.js';
import { bodySnippet, redact } from '../../src/http/redact.js';
import { backoffMs, isRetryableStatus, parseRetryAfter } from '../../src/http/retry.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2024-10-01T10:00:00Z');
  it.each([
    ['120', 120_000],
    [' 0 ', 0],
    ['Tue, 01 Oct 2024 10:00:30 GMT', 30_000],
    ['Tue, 01 Oct 2024 09:00:00 GMT', 0], // a date in the past means "now"
    [undefined, undefined],
    ['soon', undefined],
    ['-5', undefined],
    ['1.5', undefined],
  ])('%s -> %s ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

describe('backoffMs', () => {
  it('is full jitter over an exponential ceiling, capped', () => {
    expect([0, 1, 2, 3, 4].map((a) => backoffMs(a, 100, 1000, () => 0.999))).toEqual([99, 199, 399, 799, 999]);
    expect(backoffMs(3, 100, 1000, () => 0)).toBe(0);
    expect(backoffMs(200, 100, 1000, () => 0.5)).toBe(500); // a huge attempt number does not overflow
  });
});

describe('isRetryableStatus', () => {
  it('retries transient statuses only', () => {
    expect([408, 425, 429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 410, 501].some(isRetryableStatus)).toBe(false);
  });
});

describe('redact', () => {
  it('masks the raw, URL-encoded and form-encoded token', () => {
    const token = 'a b/c+d=';
    const text = `raw ${token} url ${encodeURIComponent(token)} form ${new URLSearchParams({ t: token }).toString().slice(2)}`;
    expect(redact(text, token)).toBe('raw *** url *** form ***');
    expect(redact('nothing here', undefined)).toBe('nothing here');
    expect(redact('nothing here', '')).toBe('nothing here');
  });

  it('treats regex characters in the token literally', () => {
    expect(redact('x.*y and xaay', 'x.*y')).toBe('*** and xaay');
  });

  it('snippets are escaped, cut and token-free', () => {
    const body = Buffer.from(`line1\n"quoted" TOKEN ${'z'.repeat(300)}`);
    const snippet = bodySnippet(body, 'TOKEN', 20);
    // The token is masked before the cut: the cut counts the mask, not the token's bytes.
    expect(snippet).toBe('"line1\\n\\"quoted\\" *** z"…');
  });
});

describe('regression: the token by value (issue 17, item 3)', () => {
  const token = 'SeCrEt-T0k/en+x=';
  const pct = encodeURIComponent(token);
  const forms: Record<string, string> = {
    raw: token,
    'percent-encoded, upper case': pct,
    'percent-encoded, lower case': pct.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    'percent-encoded in part': token.replace('/', '%2f'),
    'JSON-escaped slash': token.replace('/', '\\/'),
    base64: Buffer.from(token).toString('base64'),
    base64url: Buffer.from(token).toString('base64url'),
    'base64 inside Basic credentials': Buffer.from(`user:${token}`).toString('base64'),
    'base64url at another alignment': Buffer.from(`ab${token}cd`).toString('base64url'),
  };

  it.each(Object.entries(forms))('redact masks the token %s', (_name, form) => {
    const out = redact(`before ${form} after`, token);
    expect(out).toContain('***');
    expect(out).not.toContain(form);
    expect(out).not.toContain('T0k');
  });

  it('a token straddling the snippet cut is masked whole, not logged half-cut', () => {
    const body = Buffer.from(`${'x'.repeat(195)}${token} and more`);
    const snippet = bodySnippet(body, token);
    expect(snippet).not.toContain('SeCrE');
    expect(snippet).toContain('***');
  });

  it('a body cut inside the token (the first KB of an error page) has the partial token masked', () => {
    const snippet = bodySnippet(Buffer.from(`error ${token.slice(0, 10)}`), token);
    expect(snippet).toBe('"error ***"');
  });
});

describe('Gate', () => {
  it('admits at most `limit` holders, first come first served', async () => {
    const gate = new Gate(2);
    const order: number[] = [];
    const a = await gate.acquire();
    const b = await gate.acquire();
    const c = gate.acquire().then((release) => (order.push(3), release));
    const d = gate.acquire().then((release) => (order.push(4), release));
    await Promise.resolve();
    expect(order).toEqual([]);
    a();
    a(); // releasing twice is harmless
    (await c)();
    b();
    (await d)();
    expect(order).toEqual([3, 4]);
    expect(gate.maxActive).toBe(2);
  });

  it('a waiter gives up when its signal aborts', async () => {
    const gate = new Gate(1);
    const release = await gate.acquire();
    const controller = new AbortController();
    const waiting = gate.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'INTERRUPTED' });
    release();
    const again = await gate.acquire();
    again();
  });
});

describe('Pacer', () => {
  it('spaces requests 1/rate apart on a fake clock', async () => {
    let clock = 1000;
    const sleeps: number[] = [];
    const pacer = new Pacer(4, () => clock, async (ms) => {
      sleeps.push(ms);
    });
    await Promise.all([pacer.take(), pacer.take(), pacer.take()]);
    expect(sleeps).toEqual([250, 500]);
    clock += 2000; // after a quiet spell there is no backlog
    await pacer.take();
    expect(sleeps).toEqual([250, 500]);
  });
});
