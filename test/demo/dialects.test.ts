// Every dialect must describe the same events. Each shape is parsed here directly (not with
// calfeed's normalizer), so a dialect that drifts from the others fails this test.

import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import type { DemoPortal } from '../../src/demo/server.js';
import { get, getJson, portal } from './helpers.js';

interface Canon {
  id: string;
  title: string;
  start: string;
  end?: string;
  allDay: boolean;
  location?: string;
  cancelled: boolean;
}

type Obj = Record<string, unknown>;
const utc = (iso: string): string => new Date(iso).toISOString();
const locText = (loc: unknown): string | undefined => {
  if (loc === undefined) return undefined;
  if (typeof loc === 'string') return loc;
  const { name, address } = loc as { name: string; address?: string };
  return address ? `${name}, ${address}` : name;
};

function fromDefault(e: Obj, custom = false): Canon {
  const allDay = e.allDay === true;
  const start = custom ? (e.kickoff as { at: string }).at : ((allDay ? e.startDate : e.startDateTime) as string);
  const end = (allDay ? e.endDate : e.endDateTime) as string | null | undefined;
  return {
    id: String(e.eventId),
    title: e.title as string,
    start: allDay ? start : utc(start),
    ...(end ? { end: allDay ? end : utc(end) } : {}),
    allDay,
    ...(e.location !== undefined ? { location: locText(e.location) } : {}),
    cancelled: e.status === 'cancelled',
  };
}

function fromEnvelope(e: Obj): Canon {
  const allDay = e.is_all_day === true;
  const start = (allDay ? e.start_date : e.start_date_time) as string;
  const end = (allDay ? e.end_date : e.end_date_time) as string | undefined;
  return {
    id: String(e.event_id),
    title: e.title as string,
    start: allDay ? start : utc(start),
    ...(end ? { end: allDay ? end : utc(end) } : {}),
    allDay,
    ...(e.venue !== undefined ? { location: locText(e.venue) } : {}),
    cancelled: e.is_cancelled === true,
  };
}

function fromMultilingual(e: Obj, zone: string): Canon {
  const allDay = e.allDay === true;
  const wall = (d: unknown, t: unknown): string => DateTime.fromISO(`${String(d)}T${String(t)}`, { zone }).toUTC().toISO() ?? '';
  const start = allDay ? (e.startDate as string) : wall(e.startDate, e.startTime);
  const end = allDay ? ((e.endDate as string | undefined) ?? start) : e.endTime !== undefined ? wall(e.endDate, e.endTime) : undefined;
  return {
    id: String(e.eventId),
    title: (e.title as { en: string }).en,
    start,
    ...(end ? { end } : {}),
    allDay,
    ...(e.location !== undefined ? { location: locText(e.location) } : {}),
    cancelled: e.cancelled === true,
  };
}

/** All pages of an envelope list, following `links.next` and checking the Link header agrees. */
async function envelopePages(p: DemoPortal, path: string): Promise<{ pages: number; data: Obj[] }> {
  const origin = new URL(p.url).origin;
  const data: Obj[] = [];
  let next: string | undefined = path;
  let pages = 0;
  while (next) {
    const res = await get(p, next, p.tokens.university);
    expect(res.status).toBe(200);
    const body = JSON.parse(res.body) as { data: Obj[]; meta: { page: number; total_pages: number }; links: { next?: string } };
    pages += 1;
    expect(body.meta.page).toBe(pages);
    data.push(...body.data);
    const link = res.headers.link as string | undefined;
    if (body.links.next) {
      expect(link).toBe(`<${origin}${body.links.next}>; rel="next"`);
      next = origin + body.links.next;
    } else {
      expect(link).toBeUndefined();
      expect(body.meta.total_pages).toBe(pages);
      next = undefined;
    }
  }
  return { pages, data };
}

async function canonical(dialect: 'default' | 'envelope' | 'multilingual' | 'custom'): Promise<Map<string, Canon[]>> {
  const p = await portal({ dialect });
  const out = new Map<string, Canon[]>();
  const calendars = await getJson(p, '/event-calendars');
  const ids =
    dialect === 'envelope'
      ? (calendars as { data: Obj[] }).data.map((c) => String(c.event_calendar_id))
      : dialect === 'multilingual'
        ? (calendars as { eventCalendars: Obj[] }).eventCalendars.map((c) => String(c.calendarId))
        : (calendars as Obj[]).map((c) => String(c.eventCalendarId));
  for (const id of ids) {
    const path = `/event-calendar/${encodeURIComponent(id)}/events`;
    if (dialect === 'envelope') {
      out.set(id, (await envelopePages(p, p.url + path)).data.map(fromEnvelope));
    } else if (dialect === 'multilingual') {
      out.set(id, ((await getJson(p, path)) as { items: Obj[] }).items.map((e) => fromMultilingual(e, p.timeZone)));
    } else {
      out.set(id, ((await getJson(p, path)) as Obj[]).map((e) => fromDefault(e, dialect === 'custom')));
    }
  }
  return out;
}

describe('demo portal dialects', () => {
  it('describe the same events: English titles, UTC instants, all-day ranges, locations, status', async () => {
    const reference = await canonical('default');
    expect([...reference.values()].flat().length).toBeGreaterThan(50);
    for (const dialect of ['envelope', 'multilingual', 'custom'] as const) {
      expect(await canonical(dialect), dialect).toEqual(reference);
    }
  });

  it('envelope: pages event lists of 5 with body links and RFC 8288 Link headers', async () => {
    const p = await portal({ dialect: 'envelope' });
    const { pages, data } = await envelopePages(p, `${p.url}/event-calendar/science/events`);
    expect(pages).toBe(3);
    expect(data).toHaveLength(13);
    expect(new Set(data.map((e) => e.event_id)).size).toBe(13);
    expect(typeof data[0]?.updated_at).toBe('number');
    const beyond = (await getJson(p, '/event-calendar/science/events?page=9')) as { data: unknown[] };
    expect(beyond.data).toEqual([]);
    expect((await get(p, '/event-calendar/science/events?page=0', p.tokens.university)).status).toBe(400);
    const details = (await getJson(p, '/event-calendar/science/event/1001/details')) as { data: Obj };
    expect(details.data).toMatchObject({ event_id: 1001, tags: ['Lecture', 'Physics'], contact: { email: 'ruta.petrauskiene@example.edu' } });
  });

  it('multilingual: en and lt values, wall times without offsets in the portal zone', async () => {
    const p = await portal({ dialect: 'multilingual' });
    expect(p.timeZone).toBe('Europe/Vilnius');
    const cals = (await getJson(p, '/event-calendars')) as { eventCalendars: Obj[] };
    expect(cals.eventCalendars[0]).toMatchObject({ titleEn: 'Faculty of Science', titleLt: 'Gamtos mokslų fakultetas' });
    const list = (await getJson(p, '/event-calendar/science/events')) as { items: Obj[] };
    const timed = list.items.find((e) => e.allDay === false) ?? {};
    expect(timed.startTime).toMatch(/^\d\d:\d\d$/);
    expect(timed.startDate).toMatch(/^\d{4}-\d\d-\d\d$/);
    for (const e of list.items) {
      for (const field of ['startDate', 'endDate', 'startTime', 'endTime']) {
        if (e[field] !== undefined) expect(String(e[field])).toMatch(/^(\d{4}-\d\d-\d\d|\d\d:\d\d)$/);
      }
    }
    const d = (await getJson(p, '/event-calendar/science/event/1002/details')) as { title: { en: string; lt: string }; description: { en: string; lt: string } };
    expect(d.title).toEqual({ en: 'Chemistry Lab Safety Workshop', lt: 'Chemijos laboratorijos saugos seminaras' });
    expect(d.description.en).toContain('<');
    expect(d.description.lt).toContain('Chemijos');
  });

  it('custom: the start is only under kickoff.at', async () => {
    const p = await portal({ dialect: 'custom' });
    const list = (await getJson(p, '/event-calendar/science/events')) as Obj[];
    for (const e of list) {
      expect(e).toHaveProperty('kickoff.at');
      expect(Object.keys(e).filter((k) => /start|begin|from/i.test(k))).toEqual([]);
    }
  });

  it('details are the same across dialects: description, url, categories, organizer', async () => {
    const [d, env, ml] = [await portal(), await portal({ dialect: 'envelope' }), await portal({ dialect: 'multilingual' })];
    const path = '/event-calendar/arts-culture/event/2001/details';
    const a = (await getJson(d, path)) as Obj;
    const b = ((await getJson(env, path)) as { data: Obj }).data;
    const c = (await getJson(ml, path)) as Obj;
    expect(b.description).toBe(a.description);
    expect((c.description as { en: string }).en).toBe(a.description);
    expect([b.url, c.url]).toEqual([a.url, a.url]);
    expect([b.tags, c.categories]).toEqual([a.categories, a.categories]);
    expect([b.contact, c.organiser]).toEqual([a.organizer, a.organizer]);
    expect(a.capacity).toBeTypeOf('number');
    expect(b.registration_required).toBe(a.registrationRequired);
  });
});
