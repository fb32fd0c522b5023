import { describe, expect, it } from 'vitest';
import { dateInZone, parseTime, wallToEpoch } from '../../src/normalize/time.js';

const VILNIUS = 'Europe/Vilnius';
const utc = (iso: string): number => Date.parse(iso);

describe('parseTime: instants', () => {
  it.each([
    ['Z', '2026-12-24T10:00:00Z', '2026-12-24T10:00:00.000Z', 'utc'],
    ['lowercase z and fraction', '2026-12-24t10:00:00.250z', '2026-12-24T10:00:00.250Z', 'utc'],
    ['one fraction digit', '2026-12-24T10:00:00.5Z', '2026-12-24T10:00:00.500Z', 'utc'],
    ['microseconds are dropped', '2026-12-24T10:00:00.123456+00:00', '2026-12-24T10:00:00.123Z', 'offset'],
    ['+02:00', '2026-12-24T10:00:00+02:00', '2026-12-24T08:00:00.000Z', 'offset'],
    ['-05:00 without seconds', '2026-12-24T10:00-05:00', '2026-12-24T15:00:00.000Z', 'offset'],
    ['+0530 without colon', '2026-12-24T10:00:00+0530', '2026-12-24T04:30:00.000Z', 'offset'],
    ['offset on a Vilnius summer date', '2026-07-01T10:00:00+03:00', '2026-07-01T07:00:00.000Z', 'offset'],
  ])('%s', (_name, input, expected, reading) => {
    const parsed = parseTime(input, VILNIUS);
    expect(parsed).toMatchObject({ kind: 'instant', reading });
    expect(new Date((parsed as { ms: number }).ms).toISOString()).toBe(expected);
  });

  it.each([
    ['winter, before the spring change', '2026-03-28T10:00:00', '2026-03-28T08:00:00.000Z'],
    ['summer, after the spring change', '2026-03-30T10:00:00', '2026-03-30T07:00:00.000Z'],
    ['just before the gap', '2026-03-29T02:59:00', '2026-03-29T00:59:00.000Z'],
    ['in the spring gap: shifted forward by an hour (03:30 -> 04:30 +03:00)', '2026-03-29T03:30:00', '2026-03-29T01:30:00.000Z'],
    ['just after the gap', '2026-03-29T04:00:00', '2026-03-29T01:00:00.000Z'],
    ['summer, before the autumn change', '2026-10-24T10:00:00', '2026-10-24T07:00:00.000Z'],
    ['ambiguous autumn hour: the earlier instant (+03:00)', '2026-10-25T03:30:00', '2026-10-25T00:30:00.000Z'],
    ['after the ambiguous hour', '2026-10-25T04:30:00', '2026-10-25T02:30:00.000Z'],
    ['winter, after the autumn change', '2026-10-26T10:00:00', '2026-10-26T08:00:00.000Z'],
    ['space instead of T, no seconds', '2026-10-26 10:00', '2026-10-26T08:00:00.000Z'],
    ['24:00 is midnight of the next day', '2026-10-26T24:00:00', '2026-10-26T22:00:00.000Z'],
  ])('no offset is wall time in the zone: %s', (_name, input, expected) => {
    const parsed = parseTime(input, VILNIUS);
    expect(parsed).toMatchObject({ kind: 'instant', reading: 'zone' });
    expect(new Date((parsed as { ms: number }).ms).toISOString()).toBe(expected);
  });

  it('reads the same wall time differently in another zone', () => {
    const ny = parseTime('2026-03-28T10:00:00', 'America/New_York') as { ms: number };
    expect(new Date(ny.ms).toISOString()).toBe('2026-03-28T14:00:00.000Z');
  });

  it.each([
    ['epoch seconds', 1798106400, '2026-12-24T10:00:00.000Z', 'epoch-seconds'],
    ['epoch milliseconds', 1798106400000, '2026-12-24T10:00:00.000Z', 'epoch-milliseconds'],
    ['numeric string of seconds', '1798106400', '2026-12-24T10:00:00.000Z', 'epoch-seconds'],
    ['numeric string of milliseconds', '1798106400000', '2026-12-24T10:00:00.000Z', 'epoch-milliseconds'],
    ['fractional seconds', 1798106400.5, '2026-12-24T10:00:00.500Z', 'epoch-seconds'],
  ])('%s', (_name, input, expected, reading) => {
    const parsed = parseTime(input, VILNIUS);
    expect(parsed).toMatchObject({ kind: 'instant', reading });
    expect(new Date((parsed as { ms: number }).ms).toISOString()).toBe(expected);
  });

  it('reads RFC 2822 dates', () => {
    const parsed = parseTime('Thu, 24 Dec 2026 10:00:00 GMT', VILNIUS) as { ms: number };
    expect(parsed.ms).toBe(utc('2026-12-24T10:00:00Z'));
  });
});

describe('parseTime: dates, times and rejects', () => {
  it.each([
    ['2026-12-24', '2026-12-24'],
    ['20261224', '2026-12-24'],
    [' 2026-02-28 ', '2026-02-28'],
  ])('date only %j is a date', (input, date) => {
    expect(parseTime(input, VILNIUS)).toEqual({ kind: 'date', date });
  });

  it.each([
    ['10:00', 10, 0, 0],
    ['9:05', 9, 5, 0],
    ['23:59:30', 23, 59, 30],
  ])('time of day %j', (input, hour, minute, second) => {
    expect(parseTime(input, VILNIUS)).toEqual({ kind: 'time', hour, minute, second, millisecond: 0 });
  });

  it.each(['', '   ', 'tomorrow', '2026-02-30', '2026-13-01', '2026-12-24T25:00', '25:00', 'TBA', null, undefined, true, {}, [], NaN, Infinity])(
    'rejects %j',
    (input) => {
      expect(parseTime(input, VILNIUS)).toBeUndefined();
    },
  );
});

describe('zone helpers', () => {
  it('wallToEpoch handles both DST changes and dateInZone inverts it', () => {
    const t = { hour: 12, minute: 0, second: 0, millisecond: 0 };
    for (const date of ['2026-03-28', '2026-03-29', '2026-03-30', '2026-10-24', '2026-10-25', '2026-10-26']) {
      expect(dateInZone(wallToEpoch(date, t, VILNIUS), VILNIUS)).toBe(date);
    }
    expect(wallToEpoch('2026-03-29', t, VILNIUS)).toBe(utc('2026-03-29T09:00:00Z'));
    expect(wallToEpoch('2026-10-25', t, VILNIUS)).toBe(utc('2026-10-25T10:00:00Z'));
  });

  it('an invalid zone falls back to UTC rather than throwing', () => {
    expect(wallToEpoch('2026-01-01', { hour: 0, minute: 0, second: 0, millisecond: 0 }, 'Not/AZone')).toBe(utc('2026-01-01T00:00:00Z'));
  });

  it('regression: an instant before the year 100 is in that year, not 1900 years later', () => {
    expect(parseTime('0050-03-01T10:00:00Z', VILNIUS)).toMatchObject({ kind: 'instant', ms: utc('0050-03-01T10:00:00Z') });
    expect(parseTime('0050-03-01T10:00:00', 'UTC')).toMatchObject({ kind: 'instant', ms: utc('0050-03-01T10:00:00Z') });
    expect(parseTime('0000-02-29', VILNIUS)).toEqual({ kind: 'date', date: '0000-02-29' });
  });
});
