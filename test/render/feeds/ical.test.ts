import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { eventUid } from '../../../src/render/ical/event.js';
import { renderEventIcs } from '../../../src/render/ical/index.js';
import type { FeedEvent } from '../../../src/model.js';
import { SAMPLE_NOW, sampleCalendar, sampleEvent, sampleModel, sampleSite } from '../../fixtures/sample.js';
import { allEvents, line, parseIcs, timeOf, unfoldedLines, veventByUid } from './helpers.js';
import { createRenderContext } from '../../../src/render/context.js';
import { renderIcs } from '../../support/render.js';

const ctx = createRenderContext();

const site = sampleSite();
const science = sampleCalendar();
const DAY = 86_400_000;

/** The text from the first VEVENT on, so calendar-level DESCRIPTION/URL do not match. */
function vevent0(text: string): string {
  return text.slice(text.indexOf('BEGIN:VEVENT'));
}

function icsOf(events: FeedEvent[], overrides = {}): string {
  return renderIcs(ctx, science, [science], events, sampleSite(overrides));
}

describe('renderIcs: structure', () => {
  it('parses with ical.js and has one VEVENT per event in the window, with unique UIDs', () => {
    const model = sampleModel();
    const text = renderIcs(ctx, null, model.calendars, allEvents(model), site);
    const { vevents } = parseIcs(text);
    expect(vevents).toHaveLength(4);
    const uids = vevents.map((v) => v.getFirstPropertyValue('uid'));
    expect(new Set(uids).size).toBe(4);
    expect(uids).toContain(eventUid(ctx, allEvents(model)[0]!, site));
  });

  it('uses CRLF after every line, including the last, and no bare CR or LF', () => {
    const model = sampleModel();
    const text = renderIcs(ctx, null, model.calendars, allEvents(model), site);
    expect(text.endsWith('END:VCALENDAR\r\n')).toBe(true);
    for (const physical of text.split('\r\n')) expect(physical).not.toMatch(/[\r\n]/);
  });

  it('writes the calendar headers for one calendar', () => {
    const text = icsOf([sampleEvent()], { refreshMinutes: 90 });
    const { calendar } = parseIcs(text);
    expect(line(text, 'VERSION')).toBe('VERSION:2.0');
    expect(line(text, 'PRODID')).toBe('PRODID:-//calfeed//calfeed 0.0.0-test//EN');
    expect(line(text, 'CALSCALE')).toBe('CALSCALE:GREGORIAN');
    expect(line(text, 'METHOD')).toBe('METHOD:PUBLISH');
    expect(calendar.getFirstPropertyValue('x-wr-calname')).toBe('Faculty of Science');
    expect(calendar.getFirstPropertyValue('name')).toBe('Faculty of Science');
    // The calendar description is plain text, converted from the portal's HTML.
    // ical.js keeps X- values raw (it does not know their type), so check the escaped text.
    expect(line(text, 'X-WR-CALDESC')).toBe('X-WR-CALDESC:Talks\\, labs & open days.');
    expect(calendar.getFirstPropertyValue('description')).toBe('Talks, labs & open days.');
    expect(calendar.getFirstPropertyValue('x-wr-timezone')).toBe('Europe/Vilnius');
    expect(line(text, 'REFRESH-INTERVAL')).toBe('REFRESH-INTERVAL;VALUE=DURATION:PT1H30M');
    expect(line(text, 'X-PUBLISHED-TTL')).toBe('X-PUBLISHED-TTL:PT1H30M');
    expect(line(text, 'URL')).toBe('URL;VALUE=URI:https://events.example.edu/feeds/calendars/science/calendar.ics');
    expect(line(text, 'SOURCE')).toBe('SOURCE;VALUE=URI:https://events.example.edu/feeds/calendars/science/calendar.ics');
  });

  it('names the combined calendar after the site and uses the site time zone', () => {
    const model = sampleModel();
    const text = renderIcs(ctx, null, model.calendars, allEvents(model), sampleSite({ timeZone: 'UTC' }));
    const { calendar } = parseIcs(text);
    expect(calendar.getFirstPropertyValue('x-wr-calname')).toBe('University Events');
    expect(calendar.getFirstPropertyValue('x-wr-timezone')).toBe('UTC');
    expect(line(text, 'REFRESH-INTERVAL')).toBe('REFRESH-INTERVAL;VALUE=DURATION:PT3H');
    expect(line(text, 'SOURCE')).toBe('SOURCE;VALUE=URI:https://events.example.edu/feeds/calendar.ics');
  });

  it('orders events by start, then id, whatever the input order', () => {
    const events = [
      sampleEvent({ id: 'b', slug: 'b', when: { kind: 'timed', start: Date.UTC(2026, 3, 1, 9) } }),
      sampleEvent({ id: 'a', slug: 'a', when: { kind: 'timed', start: Date.UTC(2026, 3, 1, 9) } }),
      sampleEvent({ id: 'c', slug: 'c', when: { kind: 'timed', start: Date.UTC(2026, 2, 30, 9) } }),
    ];
    const forward = icsOf(events);
    expect(icsOf([...events].reverse())).toBe(forward);
    const ids = parseIcs(forward).vevents.map((v) => String(v.getFirstPropertyValue('uid')).split('/')[1]);
    expect(ids).toEqual(['c@events.example.edu', 'a@events.example.edu', 'b@events.example.edu']);
  });
});

describe('renderIcs: folding and escaping', () => {
  it('folds an emoji-heavy title at 75 octets without splitting a UTF-8 sequence', () => {
    const title = '🎉 Graduation party 🎓🎊🥳 with music 🎶🎸 and food 🍕🍰 — everyone welcome! 🌍✨ Ąžuolas Šėja 日本語';
    const text = icsOf([sampleEvent({ title })]);
    const bytes = Buffer.from(text, 'utf8');
    let start = 0;
    let folded = 0;
    for (let i = 0; i <= bytes.length - 2; i++) {
      if (bytes[i] !== 0x0d || bytes[i + 1] !== 0x0a) continue;
      const physical = bytes.subarray(start, i);
      expect(physical.length).toBeLessThanOrEqual(75);
      // Neither the line nor a continuation's content (after its one space) starts mid-character.
      const first = physical[0] === 0x20 ? physical[1] : physical[0];
      if (first !== undefined) expect(first & 0xc0).not.toBe(0x80);
      expect(physical.toString('utf8')).not.toContain('\uFFFD');
      if (physical[0] === 0x20) folded++;
      start = i + 2;
    }
    expect(folded).toBeGreaterThan(1);
    expect(parseIcs(text).vevents[0]!.getFirstPropertyValue('summary')).toBe(title);
  });

  it('escapes backslash, semicolon, comma and newline in SUMMARY, DESCRIPTION and LOCATION', () => {
    const nasty = 'a\\b;c,d\ne\r\nf';
    const event = sampleEvent({
      title: nasty,
      description: nasty,
      location: { text: nasty },
    });
    const text = icsOf([event]);
    expect(line(text, 'SUMMARY')).toBe('SUMMARY:a\\\\b\\;c\\,d\\ne\\nf');
    expect(line(text, 'LOCATION')).toBe('LOCATION:a\\\\b\\;c\\,d\\ne\\nf');
    expect(line(vevent0(text), 'DESCRIPTION')).toBe('DESCRIPTION:a\\\\b\\;c\\,d\\ne\\nf');
    const vevent = parseIcs(text).vevents[0]!;
    expect(vevent.getFirstPropertyValue('summary')).toBe('a\\b;c,d\ne\nf');
    expect(vevent.getFirstPropertyValue('location')).toBe('a\\b;c,d\ne\nf');
  });

  it('escapes each CATEGORIES item so commas inside a category do not split it', () => {
    const text = icsOf([sampleEvent({ categories: ['Music, Jazz', 'Talks; Q&A', 'C:\\Temp', '', '  '] })]);
    expect(line(text, 'CATEGORIES')).toBe('CATEGORIES:Music\\, Jazz,Talks\\; Q&A,C:\\\\Temp');
    const values = parseIcs(text).vevents[0]!.getFirstProperty('categories')!.getValues();
    expect(values).toEqual(['Music, Jazz', 'Talks; Q&A', 'C:\\Temp']);
  });

  it('removes control characters from every text value', () => {
    const event = sampleEvent({ title: 'Bell\u0007 Null\u0000 Esc\u001b Del\u007f C1\u0085 FFFF\uFFFF lone\uD800 end', location: { text: 'Room\u000b 1' } });
    const text = icsOf([event]);
    expect(text).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\uFFFF]/);
    const vevent = parseIcs(text).vevents[0]!;
    expect(vevent.getFirstPropertyValue('summary')).toBe('Bell Null Esc Del C1 FFFF lone end');
    expect(vevent.getFirstPropertyValue('location')).toBe('Room 1');
  });

  it('does not let a title inject properties or components', () => {
    const event = sampleEvent({ title: 'x\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:evil\nSUMMARY:pwned' });
    const { vevents } = parseIcs(icsOf([event]));
    expect(vevents).toHaveLength(1);
    expect(vevents[0]!.getFirstPropertyValue('uid')).toBe(eventUid(ctx, event, site));
  });
});

describe('renderIcs: identity and dates come from data', () => {
  it('keeps UIDs stable across renders and builds them from ids and the site host', () => {
    const model = sampleModel();
    const first = renderIcs(ctx, null, model.calendars, allEvents(model), site);
    const second = renderIcs(ctx, null, model.calendars, allEvents(sampleModel()), site);
    expect(second).toBe(first);
    expect(eventUid(ctx, sampleEvent(), site)).toBe('science/e1@events.example.edu');
    // A different slug (say, after a case-twin appeared) must not change the UID.
    expect(eventUid(ctx, sampleEvent({ slug: '_mux' }), site)).toBe('science/e1@events.example.edu');
  });

  it('gives hostile and look-alike ids distinct, parseable UIDs', () => {
    const ids = ['a/b', 'a%2Fb', 'a', 'A', '..', '../../etc/passwd', 'NUL', 'CON', 'x'.repeat(500), 'a\u0000b', 'ab', 'é', 'e\u0301', '"q";,\\', 'a@b', 'id with space', '\uD800lone', '\uD801lone'];
    const events = ids.map((id, i) => sampleEvent({ id, slug: `s${i}`, calendarId: 'cal/../x', title: `<script>alert(${i})</script>` }));
    const text = icsOf(events);
    const { vevents } = parseIcs(text);
    expect(vevents).toHaveLength(ids.length);
    const uids = vevents.map((v) => String(v.getFirstPropertyValue('uid')));
    expect(new Set(uids).size).toBe(ids.length);
    for (const uid of uids) expect(uid).toMatch(/^[A-Za-z0-9\-._~%]+\/[A-Za-z0-9\-._~%u]+@events\.example\.edu$/);
  });

  it('takes DTSTAMP and LAST-MODIFIED from the event, never from now', () => {
    const updated = sampleEvent({ updated: Date.UTC(2026, 1, 14, 8, 15, 30) });
    const noUpdate = sampleEvent({ id: 'e9', slug: 'e9', updated: undefined, changedAt: Date.UTC(2026, 1, 10, 7), created: Date.UTC(2026, 0, 5) });
    const a = icsOf([updated, noUpdate]);
    const b = icsOf([updated, noUpdate], { now: SAMPLE_NOW + 3 * 3_600_000 });
    expect(b).toBe(a);
    const one = veventByUid(parseIcs(a).vevents, eventUid(ctx, updated, site));
    expect(one.getFirstPropertyValue('dtstamp')?.toString()).toBe('2026-02-14T08:15:30Z');
    expect(one.getFirstPropertyValue('last-modified')?.toString()).toBe('2026-02-14T08:15:30Z');
    expect(one.getFirstPropertyValue('created')?.toString()).toBe('2026-02-01T00:00:00Z');
    const two = veventByUid(parseIcs(a).vevents, eventUid(ctx, noUpdate, site));
    expect(line(a.split('UID:science/e9')[1]!, 'DTSTAMP')).toBe('DTSTAMP:20260210T070000Z');
    expect(two.getFirstPropertyValue('last-modified')?.toString()).toBe('2026-02-10T07:00:00Z');
    expect(two.getFirstPropertyValue('created')?.toString()).toBe('2026-01-05T00:00:00Z');
  });

  it('writes SEQUENCE from the model', () => {
    const text = icsOf([sampleEvent({ sequence: 3 })]);
    expect(parseIcs(text).vevents[0]!.getFirstPropertyValue('sequence')).toBe(3);
  });

  it('converts wall time across the 2026-03-29 DST change to the right UTC instants', () => {
    // 10:00 in Vilnius is 08:00Z before the change (EET, +2) and 07:00Z after it (EEST, +3).
    const before = DateTime.fromISO('2026-03-28T10:00', { zone: 'Europe/Vilnius' }).toMillis();
    const after = DateTime.fromISO('2026-03-30T10:00', { zone: 'Europe/Vilnius' }).toMillis();
    expect(before).toBe(Date.UTC(2026, 2, 28, 8));
    expect(after).toBe(Date.UTC(2026, 2, 30, 7));
    const text = icsOf([
      sampleEvent({ id: 'before', slug: 'before', when: { kind: 'timed', start: before, end: before + 3_600_000 } }),
      sampleEvent({ id: 'after', slug: 'after', when: { kind: 'timed', start: after, end: after + 3_600_000 } }),
    ]);
    const lines = unfoldedLines(text).filter((l) => l.startsWith('DTSTART') || l.startsWith('DTEND'));
    expect(lines).toEqual(['DTSTART:20260328T080000Z', 'DTEND:20260328T090000Z', 'DTSTART:20260330T070000Z', 'DTEND:20260330T080000Z']);
    const starts = parseIcs(text).vevents.map((v) => timeOf(v, 'dtstart').toUnixTime() * 1000);
    expect(starts.map((ms) => DateTime.fromMillis(ms, { zone: 'Europe/Vilnius' }).toFormat('HH:mm'))).toEqual(['10:00', '10:00']);
  });

  it('writes all-day events as DATE values with an exclusive DTEND', () => {
    const text = icsOf([
      sampleEvent({ id: 'xmas', slug: 'xmas', when: { kind: 'allDay', startDate: '2026-12-24', endDate: '2026-12-26' } }),
      sampleEvent({ id: 'nye', slug: 'nye', when: { kind: 'allDay', startDate: '2026-12-31', endDate: '2026-12-31' } }),
    ]);
    expect(line(text.split('UID:science/xmas')[1]!, 'DTSTART')).toBe('DTSTART;VALUE=DATE:20261224');
    expect(line(text.split('UID:science/xmas')[1]!, 'DTEND')).toBe('DTEND;VALUE=DATE:20261227');
    expect(line(text.split('UID:science/nye')[1]!, 'DTEND')).toBe('DTEND;VALUE=DATE:20270101');
    const xmas = veventByUid(parseIcs(text).vevents, 'science/xmas@events.example.edu');
    expect(timeOf(xmas, 'dtstart').isDate).toBe(true);
    expect(timeOf(xmas, 'dtend').toString()).toBe('2026-12-27');
  });

  it('omits DTEND for a timed event without an end', () => {
    const text = icsOf([sampleEvent({ when: { kind: 'timed', start: Date.UTC(2026, 3, 1, 9) } })]);
    expect(line(text, 'DTSTART')).toBe('DTSTART:20260401T090000Z');
    expect(line(text, 'DTEND')).toBeUndefined();
    expect(line(text, 'DURATION')).toBeUndefined();
  });
});

describe('renderIcs: status, window and properties', () => {
  it('marks cancelled and removed events CANCELLED and keeps the others CONFIRMED or TENTATIVE', () => {
    const model = sampleModel();
    const { vevents } = parseIcs(renderIcs(ctx, null, model.calendars, allEvents(model), site));
    const status = Object.fromEntries(vevents.map((v) => [String(v.getFirstPropertyValue('uid')).split('@')[0], v.getFirstPropertyValue('status')]));
    expect(status).toEqual({ 'science/e1': 'CONFIRMED', 'science/e2': 'CONFIRMED', 'science/e3': 'CANCELLED', 'Arts%20%26%20Culture/a1': 'CANCELLED' });
    expect(line(icsOf([sampleEvent({ status: 'tentative' })]), 'STATUS')).toBe('STATUS:TENTATIVE');
  });

  it('keeps events that ended up to icalPastDays ago and drops older ones', () => {
    const ended = (id: string, daysAgo: number): FeedEvent =>
      sampleEvent({ id, slug: id, when: { kind: 'timed', start: SAMPLE_NOW - daysAgo * DAY - 3_600_000, end: SAMPLE_NOW - daysAgo * DAY } });
    const events = [
      ended('d89', 89),
      ended('d91', 91),
      // All-day events end at the end of their last day in the calendar's zone.
      sampleEvent({ id: 'allday-in', slug: 'allday-in', when: { kind: 'allDay', startDate: '2025-12-19', endDate: '2025-12-20' } }),
      sampleEvent({ id: 'allday-out', slug: 'allday-out', when: { kind: 'allDay', startDate: '2025-12-10', endDate: '2025-12-18' } }),
      sampleEvent({ id: 'future', slug: 'future' }),
    ];
    const ids = parseIcs(icsOf(events)).vevents.map((v) => String(v.getFirstPropertyValue('uid')).replace(/^science\/|@.*$/g, ''));
    expect(ids.sort()).toEqual(['allday-in', 'd89', 'future']);
    expect(parseIcs(icsOf(events, { icalPastDays: 0 })).vevents).toHaveLength(1);
  });

  it('writes DESCRIPTION as plain text, URL, LOCATION, CATEGORIES and ORGANIZER with an e-mail', () => {
    const text = icsOf([sampleEvent()]);
    const vevent = parseIcs(text).vevents[0]!;
    expect(vevent.getFirstPropertyValue('description')).toBe('Join us for an open lecture. More (https://example.edu/q)');
    expect(vevent.getFirstPropertyValue('url')).toBe('https://portal.example.edu/events/e1');
    expect(vevent.getFirstPropertyValue('location')).toBe('Main Hall, Universiteto g. 3, Vilnius');
    expect(line(text, 'ORGANIZER')).toBe('ORGANIZER;CN="Dr. Ada":mailto:ada@example.edu');
    expect(vevent.getFirstProperty('organizer')!.getParameter('cn')).toBe('Dr. Ada');
    expect(line(text, 'GEO')).toBeUndefined();
  });

  it('falls back to our event page for a missing or unsafe URL and drops ORGANIZER without a usable e-mail', () => {
    const page = 'URL;VALUE=URI:https://events.example.edu/feeds/calendars/science/events/e1.html';
    expect(line(vevent0(icsOf([sampleEvent({ url: undefined })])), 'URL')).toBe(page);
    const unsafe = icsOf([sampleEvent({ url: 'javascript:alert(1)', organizer: { name: 'No mail' } })]);
    expect(line(vevent0(unsafe), 'URL')).toBe(page);
    expect(unsafe).not.toContain('javascript:');
    expect(line(unsafe, 'ORGANIZER')).toBeUndefined();
    const injected = icsOf([sampleEvent({ organizer: { name: 'Eve "the" one', email: 'eve@example.edu\r\nATTENDEE:x' } })]);
    expect(line(injected, 'ORGANIZER')).toBeUndefined();
    const quoted = icsOf([sampleEvent({ organizer: { name: 'Eve "the" one; Ltd:', email: 'eve@example.edu' } })]);
    expect(line(quoted, 'ORGANIZER')).toBe('ORGANIZER;CN="Eve the one; Ltd:":mailto:eve@example.edu');
    expect(parseIcs(quoted).vevents[0]!.getFirstProperty('organizer')!.getParameter('cn')).toBe('Eve the one; Ltd:');
  });
});

describe('renderEventIcs', () => {
  it('is a PUBLISH calendar with the one event, under the same UID as in calendar.ics', () => {
    const event = sampleEvent();
    const text = renderEventIcs(ctx, event, site);
    const { vevents } = parseIcs(text);
    expect(vevents).toHaveLength(1);
    expect(line(text, 'METHOD')).toBe('METHOD:PUBLISH');
    expect(vevents[0]!.getFirstPropertyValue('uid')).toBe(eventUid(ctx, event, site));
    expect(text.endsWith('END:VCALENDAR\r\n')).toBe(true);
    expect(renderEventIcs(ctx, event, sampleSite({ now: SAMPLE_NOW + DAY }))).toBe(text);
  });
});
