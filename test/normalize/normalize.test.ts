import { describe, expect, it } from 'vitest';
import type { Calendar } from '../../src/model.js';
import { normalizeCalendars, normalizeEvent, type NormalizeOptions } from '../../src/normalize/index.js';
import { sampleCalendar } from '../fixtures/sample.js';

const OPTS: NormalizeOptions = { timeZone: 'Europe/Vilnius', locales: ['en'] };
const CAL: Calendar = sampleCalendar();
const SAFE_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

describe('normalizeCalendars', () => {
  it('stringifies ids, assigns slugs, reads title/description/url/zone', () => {
    const { calendars, warnings } = normalizeCalendars(
      [
        { eventCalendarId: 42, title: ' Science ', description: '<p>Hi</p>', url: 'https://portal.example.edu/c/42', timeZone: 'America/New_York' },
        { event_calendar_id: 'arts', name: 'Arts', time_zone: 'Mars/Olympus' },
      ],
      OPTS,
    );
    expect(calendars).toEqual([
      { id: '42', slug: '42', title: 'Science', description: '<p>Hi</p>', url: 'https://portal.example.edu/c/42', timeZone: 'America/New_York' },
      { id: 'arts', slug: 'arts', title: 'Arts', timeZone: 'Europe/Vilnius' },
    ]);
    expect(warnings).toEqual([expect.objectContaining({ code: 'BAD_TIME_ZONE', calendarId: 'arts' })]);
  });

  it('drops duplicates and records without id, with warnings, and titles the untitled', () => {
    const { calendars, warnings } = normalizeCalendars([{ id: 'a', title: 'First' }, { id: 'a', title: 'Second' }, { title: 'No id' }, 'junk', { id: 'b' }], OPTS);
    expect(calendars.map((c) => [c.id, c.title])).toEqual([
      ['a', 'First'],
      ['b', '(untitled)'],
    ]);
    expect(warnings.map((w) => w.code).sort()).toEqual(['DUPLICATE_ID', 'NO_ID', 'NO_ID', 'NO_TITLE']);
    expect(warnings.find((w) => w.code === 'DUPLICATE_ID')?.message).toContain('"a"');
  });

  it('encodes hostile ids and case twins into distinct safe segments', () => {
    const ids = ['../x', 'CON', 'Science', 'science', 'a/b', 'plain-1'];
    const { calendars } = normalizeCalendars(ids.map((id) => ({ id, title: id })), OPTS);
    const slugs = calendars.map((c) => c.slug);
    for (const slug of slugs) expect(slug).toMatch(SAFE_SEGMENT);
    expect(new Set(slugs.map((s) => s.toLowerCase())).size).toBe(ids.length);
    expect(calendars.find((c) => c.id === 'plain-1')?.slug).toBe('plain-1');
    for (const id of ['../x', 'CON', 'Science', 'science', 'a/b']) expect(calendars.find((c) => c.id === id)?.slug).not.toBe(id);
  });

  it('reads multilingual calendar titles and descriptions from siblings', () => {
    const { calendars } = normalizeCalendars([{ calendarId: 's', titleEn: 'Science', titleLt: 'Mokslas', descriptionEn: 'en', descriptionLt: 'lt' }], { ...OPTS, locales: ['lt'] });
    expect(calendars[0]).toMatchObject({ title: 'Mokslas', description: 'lt' });
  });
});

describe('normalizeEvent', () => {
  const entry = { eventId: 7, title: 'List title', startDateTime: '2026-12-24T10:00:00+02:00', location: 'Hall', status: 'scheduled' };

  it('merges details over the list entry and fills every model field', () => {
    const details = {
      data: { eventId: 7, eventCalendarId: 'science', title: 'Details title', description: '<p>Full</p>', url: 'https://x.example/7', categories: ['A'], location: null },
    };
    const { event, warnings } = normalizeEvent(entry, details, CAL, '7', OPTS);
    expect(warnings).toEqual([]);
    expect(event).toEqual({
      calendarId: 'science',
      calendarSlug: 'science',
      id: '7',
      slug: '7',
      title: 'Details title',
      when: { kind: 'timed', start: Date.parse('2026-12-24T08:00:00Z') },
      description: '<p>Full</p>',
      location: { name: 'Hall', text: 'Hall' }, // a null in details does not erase the list's value
      url: 'https://x.example/7',
      status: 'confirmed',
      categories: ['A'],
    });
  });

  it('publishes from the list entry when details failed', () => {
    const { event } = normalizeEvent(entry, undefined, CAL, '7', OPTS);
    expect(event).toMatchObject({ title: 'List title', detailsMissing: true });
  });

  it('treats a details body of the wrong shape as missing, with a warning', () => {
    const { event, warnings } = normalizeEvent(entry, '<html>', CAL, '7', OPTS);
    expect(event?.detailsMissing).toBe(true);
    expect(warnings.map((w) => w.code)).toEqual(['DETAILS_SHAPE']);
  });

  it('keeps the list entry id even when details spell it differently', () => {
    expect(normalizeEvent({ ...entry, eventId: '7' }, { eventId: 7.0, id: 'other' }, CAL, '7', OPTS).event?.id).toBe('7');
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no id', { title: 'x', start: '2026-12-24' }, 'NO_ID'],
    ['no start', { id: 1, title: 'x', location: 'Hall' }, 'NO_START'],
    ['unreadable start', { id: 1, title: 'x', start: 'next Tuesday' }, 'BAD_TIME'],
    ['a time of day but no date', { id: 1, title: 'x', startTime: '10:00' }, 'BAD_TIME'],
    // Its end (the same day, 10:00 in Vilnius) lands in year 10000 once read in the zone.
    ['a start in the last hour of year 9999', { id: 1, title: 'x', start: '9999-12-31T23:00:00Z', end: '10:00' }, 'BAD_TIME'],
    ['an all-day event on the last day of year 9999', { id: 1, title: 'x', start: '9999-12-31', allDay: true }, 'BAD_TIME'],
    ['an end beyond year 9999', { id: 1, title: 'x', start: '2026-01-01T10:00:00Z', end: 253402300800000 }, 'BAD_TIME'],
  ])('skips an event with %s', (_name, record, code) => {
    const { event, warnings } = normalizeEvent(record, undefined, CAL, 's', OPTS);
    expect(event).toBeUndefined();
    expect(warnings.map((w) => w.code)).toContain(code);
    expect(warnings.find((w) => w.code === code)?.calendarId).toBe('science');
  });

  it('reads wall times in the calendar zone', () => {
    const ny: Calendar = { ...CAL, timeZone: 'America/New_York' };
    const { event } = normalizeEvent({ id: 1, title: 'x', start: '2026-12-24T10:00:00' }, undefined, ny, '1', OPTS);
    expect(event?.when).toEqual({ kind: 'timed', start: Date.parse('2026-12-24T15:00:00Z') });
  });

  it('drops an end before the start with a warning', () => {
    const { event, warnings } = normalizeEvent({ id: 1, title: 'x', start: '2026-12-24T10:00:00Z', end: '2026-12-24T09:00:00Z' }, undefined, CAL, '1', OPTS);
    expect(event?.when).toEqual({ kind: 'timed', start: Date.parse('2026-12-24T10:00:00Z') });
    expect(warnings.map((w) => w.code)).toEqual(['END_BEFORE_START']);
    expect(warnings[0]).toMatchObject({ calendarId: 'science', eventId: '1' });
  });

  it('ignores an unreadable end with a warning', () => {
    const { event, warnings } = normalizeEvent({ id: 1, title: 'x', start: '2026-12-24T10:00:00Z', end: 'later' }, undefined, CAL, '1', OPTS);
    expect(event?.when).toEqual({ kind: 'timed', start: Date.parse('2026-12-24T10:00:00Z') });
    expect(warnings.map((w) => w.code)).toEqual(['BAD_END']);
  });

  it('a timed start with a date-only end runs to the end of that day', () => {
    const { event } = normalizeEvent({ id: 1, title: 'x', start: '2026-12-24T10:00:00+02:00', endDate: '2026-12-26' }, undefined, CAL, '1', OPTS);
    expect(event?.when).toEqual({ kind: 'timed', start: Date.parse('2026-12-24T08:00:00Z'), end: Date.parse('2026-12-26T22:00:00Z') });
  });

  it('truncates text longer than maxFieldLength with a warning', () => {
    const { event, warnings } = normalizeEvent({ id: 1, title: 'T'.repeat(50), start: '2026-12-24', description: 'd'.repeat(30) }, undefined, CAL, '1', { ...OPTS, maxFieldLength: 20 });
    expect(event?.title).toBe('T'.repeat(20));
    expect(event?.description).toBe('d'.repeat(20));
    expect(warnings.filter((w) => w.code === 'FIELD_TRUNCATED')).toHaveLength(2);
  });

  it('keeps an address in parts only while the address is kept whole', () => {
    const raw = (street: string) => ({ id: 1, title: 'x', start: '2026-12-24', location: { name: 'Hall', address: { street, city: 'Vilnius' } } });
    const short = normalizeEvent(raw('Taikos g. 4'), undefined, CAL, '1', { ...OPTS, maxFieldLength: 40 });
    expect(short.event?.location?.addressParts).toEqual({ streetAddress: 'Taikos g. 4', addressLocality: 'Vilnius' });
    const long = normalizeEvent(raw('S'.repeat(60)), undefined, CAL, '1', { ...OPTS, maxFieldLength: 40 });
    expect(long.event?.location?.address).toBe('S'.repeat(40));
    expect(long.event?.location?.addressParts).toBeUndefined();
  });

  it('uses "(untitled)" with a warning', () => {
    const { event, warnings } = normalizeEvent({ id: 1, title: '   ', start: '2026-12-24' }, undefined, CAL, '1', OPTS);
    expect(event?.title).toBe('(untitled)');
    expect(warnings.map((w) => w.code)).toEqual(['NO_TITLE']);
  });
});

describe('all-day events', () => {
  const allDay = (fields: Record<string, unknown>) => normalizeEvent({ id: 1, title: 'x', ...fields }, undefined, CAL, '1', OPTS);

  it.each<[string, Record<string, unknown>, string, string]>([
    ['a date alone', { start: '2026-12-24' }, '2026-12-24', '2026-12-24'],
    ['date-only end is inclusive', { startDate: '2026-12-24', endDate: '2026-12-26' }, '2026-12-24', '2026-12-26'],
    ['allDay flag with dates', { allDay: true, startDate: '2026-12-24', endDate: '2026-12-26' }, '2026-12-24', '2026-12-26'],
    ['allDay flag prefers the date field over a date-time', { isAllDay: 'true', startDateTime: '2026-12-23T22:00:00Z', startDate: '2026-12-24' }, '2026-12-24', '2026-12-24'],
    ['allDay with date-times at local midnight: exclusive end', { whole_day: 1, start: '2026-12-24T00:00:00+02:00', end: '2026-12-27T00:00:00+02:00' }, '2026-12-24', '2026-12-26'],
    ['allDay with UTC midnights: exclusive end', { allDay: true, start: '2026-12-24T00:00:00Z', end: '2026-12-27T00:00:00Z' }, '2026-12-24', '2026-12-26'],
    ['allDay with local midnight as UTC instants', { allDay: true, start: '2026-12-23T22:00:00.000Z', end: '2026-12-26T22:00:00.000Z' }, '2026-12-24', '2026-12-26'],
    ['allDay with wall times and an end during the last day', { allDay: true, start: '2026-12-24T00:00', end: '2026-12-26T23:59:59' }, '2026-12-24', '2026-12-26'],
    ['a midnight end on the start day is that day', { allDay: true, start: '2026-12-24T00:00:00Z', end: '2026-12-24T00:00:00Z' }, '2026-12-24', '2026-12-24'],
    ['epoch seconds at local midnight', { allDay: true, start: 1798063200 }, '2026-12-24', '2026-12-24'],
    ['basic date format', { start: '20261224', end: '20261225' }, '2026-12-24', '2026-12-25'],
  ])('%s', (_name, fields, startDate, endDate) => {
    expect(allDay(fields).event?.when).toEqual({ kind: 'allDay', startDate, endDate });
  });

  // addDays() took years 0 to 99 as 1900 to 1999 (Date.UTC does), so such an event ended 1900 years later.
  it('regression: an all-day event before the year 100 ends in its own year', () => {
    expect(allDay({ allDay: true, start: '0050-03-01T00:00:00Z', end: '0050-03-03T00:00:00Z' }).event?.when).toEqual({ kind: 'allDay', startDate: '0050-03-01', endDate: '0050-03-02' });
    expect(allDay({ allDay: true, start: '0099-12-31T00:00:00Z', end: '0099-12-31T12:00:00Z' }).event?.when).toEqual({ kind: 'allDay', startDate: '0099-12-31', endDate: '0099-12-31' });
  });

  it('an end date before the start gives a one-day event with a warning', () => {
    const { event, warnings } = allDay({ startDate: '2026-12-24', endDate: '2026-12-20' });
    expect(event?.when).toEqual({ kind: 'allDay', startDate: '2026-12-24', endDate: '2026-12-24' });
    expect(warnings.map((w) => w.code)).toEqual(['END_BEFORE_START']);
  });

  it('a date with a time of day is not all-day unless flagged', () => {
    expect(allDay({ startDate: '2026-12-24', startTime: '10:00' }).event?.when.kind).toBe('timed');
    expect(allDay({ startDate: '2026-12-24', startTime: '10:00', allDay: true }).event?.when.kind).toBe('allDay');
  });
});

describe('end fields', () => {
  it('an unreadable end is not reported when another end field reads', () => {
    const { event, warnings } = normalizeEvent({ id: 1, title: 'x', start: '2026-12-24T10:00:00Z', end: 'TBA', endDateTime: '2026-12-24T11:00:00Z' }, undefined, CAL, '1', OPTS);
    expect(event?.when).toEqual({ kind: 'timed', start: Date.parse('2026-12-24T10:00:00Z'), end: Date.parse('2026-12-24T11:00:00Z') });
    expect(warnings).toEqual([]);
  });
});
