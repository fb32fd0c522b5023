import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { NOW, get, portal } from './helpers.js';

type Cal = { eventCalendarId: string | number; title: string };

describe('demo portal HTTP', () => {
  it('requires a token: 401 JSON without one or with a wrong one', async () => {
    const p = await portal();
    for (const token of [null, 'wrong-token']) {
      const res = await get(p, '/event-calendars', token);
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(res.body)).toMatchObject({ error: 'unauthorized' });
    }
    const wrongScheme = await get(p, '/event-calendars', null, { authorization: `Token ${p.tokens.university}` });
    expect(wrongScheme.status).toBe(401);
    expect(p.stats().authFailures).toBe(3);
    expect(p.stats().lastAuthHeaders).toEqual(['Bearer wrong-token', `Token ${p.tokens.university}`]);
  });

  it('shows each organization its own calendars and 404s the others', async () => {
    const p = await portal();
    expect(p.tokens.university).not.toBe(p.tokens.faculty);
    const uni = JSON.parse((await get(p, '/event-calendars', p.tokens.university)).body) as Cal[];
    const fac = JSON.parse((await get(p, '/event-calendars', p.tokens.faculty)).body) as Cal[];
    const uniIds = uni.map((c) => String(c.eventCalendarId));
    const facIds = fac.map((c) => String(c.eventCalendarId));
    expect(uniIds).toHaveLength(5);
    expect(facIds.length).toBeGreaterThan(0);
    expect(facIds.length).toBeLessThan(uniIds.length);
    for (const id of facIds) expect(uniIds).toContain(id);
    const hidden = uniIds.find((id) => !facIds.includes(id)) ?? '';
    const res = await get(p, `/event-calendar/${encodeURIComponent(hidden)}/events`, p.tokens.faculty);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'not_found' });
    expect((await get(p, `/event-calendar/${encodeURIComponent(hidden)}/events`, p.tokens.university)).status).toBe(200);
  });

  it('answers 404 JSON for unknown paths and events, 405 for other methods', async () => {
    const p = await portal();
    expect((await get(p, '/nope', p.tokens.university)).status).toBe(404);
    expect((await get(p, '/event-calendar/science/event/999999/details', p.tokens.university)).status).toBe(404);
    const post = await request(`${p.url}/event-calendars`, { method: 'POST', headers: { authorization: `Bearer ${p.tokens.university}` }, body: '{}' });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET');
    await post.body.text();
  });

  it('sends a strong ETag and Last-Modified, and 304s conditional requests', async () => {
    const p = await portal();
    const path = '/event-calendar/science/events';
    const first = await get(p, path, p.tokens.university);
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[^"]+"$/);
    const lastModified = String(first.headers['last-modified']);
    expect(Date.parse(lastModified)).toBeLessThanOrEqual(NOW);
    const again = await get(p, path, p.tokens.university, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    expect((await get(p, path, p.tokens.university, { 'if-modified-since': lastModified })).status).toBe(304);
    expect((await get(p, path, p.tokens.university, { 'if-none-match': '"other"' })).status).toBe(200);
    const older = new Date(Date.parse(lastModified) - 1000).toUTCString();
    expect((await get(p, path, p.tokens.university, { 'if-modified-since': older })).status).toBe(200);
    expect(p.stats()).toMatchObject({ conditional: 4, notModified: 2, byKind: { events: 5 } });
    p.resetStats();
    expect(p.stats()).toMatchObject({ requests: 0, conditional: 0, notModified: 0 });
  });

  it('serves identical bytes and ETags from two portals with the same day', async () => {
    const a = await portal();
    const b = await portal({ now: NOW + 3_600_000 }); // an hour later, same day in Vilnius
    for (const path of ['/event-calendars', '/event-calendar/arts-culture/events', '/event-calendar/42/event/4203/details']) {
      const [ra, rb] = [await get(a, path, a.tokens.university), await get(b, path, b.tokens.university)];
      expect(ra.status).toBe(200);
      expect(rb.body).toBe(ra.body);
      expect(rb.headers.etag).toBe(ra.headers.etag);
    }
    const nextDay = await portal({ now: NOW + 86_400_000 });
    expect((await get(nextDay, '/event-calendar/arts-culture/events', nextDay.tokens.university)).body).not.toBe(
      (await get(a, '/event-calendar/arts-culture/events', a.tokens.university)).body,
    );
  });

  it('supports the token as a query parameter or a custom header without scheme', async () => {
    const q = await portal({ auth: { mode: 'query', param: 'access_token' } });
    expect((await get(q, '/event-calendars', q.tokens.university)).status).toBe(401);
    expect((await get(q, `/event-calendars?access_token=${q.tokens.faculty}`)).status).toBe(200);
    expect(q.stats().lastAuthHeaders).toEqual([q.tokens.faculty]);
    const h = await portal({ auth: { mode: 'header', header: 'X-Api-Key', scheme: '' } });
    expect((await get(h, '/event-calendars', null, { 'x-api-key': h.tokens.university })).status).toBe(200);
  });

  it('changeEvents and removeEvent change bodies, ETags and lists', async () => {
    const p = await portal();
    const changed = p.changeEvents(3);
    expect(changed).toHaveLength(3);
    expect(new Set(changed.map((c) => c.join('/'))).size).toBe(3);
    const [calendarId, eventId] = changed[0] ?? ['', ''];
    const fresh = await portal();
    const path = `/event-calendar/${encodeURIComponent(calendarId)}/event/${encodeURIComponent(eventId)}/details`;
    const before = await get(fresh, path, fresh.tokens.university);
    const after = await get(p, path, p.tokens.university);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    const title = (JSON.parse(after.body) as { title: string }).title;
    expect(title).toBe(`${(JSON.parse(before.body) as { title: string }).title} (updated)`);
    expect(Date.parse(String(after.headers['last-modified']))).toBeGreaterThan(Date.parse(String(before.headers['last-modified'])));
    // The next call changes other events; changing one again bumps its version.
    expect(p.changeEvents(2).map((c) => c.join('/'))).not.toContain(changed[0]?.join('/'));
    // Or only events of one calendar.
    const calendar = changed[0]![0];
    const inOne = p.changeEvents(4, calendar);
    expect(inOne).toHaveLength(4);
    expect(inOne.every(([c]) => c === calendar)).toBe(true);

    const list = `/event-calendar/${encodeURIComponent(calendarId)}/events`;
    const listBefore = await get(p, list, p.tokens.university);
    p.removeEvent(calendarId, eventId);
    const listAfter = await get(p, list, p.tokens.university);
    expect(listAfter.headers.etag).not.toBe(listBefore.headers.etag);
    const ids = (JSON.parse(listAfter.body) as Array<{ eventId: unknown }>).map((e) => String(e.eventId));
    expect(ids).not.toContain(eventId);
    expect(ids.length).toBe((JSON.parse(listBefore.body) as unknown[]).length - 1);
    expect((await get(p, path, p.tokens.university)).status).toBe(404);
    // If-Modified-Since alone must see the removal too.
    const ims = await get(p, list, p.tokens.university, { 'if-modified-since': String(listBefore.headers['last-modified']) });
    expect(ims.status).toBe(200);
  });
});
