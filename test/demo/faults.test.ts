import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { HUGE_BYTES } from '../../src/demo/faults.js';
import { REDIRECTING_EVENT } from '../../src/demo/hostile.js';
import type { DemoPortal } from '../../src/demo/server.js';
import { get, getJson, portal } from './helpers.js';

type Obj = Record<string, unknown>;

/** Every URL of a full crawl (default dialect). */
async function allUrls(p: DemoPortal): Promise<string[]> {
  const clean = await portal(); // same data, no faults: to list the URLs
  const urls = ['/event-calendars'];
  for (const cal of (await getJson(clean, '/event-calendars')) as Obj[]) {
    const id = encodeURIComponent(String(cal.eventCalendarId));
    urls.push(`/event-calendar/${id}/events`);
    for (const e of (await getJson(clean, `/event-calendar/${id}/events`)) as Obj[]) {
      urls.push(`/event-calendar/${id}/event/${encodeURIComponent(String(e.eventId))}/details`);
    }
  }
  expect(p.url).not.toBe(clean.url);
  return urls;
}

async function attempt(p: DemoPortal, path: string): Promise<string> {
  try {
    const res = await get(p, path, p.tokens.university);
    if (res.status === 200) JSON.parse(res.body);
    if (res.status === 503 || res.status === 429) expect(res.headers['retry-after']).toBe('1');
    return String(res.status);
  } catch (error) {
    return `error:${(error as { code?: string }).code ?? String(error)}`;
  }
}

describe('demo portal faults', () => {
  it('flaky: some URLs fail once (503, 429, reset), then every URL succeeds', async () => {
    const p = await portal({ faults: 'flaky' });
    const urls = await allUrls(p);
    const first = await Promise.all(urls.map((u) => attempt(p, u)));
    expect(first[0]).toBe('503'); // the calendars list always fails once
    expect(first).toContain('429');
    expect(first.filter((r) => r.startsWith('error:')).length).toBeGreaterThan(0);
    expect(first.filter((r) => r === '200').length).toBeGreaterThan(urls.length / 2);
    const second = await Promise.all(urls.map((u) => attempt(p, u)));
    expect(second.every((r) => r === '200')).toBe(true);
    expect(p.stats().faultsInjected).toBe(first.filter((r) => r !== '200').length);
  });

  it('down: 500 with an HTML body, token or not', async () => {
    const p = await portal({ faults: 'down' });
    for (const token of [p.tokens.university, null]) {
      const res = await get(p, '/event-calendars', token);
      expect(res.status).toBe(500);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('Internal Server Error');
    }
  });

  it('garbage: 200 with an HTML login page instead of JSON, on every path', async () => {
    const p = await portal({ faults: 'garbage' });
    for (const path of ['/event-calendars', '/event-calendar/science/events']) {
      const res = await get(p, path, p.tokens.university);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(() => JSON.parse(res.body)).toThrow();
    }
  });

  it('slow: the calendars list never answers, other paths do, and close() still ends', async () => {
    const p = await portal({ faults: 'slow', latencyMs: 0 });
    const timedOut = await request(`${p.url}/event-calendars`, { headers: { authorization: `Bearer ${p.tokens.university}` }, headersTimeout: 200 }).then(
      () => 'answered',
      (error: { code?: string }) => error.code,
    );
    expect(timedOut).toBe('UND_ERR_HEADERS_TIMEOUT');
    expect((await get(p, '/event-calendar/science/events', p.tokens.university)).status).toBe(200);
    const pending = get(p, '/event-calendars', p.tokens.university).then(
      () => 'answered',
      () => 'failed',
    );
    await new Promise((resolve) => setTimeout(resolve, 50)); // let the request reach the server
    await p.close();
    expect(await pending).toBe('failed');
  });

  it('close() ends while a long injected latency is pending', async () => {
    const p = await portal({ latencyMs: 600_000 });
    const pending = get(p, '/event-calendars', p.tokens.university).then(
      () => 'answered',
      () => 'failed',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await p.close();
    expect(await pending).toBe('failed');
  });

  it('empty: the calendars list is empty in each dialect', async () => {
    expect(await getJson(await portal({ faults: 'empty' }), '/event-calendars')).toEqual([]);
    expect(await getJson(await portal({ faults: 'empty', dialect: 'envelope' }), '/event-calendars')).toMatchObject({ data: [] });
  });

  it('unauthorized: a valid token gets 401 (expired)', async () => {
    const p = await portal({ faults: 'unauthorized' });
    const res = await get(p, '/event-calendars', p.tokens.university);
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'unauthorized', message: expect.stringContaining('expired') });
    expect(p.stats().authFailures).toBe(1);
  });

  it('huge: the calendars list is valid JSON larger than 25 MB', async () => {
    const p = await portal({ faults: 'huge' });
    const res = await request(`${p.url}/event-calendars`, { headers: { authorization: `Bearer ${p.tokens.university}` } });
    expect(res.statusCode).toBe(200);
    const text = await res.body.text();
    expect(Buffer.byteLength(text)).toBeGreaterThan(25 * 1024 * 1024);
    expect(Buffer.byteLength(text)).toBeGreaterThanOrEqual(HUGE_BYTES);
    expect((JSON.parse(text) as unknown[]).length).toBeGreaterThan(1000);
  });

  it('redirect: the calendars list redirects to another origin that records credentials', async () => {
    const p = await portal({ faults: 'redirect' });
    const res = await get(p, '/event-calendars', p.tokens.university);
    expect(res.status).toBe(302);
    const location = String(res.headers.location);
    expect(new URL(location).origin).not.toBe(new URL(p.url).origin);
    expect(location).not.toContain(p.tokens.university);
    const followed = await request(location);
    expect(followed.statusCode).toBe(200);
    expect((JSON.parse(await followed.body.text()) as unknown[]).length).toBe(5);
    expect(p.stats()).toMatchObject({ foreignRequests: 1, foreignAuthSeen: false });
    await (await request(location, { headers: { authorization: `Bearer ${p.tokens.university}` } })).body.text();
    expect(p.stats()).toMatchObject({ foreignRequests: 2, foreignAuthSeen: true });
    p.resetStats();
    expect(p.stats()).toMatchObject({ foreignRequests: 0, foreignAuthSeen: false });
  });
});

describe('demo portal hostile mode', () => {
  it('serves hostile ids, titles and descriptions, university only', async () => {
    const p = await portal({ faults: 'hostile' });
    const cals = (await getJson(p, '/event-calendars')) as Obj[];
    const ids = cals.map((c) => String(c.eventCalendarId));
    expect(ids).toEqual(expect.arrayContaining(['../../etc/passwd', 'CON', 'Hostile', 'hostile', 'science']));
    const faculty = JSON.parse((await get(p, '/event-calendars', p.tokens.faculty)).body) as Obj[];
    expect(faculty.map((c) => String(c.eventCalendarId))).not.toContain('CON');

    const events = (await getJson(p, `/event-calendar/${encodeURIComponent('../../etc/passwd')}/events`)) as Obj[];
    const eventIds = events.map((e) => String(e.eventId));
    expect(eventIds).toEqual(expect.arrayContaining(['..', 'a/b', 'a\\b', 'CON', 'x'.repeat(300), 'Event', 'event', 'nul\u0000byte']));
    const titles = events.map((e) => String(e.title));
    expect(titles).toContain('<script>alert(1)</script>');
    expect(titles.some((t) => t.includes(']]>'))).toBe(true);
    expect(titles.some((t) => /[\u0000-\u0008\u000b\u001f\u007f]/.test(t))).toBe(true);
    expect(titles.some((t) => t.includes('\uFFFE'))).toBe(true);
    expect(Math.max(...titles.map((t) => t.length))).toBeGreaterThanOrEqual(100_000);

    const details = (await getJson(p, `/event-calendar/${encodeURIComponent('../../etc/passwd')}/event/${encodeURIComponent('a/b')}/details`)) as Obj;
    const description = String(details.description);
    for (const bad of ['<script>', '<style>', '<iframe', '<object', '<form', 'onclick=', 'javascript:', 'src="data:']) {
      expect(description).toContain(bad);
    }
    expect(description).toContain('<a href="https://ok.example/">ok</a>');
  });

  it('redirects one event\'s details to another origin without the token', async () => {
    const p = await portal({ faults: 'hostile', auth: { mode: 'query', param: 'token' } });
    const [cal, ev] = REDIRECTING_EVENT;
    const path = `/event-calendar/${encodeURIComponent(cal)}/event/${encodeURIComponent(ev)}/details?token=${p.tokens.university}`;
    const res = await get(p, path);
    expect(res.status).toBe(302);
    const location = String(res.headers.location);
    expect(location).not.toContain(p.tokens.university);
    const followed = await request(location);
    expect(followed.statusCode).toBe(200);
    expect(JSON.parse(await followed.body.text())).toMatchObject({ eventId: ev });
    expect(p.stats()).toMatchObject({ foreignRequests: 1, foreignAuthSeen: false });
  });
});
