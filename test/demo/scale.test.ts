import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runDemoServer } from '../../src/demo/cli.js';
import { ConfigError } from '../../src/errors.js';
import { get, getJson, portal } from './helpers.js';

type Obj = Record<string, unknown>;

describe('demo portal scale mode', () => {
  it('serves the requested calendars and events, with small details', async () => {
    const p = await portal({ calendars: 7, eventsPerCalendar: 300 });
    const cals = (await getJson(p, '/event-calendars')) as Obj[];
    expect(cals).toHaveLength(7);
    const events = (await getJson(p, `/event-calendar/${String(cals[3]?.eventCalendarId)}/events`)) as Obj[];
    expect(events).toHaveLength(300);
    const details = await get(p, `/event-calendar/${String(cals[3]?.eventCalendarId)}/event/${String(events[299]?.eventId)}/details`, p.tokens.university);
    expect(details.status).toBe(200);
    expect(Buffer.byteLength(details.body)).toBeGreaterThan(500);
    expect(Buffer.byteLength(details.body)).toBeLessThan(2500);
  });

  it('100 x 1000 events: lists, details and 1% changes work', async () => {
    const p = await portal({ calendars: 100, eventsPerCalendar: 1000 });
    expect((await getJson(p, '/event-calendars')) as Obj[]).toHaveLength(100);
    expect((await getJson(p, '/event-calendar/cal-0100/events')) as Obj[]).toHaveLength(1000);
    const changed = p.changeEvents(1000);
    expect(changed).toHaveLength(1000);
    expect(new Set(changed.map(([c]) => c)).size).toBeGreaterThan(50); // spread over calendars
    const [cal, ev] = changed[0] ?? ['', ''];
    expect(((await getJson(p, `/event-calendar/${cal}/event/${ev}/details`)) as Obj).title).toMatch(/\(updated\)$/);
  });

  it('envelope at scale pages by 100', async () => {
    const p = await portal({ calendars: 2, eventsPerCalendar: 250, dialect: 'envelope' });
    const first = (await getJson(p, '/event-calendar/cal-0001/events')) as { data: unknown[]; meta: { total_pages: number } };
    expect(first.data).toHaveLength(100);
    expect(first.meta.total_pages).toBe(3);
  });
});

describe('runDemoServer', () => {
  it('prints the URL, both tokens and the time zone', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const p = await runDemoServer({ port: 0, dialect: 'envelope', calendars: 3, eventsPerCalendar: 4 }, out);
    try {
      expect(text).toBe(
        `Demo portal: ${p.url}\nToken (university): ${p.tokens.university}\nToken (faculty): ${p.tokens.faculty}\nTime zone: Europe/Vilnius\n`,
      );
      expect(((await getJson(p, '/event-calendars')) as { data: unknown[] }).data).toHaveLength(3);
    } finally {
      await p.close();
    }
  });

  it('rejects unknown dialects and fault modes, listing the valid names', async () => {
    const out = new PassThrough();
    await expect(runDemoServer({ dialect: 'klingon' }, out)).rejects.toThrow(ConfigError);
    await expect(runDemoServer({ dialect: 'klingon' }, out)).rejects.toThrow(/default, envelope, multilingual, custom/);
    await expect(runDemoServer({ faults: 'meteor' }, out)).rejects.toThrow(/flaky.*hostile.*redirect/);
    await expect(runDemoServer({ calendars: 0 }, out)).rejects.toThrow(/--calendars/);
    await expect(runDemoServer({ latencyMs: -1 }, out)).rejects.toThrow(/--latency/);
  });
});
