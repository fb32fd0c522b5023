// explain(): what `calfeed inspect` prints, for each dialect shape the demo portal serves.
import { describe, expect, it } from 'vitest';
import { explain, normalizeEvent, type Explanation, type NormalizeOptions } from '../../src/normalize/index.js';
import { sampleCalendar } from '../fixtures/sample.js';

const OPTS: NormalizeOptions = { timeZone: 'Europe/Vilnius', locales: ['en'] };
const field = (x: Explanation, name: string) => x.fields.find((f) => f.field === name);

const DEFAULT_EVENTS = [
  { eventId: 1001, title: 'Open Lecture', startDateTime: '2026-02-03T17:00:00+02:00', endDateTime: '2026-02-03T18:30:00+02:00', allDay: false, location: { name: 'A1', address: 'Saulėtekio al. 9' }, status: 'scheduled', updatedAt: '2026-02-10T22:25:56Z' },
  { eventId: 1004, title: 'Festival', startDate: '2026-03-23', endDate: '2026-03-25', allDay: true, location: 'Main Hall', status: 'scheduled', updatedAt: '2026-02-28T09:04:59Z' },
  {
    eventId: 1005, eventCalendarId: 'science', title: 'PhD Defence', startDateTime: '2026-03-29T14:00:00+03:00', endDateTime: '2026-03-29T16:00:00+03:00', allDay: false,
    status: 'cancelled', updatedAt: '2026-03-01T10:00:00Z', description: '<p>Defence</p>', url: 'https://portal.example.edu/e/1005', categories: ['PhD'], capacity: 40,
  },
];

const ENVELOPE_DETAILS = [
  { data: { event_id: 1, title: 'Talk', start_date_time: '2026-02-03T15:00:00Z', end_date_time: '2026-02-03T16:30:00Z', is_all_day: false, venue: { name: 'A1', address: 'Saulėtekio al. 9' }, is_cancelled: false, updated_at: 1770762356, tags: ['Lecture'], contact: { name: 'Ada', email: 'ada@example.edu' } }, meta: { language: 'en' } },
  { data: { event_id: 2, title: 'Fair', start_date: '2026-04-22', end_date: '2026-04-23', is_all_day: true, is_cancelled: true, updated_at: 1770762356 }, meta: { language: 'en' } },
];

const MULTILINGUAL_EVENTS = [
  { eventId: 1, title: { en: 'Talk', lt: 'Paskaita' }, startDate: '2026-02-03', startTime: '17:00', endDate: '2026-02-03', endTime: '18:30', allDay: false, cancelled: false, lastModified: '2026-02-11T00:25:56+02:00' },
  { eventId: 2, title: { en: 'Talk 2', lt: 'Paskaita 2' }, startDate: '2026-02-04', startTime: '10:00', allDay: false, cancelled: false, lastModified: '2026-02-11T00:25:56+02:00' },
];

const CUSTOM_EVENTS = [
  { eventId: 1, title: 'Talk', kickoff: { at: '2026-02-03T17:00:00+02:00' }, endDateTime: '2026-02-03T18:30:00+02:00', allDay: false, status: 'scheduled' },
  { eventId: 2, title: 'Fair', kickoff: { at: '2026-04-22' }, endDate: '2026-04-23', allDay: true, status: 'scheduled' },
];

describe('explain: events', () => {
  it('default dialect: paths, samples, readings, unused fields, block', () => {
    const x = explain('event', DEFAULT_EVENTS, OPTS);
    expect(field(x, 'id')).toMatchObject({ path: 'eventId', sample: 1001 });
    expect(field(x, 'start')).toMatchObject({ path: 'startDateTime', sample: '2026-02-03T17:00:00+02:00' });
    expect(field(x, 'description')).toMatchObject({ path: 'description', note: 'found in 1 of 3 records' });
    expect(field(x, 'created')).toEqual({ field: 'created', path: null });
    expect(x.times).toEqual([
      // One row per distinct reading: both sides of the DST change, and the all-day dates.
      { field: 'start', path: 'startDateTime', reading: 'ISO 8601 with offset +02:00', sample: '2026-02-03T17:00:00+02:00' },
      { field: 'start', path: 'startDateTime', reading: 'ISO 8601 with offset +03:00', sample: '2026-03-29T14:00:00+03:00' },
      { field: 'start', path: 'startDate', reading: 'date only: an all-day event', sample: '2026-03-23' },
      { field: 'end', path: 'endDateTime', reading: 'ISO 8601 with offset +02:00', sample: '2026-02-03T18:30:00+02:00' },
      { field: 'end', path: 'endDateTime', reading: 'ISO 8601 with offset +03:00', sample: '2026-03-29T16:00:00+03:00' },
      { field: 'end', path: 'endDate', reading: 'date only: an all-day event', sample: '2026-03-25' },
      { field: 'updated', path: 'updatedAt', reading: 'ISO 8601 in UTC (Z)', sample: '2026-02-10T22:25:56Z' },
    ]);
    expect(x.unused).toEqual(['eventCalendarId', 'capacity']);
    expect(x.warnings).toEqual([]);
    expect(x.fieldsBlock.event).toMatchObject({ id: 'eventId', title: 'title', start: 'startDateTime', end: 'endDateTime', status: 'status', created: '' });
  });

  it('envelope dialect: wrapped details, snake_case, epoch seconds, venue', () => {
    const x = explain('event', ENVELOPE_DETAILS, OPTS);
    expect(field(x, 'id')?.path).toBe('event_id');
    expect(field(x, 'location')).toMatchObject({ path: 'venue', sample: { name: 'A1', address: 'Saulėtekio al. 9' } });
    expect(field(x, 'cancelled')?.path).toBe('is_cancelled');
    expect(field(x, 'allDay')?.path).toBe('is_all_day');
    expect(field(x, 'organizer')?.path).toBe('contact');
    expect(x.times.find((t) => t.field === 'start')).toMatchObject({ path: 'start_date_time', reading: 'ISO 8601 in UTC (Z)' });
    expect(x.times.find((t) => t.field === 'updated')).toMatchObject({ path: 'updated_at', reading: 'epoch seconds', sample: 1770762356 });
    expect(x.unused).toEqual([]);
  });

  it('multilingual dialect: a [date, time] start and language maps', () => {
    const x = explain('event', MULTILINGUAL_EVENTS, OPTS);
    expect(field(x, 'title')).toMatchObject({ path: 'title', sample: { en: 'Talk', lt: 'Paskaita' } });
    expect(x.times.find((t) => t.field === 'start')).toEqual({
      field: 'start',
      path: ['startDate', 'startTime'],
      reading: 'date + time of day: wall time in Europe/Vilnius',
      sample: ['2026-02-03', '17:00'],
    });
    expect(x.fieldsBlock.event?.start).toEqual(['startDate', 'startTime']);
    expect(x.fieldsBlock.event?.end).toEqual(['endDate', 'endTime']);
  });

  it('custom dialect: warns that no start was found, suggests kickoff.at, and the edited block normalizes', () => {
    const x = explain('event', CUSTOM_EVENTS, OPTS);
    expect(field(x, 'start')).toEqual({ field: 'start', path: null });
    expect(x.warnings).toHaveLength(1);
    expect(x.warnings[0]).toMatch(/^no start found in any record: set fields\.event\.start/);
    expect(x.warnings[0]).toContain('kickoff.at ("2026-02-03T17:00:00+02:00")');
    expect(x.unused).toContain('kickoff');
    expect(x.fieldsBlock.event?.start).toBe('');

    // Without the mapping nothing can be published; with the printed block edited, everything is.
    expect(normalizeEvent(CUSTOM_EVENTS[0], undefined, sampleCalendar(), '1', OPTS).event).toBeUndefined();
    const edited = structuredClone(x.fieldsBlock);
    edited.event!.start = 'kickoff.at';
    const opts = { ...OPTS, fields: edited };
    const [timed, allDay] = CUSTOM_EVENTS.map((e) => normalizeEvent(e, undefined, sampleCalendar(), String(e.eventId), opts));
    expect(timed?.event?.when).toEqual({ kind: 'timed', start: Date.parse('2026-02-03T15:00:00Z'), end: Date.parse('2026-02-03T16:30:00Z') });
    expect(allDay?.event?.when).toEqual({ kind: 'allDay', startDate: '2026-04-22', endDate: '2026-04-23' });
    expect(explain('event', CUSTOM_EVENTS, opts).warnings).toEqual([]);
  });

  it('warns about missing titles and ids that are not unique', () => {
    const x = explain('event', [{ id: 1, start: '2026-01-01' }, { id: 1, start: '2026-01-02', title: 'x' }, { id: 2, start: '2026-01-03', title: 'y' }], OPTS);
    expect(x.warnings).toEqual([
      expect.stringMatching(/^no title found in 1 of 3 records: set fields\.event\.title/),
      expect.stringMatching(/^ids not unique: "1" appear more than once/),
    ]);
  });

  it('passes on value problems and unreadable samples', () => {
    const x = explain('event', [{ id: 1, title: 'x', start: '2026-01-01', url: 'javascript:alert(1)' }, 'junk'], OPTS);
    expect(x.warnings.some((w) => w.includes('is not an absolute http(s) URL'))).toBe(true);
    expect(x.warnings.some((w) => w.startsWith('sample #2:'))).toBe(true);
  });

  it('says so when there is nothing to inspect', () => {
    expect(explain('event', [], OPTS).warnings).toEqual(['no event records to inspect']);
  });
});

describe('explain: calendars', () => {
  it('default and envelope spellings', () => {
    const a = explain('calendar', [{ eventCalendarId: 'science', title: 'Science', timeZone: 'Europe/Vilnius', extra: 1 }], OPTS);
    expect(a.fieldsBlock).toEqual({ calendar: { id: 'eventCalendarId', title: 'title', description: '', url: '', timeZone: 'timeZone' } });
    expect(a.unused).toEqual(['extra']);
    const b = explain('calendar', [{ event_calendar_id: 'science', title: 'Science', time_zone: 'Europe/Vilnius' }], OPTS);
    expect(b.fieldsBlock.calendar).toMatchObject({ id: 'event_calendar_id', timeZone: 'time_zone' });
  });

  it('multilingual siblings are reported with a note and need no mapping', () => {
    const x = explain('calendar', [{ calendarId: 's', titleEn: 'Science', titleLt: 'Mokslas' }], OPTS);
    expect(field(x, 'title')).toEqual({ field: 'title', path: 'title', sample: { en: 'Science', lt: 'Mokslas' }, note: 'language siblings: titleEn, titleLt' });
    expect(x.unused).toEqual([]);
  });

  it('warns when no id is found', () => {
    const x = explain('calendar', [{ code: 'x', title: 'Science' }], OPTS);
    expect(x.warnings).toEqual([expect.stringMatching(/^no id found in any record: set fields\.calendar\.id .*calendars without an id are skipped/)]);
  });
});
