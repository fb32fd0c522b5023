import { describe, expect, it } from 'vitest';
import { dayKeyOf, eventSpan, formatListTime, safeLocale, safeZone } from '../../../src/render/html/format.js';
import { escapeJsonForScript } from '../../../src/render/html/jsonld.js';
import { relHref, safeHttpUrl, safeMailto, subscribeLinks } from '../../../src/render/html/links.js';
import { sampleEvent } from '../../fixtures/sample.js';
import { clockAt } from '../../../src/render/clock.js';
import { createRenderContext } from '../../../src/render/context.js';
import { splitByNow } from '../../support/render.js';

const ctx = createRenderContext();

describe('links', () => {
  it('relHref links between output files relatively', () => {
    expect(relHref('index.html', 'calendars/a/index.html')).toBe('calendars/a/index.html');
    expect(relHref('calendars/a/events/e.html', 'style.css')).toBe('../../../style.css');
    expect(relHref('calendars/a/events/e.html', 'calendars/a/events/e.ics')).toBe('e.ics');
    expect(relHref('calendars/a/past.html', 'calendars/a/index.html')).toBe('index.html');
    expect(relHref('calendars/a/index.html', 'calendars/b/')).toBe('../b/');
    expect(relHref('calendars/a/index.html', 'calendars/a/')).toBe('./');
  });

  it('safeHttpUrl keeps http(s) only', () => {
    expect(safeHttpUrl(ctx, ' https://x.example/a b ')).toBe('https://x.example/a%20b');
    for (const bad of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'java\tscript:alert(1)', 'data:text/html,<script>', '//x.example', '/relative', 'vbscript:x', undefined, '']) {
      expect(safeHttpUrl(ctx, bad), String(bad)).toBeNull();
    }
  });

  it('safeMailto accepts plausible addresses only', () => {
    expect(safeMailto('ada@example.edu')).toBe('mailto:ada@example.edu');
    expect(safeMailto('a"b@x.y')).toBeNull();
    expect(safeMailto('no-at-sign')).toBeNull();
    expect(safeMailto('x@y')).toBeNull();
  });

  it('subscribeLinks keeps the site URL scheme for webcal and encodes the name', () => {
    const links = subscribeLinks('http://localhost:8080/', null, 'Events & more');
    expect(links.webcal).toBe('webcal://localhost:8080/calendar.ics');
    expect(links.outlook).toBe('https://outlook.live.com/calendar/0/addfromweb?url=http%3A%2F%2Flocalhost%3A8080%2Fcalendar.ics&name=Events%20%26%20more');
  });
});

describe('JSON-LD escaping', () => {
  it('turns every markup character into a \\u escape and stays the same JSON', () => {
    const value = { t: '</script><!-- & \u2028\u2029 >' };
    const escaped = escapeJsonForScript(JSON.stringify(value));
    expect(escaped).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(escaped)).toEqual(value);
  });
});

describe('time helpers', () => {
  it('an all-day event runs to the midnight after its last day, across the DST change', () => {
    const span = eventSpan(ctx, { kind: 'allDay', startDate: '2026-03-28', endDate: '2026-03-29' }, 'Europe/Vilnius');
    expect(new Date(span.start).toISOString()).toBe('2026-03-27T22:00:00.000Z');
    expect(new Date(span.end).toISOString()).toBe('2026-03-29T21:00:00.000Z');
  });

  it('dayKeyOf gives the date in the zone', () => {
    const t = Date.UTC(2026, 2, 24, 22, 30);
    expect([dayKeyOf(ctx, t, 'Europe/Vilnius'), dayKeyOf(ctx, t, 'UTC'), dayKeyOf(ctx, t, 'Pacific/Kiritimati'), dayKeyOf(ctx, t, 'Pacific/Pago_Pago')]).toEqual([
      '2026-03-25', '2026-03-24', '2026-03-25', '2026-03-24',
    ]);
  });

  it('splitByNow: an event without an end is past once it starts; ties order by title then id', () => {
    const now = Date.UTC(2026, 2, 20, 12);
    const at = (h: number) => ({ kind: 'timed' as const, start: now + h * 3_600_000 });
    const events = [
      sampleEvent({ id: 'b', title: 'Same', when: at(1) }),
      sampleEvent({ id: 'a', title: 'Same', when: at(1) }),
      sampleEvent({ id: 'c', title: 'Started', when: at(-1) }),
      sampleEvent({ id: 'd', title: 'Running', when: { kind: 'timed', start: now - 3_600_000, end: now + 3_600_000 } }),
    ];
    const { upcoming, past } = splitByNow(ctx, events, 'UTC', clockAt(now));
    expect(upcoming.map((e) => e.id)).toEqual(['d', 'a', 'b']);
    expect(past.map((e) => e.id)).toEqual(['c']);
  });

  it('formats a timed range crossing midnight with both dates', () => {
    const when = { kind: 'timed' as const, start: Date.UTC(2026, 2, 25, 20), end: Date.UTC(2026, 2, 26, 2) };
    expect(formatListTime(ctx, when, 'UTC', 'en')).toMatch(/^Mar 25, 8:00\sPM\s–\sMar 26, 2:00\sAM$/);
  });

  it('falls back on an unknown zone or a malformed locale', () => {
    expect(safeZone(ctx, 'Mars/Olympus', 'Europe/Vilnius')).toBe('Europe/Vilnius');
    expect(safeZone(ctx, undefined, 'Nope/Nope')).toBe('UTC');
    expect(safeLocale(ctx, 'lt,en')).toBe('lt');
    expect(safeLocale(ctx, '!!,en-GB')).toBe('en-GB');
    expect(safeLocale(ctx, '')).toBe('en');
  });
});
