// Field detection and explicit mappings, table-driven over the shapes portals use.
import { describe, expect, it } from 'vitest';
import type { Calendar, CalendarEvent, EventLocation } from '../../src/model.js';
import { normalizeEvent, rawId, type FieldsConfig, type NormalizeOptions } from '../../src/normalize/index.js';
import { sampleCalendar } from '../fixtures/sample.js';

const OPTS: NormalizeOptions = { timeZone: 'Europe/Vilnius', locales: ['en'] };
const CAL: Calendar = sampleCalendar();

function event(entry: unknown, details?: unknown, opts: NormalizeOptions = OPTS): CalendarEvent {
  const result = normalizeEvent(entry, details, CAL, 'slug', opts);
  if (!result.event) throw new Error(`skipped: ${JSON.stringify(result.warnings)}`);
  return result.event;
}

const T10 = Date.parse('2026-12-24T08:00:00Z'); // 10:00 in Vilnius (winter, +02:00)
const T12 = Date.parse('2026-12-24T10:00:00Z');

describe('detection per dialect', () => {
  it.each<[string, Record<string, unknown>]>([
    ['camelCase (default dialect)', { eventId: 'e1', title: 'Talk', startDateTime: '2026-12-24T10:00:00+02:00', endDateTime: '2026-12-24T12:00:00+02:00', location: 'Hall A' }],
    ['snake_case, UTC (envelope dialect)', { event_id: 'e1', title: 'Talk', start_date_time: '2026-12-24T08:00:00Z', end_date_time: '2026-12-24T10:00:00Z', venue: { name: 'Hall A' } }],
    ['kebab-case', { 'event-id': 'e1', 'Title': 'Talk', 'start-date-time': '2026-12-24T08:00:00Z', 'end-date-time': '2026-12-24T10:00:00Z', 'place': 'Hall A' }],
    ['epoch seconds', { id: 'e1', name: 'Talk', startsAt: 1798099200, endsAt: 1798106400, room: 'Hall A' }],
    ['epoch milliseconds in strings', { uuid: 'e1', summary: 'Talk', start: '1798099200000', end: '1798106400000', where: 'Hall A' }],
    ['date + startTime wall times (multilingual dialect)', { eventId: 'e1', title: { en: 'Talk', lt: 'Paskaita' }, startDate: '2026-12-24', startTime: '10:00', endDate: '2026-12-24', endTime: '12:00', location: { name: 'Hall A' } }],
    ['date + startTime, end time only', { id: 'e1', subject: 'Talk', date: '2026-12-24', startTime: '10:00', endTime: '12:00', address: 'Hall A' }],
    ['dateFrom/dateTo with a space', { id: 'e1', label: 'Talk', dateFrom: '2026-12-24 10:00', dateTo: '2026-12-24 12:00:00', location: 'Hall A' }],
    ['from/until', { id: 'e1', title: 'Talk', from: '2026-12-24T10:00', until: '2026-12-24T12:00', location: 'Hall A' }],
  ])('%s', (_name, record) => {
    const e = event(record);
    expect(e.id).toBe('e1');
    expect(e.title).toBe('Talk');
    expect(e.when).toEqual({ kind: 'timed', start: T10, end: T12 });
    expect(e.location?.text).toBe('Hall A');
  });

  it('prefers eventId over calendarId and id for an event', () => {
    expect(rawId({ calendarId: 'cal', eventCalendarId: 'cal', id: 'x', eventId: 'ev' }, 'event')).toBe('ev');
    expect(rawId({ calendarId: 'cal', eventCalendarId: 'cal', id: 'x' }, 'event')).toBe('x');
    expect(rawId({ calendarId: 'cal' }, 'event')).toBeUndefined();
  });

  it('prefers eventCalendarId for a calendar and stringifies numbers', () => {
    expect(rawId({ id: 9, eventCalendarId: 42 }, 'calendar')).toBe('42');
    expect(rawId({ calendar_id: 'c-1' }, 'calendar')).toBe('c-1');
    expect(rawId({ title: 'x' }, 'calendar')).toBeUndefined();
    expect(rawId({ id: '' }, 'calendar')).toBeUndefined();
    expect(rawId('not a record', 'calendar')).toBeUndefined();
  });

  it('combines startDate and startTime, and an end past midnight lands on the next day', () => {
    const e = event({ id: 1, title: 'Night', date: '2026-12-24', startTime: '22:00', endTime: '01:00' });
    expect(e.when).toEqual({ kind: 'timed', start: Date.parse('2026-12-24T20:00:00Z'), end: Date.parse('2026-12-24T23:00:00Z') });
  });

  it('prefers a full date-time over a date field', () => {
    const e = event({ id: 1, title: 'x', startDate: '2026-12-20', startDateTime: '2026-12-24T10:00:00+02:00' });
    expect(e.when).toEqual({ kind: 'timed', start: T10 });
  });
});

describe('values', () => {
  it.each<[string, unknown, EventLocation | undefined]>([
    ['string', 'Room 204', { name: 'Room 204', text: 'Room 204' }],
    ['name + address', { name: 'Main Hall', address: 'Universiteto g. 3, Vilnius' }, { name: 'Main Hall', address: 'Universiteto g. 3, Vilnius', text: 'Main Hall, Universiteto g. 3, Vilnius' }],
    ['title + address parts', { title: 'Hall', address: { street: 'Taikos g. 4', postalCode: '93121', city: 'Neringa', country: 'LT' } }, { name: 'Hall', address: 'Taikos g. 4, 93121 Neringa, LT', addressParts: { streetAddress: 'Taikos g. 4', postalCode: '93121', addressLocality: 'Neringa', addressCountry: 'LT' }, text: 'Hall, Taikos g. 4, 93121 Neringa, LT' }],
    ['address lines and region', { name: 'Lab', address: { address1: 'Bldg 2', address2: 'Room 5', town: 'Kaunas', region: 'Kauno apskr.', countryName: 'Lithuania' } }, { name: 'Lab', address: 'Bldg 2, Room 5, Kaunas, Kauno apskr., Lithuania', addressParts: { streetAddress: 'Bldg 2, Room 5', addressLocality: 'Kaunas', addressRegion: 'Kauno apskr.', addressCountry: 'Lithuania' }, text: 'Lab, Bldg 2, Room 5, Kaunas, Kauno apskr., Lithuania' }],
    ['formatted address, no parts', { name: 'Lab', address: { formatted: 'Saulėtekio al. 9, Vilnius' } }, { name: 'Lab', address: 'Saulėtekio al. 9, Vilnius', text: 'Lab, Saulėtekio al. 9, Vilnius' }],
    ['nested venue (envelope dialect)', { venue: { name: 'Nida Station', address: { street_address: 'Taikos g. 4', city: 'Neringa' } } }, { name: 'Nida Station', address: 'Taikos g. 4, Neringa', addressParts: { streetAddress: 'Taikos g. 4', addressLocality: 'Neringa' }, text: 'Nida Station, Taikos g. 4, Neringa' }],
    ['address only', { address: 'Katedros a.' }, { address: 'Katedros a.', text: 'Katedros a.' }],
    ['multilingual name', { name: { en: 'Hall', lt: 'Salė' } }, { name: 'Hall', text: 'Hall' }],
    ['empty object', {}, undefined],
  ])('location: %s', (_name, location, expected) => {
    expect(event({ id: 1, title: 'x', start: '2026-12-24', location }).location).toEqual(expected);
  });

  it.each<[string, unknown, { name?: string; email?: string } | undefined]>([
    ['object', { name: 'Dr. Ada', email: 'ada@example.edu' }, { name: 'Dr. Ada', email: 'ada@example.edu' }],
    ['e-mail found by shape', { title: 'Office', phone: '+370', contactAddress: 'office@example.edu' }, { name: 'Office', email: 'office@example.edu' }],
    ['"Name <mail>"', 'Ada Lovelace <ada@example.edu>', { name: 'Ada Lovelace', email: 'ada@example.edu' }],
    ['bare e-mail', 'mailto:ada@example.edu', { email: 'ada@example.edu' }],
    ['name only', 'Student Jazz Club', { name: 'Student Jazz Club' }],
    ['not an e-mail', { name: 'X', email: 'not-an-email' }, { name: 'X' }],
  ])('organizer: %s', (_name, organizer, expected) => {
    expect(event({ id: 1, title: 'x', start: '2026-12-24', organiser: organizer }).organizer).toEqual(expected);
  });

  it.each<[string, unknown, string[]]>([
    ['strings', ['Lecture', ' Physics ', 'Lecture', ''], ['Lecture', 'Physics']],
    ['objects', [{ name: 'Lecture' }, { title: 'Physics' }, { label: { en: 'Open', lt: 'Atvira' } }], ['Lecture', 'Physics', 'Open']],
    ['comma-separated', 'Lecture, Physics,,', ['Lecture', 'Physics']],
    ['single object', { name: 'Lecture' }, ['Lecture']],
  ])('categories: %s', (_name, categories, expected) => {
    expect(event({ id: 1, title: 'x', start: '2026-12-24', tags: categories }).categories).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['status cancelled', { status: 'cancelled' }, 'cancelled'],
    ['status CANCELED', { status: 'CANCELED' }, 'cancelled'],
    ['schema.org status', { eventStatus: 'https://schema.org/EventCancelled' }, 'cancelled'],
    ['status tentative', { status: 'tentative' }, 'tentative'],
    ['status scheduled', { status: 'scheduled' }, 'confirmed'],
    ['cancelled: true', { cancelled: true }, 'cancelled'],
    ['canceled: "yes"', { canceled: 'yes' }, 'cancelled'],
    ['is_cancelled: 1', { is_cancelled: 1 }, 'cancelled'],
    ['isCancelled: false', { isCancelled: false, status: 'scheduled' }, 'confirmed'],
    ['the boolean wins over a status', { status: 'scheduled', isCanceled: true }, 'cancelled'],
    ['nothing', {}, 'confirmed'],
  ])('status: %s', (_name, fields, expected) => {
    expect(event({ id: 1, title: 'x', start: '2026-12-24', ...fields }).status).toBe(expected);
  });

  it('reads url, image, updated and created; keeps description HTML as given', () => {
    const e = event({
      id: 1,
      title: '  Spaced   out\ttitle ',
      start: '2026-12-24',
      permalink: 'https://portal.example.edu/e/1',
      thumbnail: { url: 'https://cdn.example.edu/1.jpg' },
      lastModified: '2026-12-01T10:00:00Z',
      published_at: 1796104800,
      body: '<p>Hi <script>x()</script></p>',
    });
    expect(e.title).toBe('Spaced out title');
    expect(e.url).toBe('https://portal.example.edu/e/1');
    expect(e.image).toBe('https://cdn.example.edu/1.jpg');
    expect(e.updated).toBe(Date.parse('2026-12-01T10:00:00Z'));
    expect(e.created).toBe(1796104800 * 1000);
    expect(e.description).toBe('<p>Hi <script>x()</script></p>');
  });

  it('drops a non-http URL with a warning', () => {
    const result = normalizeEvent({ id: 1, title: 'x', start: '2026-12-24', url: 'javascript:alert(1)', image: 'data:image/png;base64,AAAA' }, undefined, CAL, '1', OPTS);
    expect(result.event?.url).toBeUndefined();
    expect(result.event?.image).toBeUndefined();
    expect(result.warnings.filter((w) => w.code === 'BAD_URL')).toHaveLength(2);
  });
});

describe('multilingual values', () => {
  const record = { id: 1, start: '2026-12-24', title: { en: 'Talk', lt: 'Paskaita', 'de-DE': 'Vortrag' }, description: { en: '<p>Hi</p>', lt: '' } };
  it.each<[string[], string, string]>([
    [['lt', 'en'], 'Paskaita', '<p>Hi</p>'],
    [['en'], 'Talk', '<p>Hi</p>'],
    [['de'], 'Vortrag', '<p>Hi</p>'],
    [['lt-LT'], 'Paskaita', '<p>Hi</p>'],
    [['fr'], 'Talk', '<p>Hi</p>'],
  ])('locales %j', (locales, title, description) => {
    const e = event(record, undefined, { ...OPTS, locales });
    expect(e.title).toBe(title);
    expect(e.description).toBe(description); // an empty translation falls back
  });

  it('falls back to the first language when neither the locale nor English exists', () => {
    expect(event({ id: 1, start: '2026-12-24', title: { lt: 'Paskaita', pl: 'Wykład' } }, undefined, { ...OPTS, locales: ['fr'] }).title).toBe('Paskaita');
  });

  it.each<[string, Record<string, unknown>]>([
    ['titleEn / titleLt', { titleEn: 'Talk', titleLt: 'Paskaita' }],
    ['title_en / title_lt', { title_en: 'Talk', title_lt: 'Paskaita' }],
    ['title-en / title-LT', { 'title-en': 'Talk', 'title-LT': 'Paskaita' }],
    ['nameEN / nameLT', { nameEN: 'Talk', nameLT: 'Paskaita' }],
  ])('sibling fields %s', (_name, fields) => {
    expect(event({ id: 1, start: '2026-12-24', ...fields }, undefined, { ...OPTS, locales: ['lt'] }).title).toBe('Paskaita');
    expect(event({ id: 1, start: '2026-12-24', ...fields }, undefined, { ...OPTS, locales: ['en'] }).title).toBe('Talk');
  });

  it('prefers the plain field over siblings, and does not mistake descriptionHtml for a language', () => {
    expect(event({ id: 1, start: '2026-12-24', title: 'Plain', titleLt: 'Lt' }, undefined, { ...OPTS, locales: ['lt'] }).title).toBe('Plain');
    expect(event({ id: 1, start: '2026-12-24', title: 'x', descriptionHtml: '<b>html</b>' }).description).toBe('<b>html</b>');
  });

  it('does not read an object with an id key as a language map', () => {
    expect(event({ id: 1, start: '2026-12-24', title: 'x', location: { id: 'r-5' } }).location).toBeUndefined();
  });
});

describe('explicit mappings', () => {
  const fields = (event: FieldsConfig['event']): NormalizeOptions => ({ ...OPTS, fields: { event } });

  it('a dotted path wins over detection', () => {
    const record = { id: 1, title: 'Wrong', start: '2020-01-01', schedule: { begins: '2026-12-24T10:00:00+02:00' }, info: { name: 'Right' } };
    const e = event(record, undefined, fields({ start: 'schedule.begins', title: 'info.name' }));
    expect(e.title).toBe('Right');
    expect(e.when).toEqual({ kind: 'timed', start: T10 });
  });

  it('array indexes in paths', () => {
    const record = { key: 'k1', name: 'x', slots: [{ from: '2026-12-24T10:00:00+02:00', to: '2026-12-24T12:00:00+02:00' }], venues: [{ name: 'Hall A' }, { name: 'Hall B' }] };
    const e = event(record, undefined, fields({ id: 'key', start: 'slots[0].from', end: 'slots.0.to', location: 'venues[1].name' }));
    expect(e.id).toBe('k1');
    expect(e.when).toEqual({ kind: 'timed', start: T10, end: T12 });
    expect(e.location).toEqual({ name: 'Hall B', text: 'Hall B' });
  });

  it('[date, time] pairs, case-insensitive segment names', () => {
    const record = { id: 1, title: 'x', day: { on: '2026-12-24' }, hours: { open: '10:00', close: '12:00' } };
    const e = event(record, undefined, fields({ start: ['Day.On', 'hours.open'], end: ['day.on', 'hours.close'] }));
    expect(e.when).toEqual({ kind: 'timed', start: T10, end: T12 });
  });

  it('a [date, time] pair whose time is missing gives an all-day event', () => {
    const e = event({ id: 1, title: 'x', d: '2026-12-24' }, undefined, fields({ start: ['d', 't'] }));
    expect(e.when).toEqual({ kind: 'allDay', startDate: '2026-12-24', endDate: '2026-12-24' });
  });

  it('a record without the mapped path falls back to detection', () => {
    const e = event({ id: 1, title: 'x', startDate: '2026-12-24', allDay: true }, undefined, fields({ start: 'startDateTime' }));
    expect(e.when).toEqual({ kind: 'allDay', startDate: '2026-12-24', endDate: '2026-12-24' });
  });

  it('mapped id is used by rawId too', () => {
    expect(rawId({ id: 'a', ref: { code: 'b' } }, 'event', { event: { id: 'ref.code' } })).toBe('b');
    expect(rawId({ id: 'a', ref: { code: 'b' } }, 'calendar', { calendar: { id: 'ref.code' } })).toBe('b');
  });

  it('an empty mapping means "detect"', () => {
    expect(event({ id: 1, title: 'x', start: '2026-12-24' }, undefined, fields({ start: '', title: '' })).title).toBe('x');
  });
});
