import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, daysInMonth, utcMs } from '../src/calendar-date.js';

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
const DAY = 86_400_000;

// Any date and time of day from 0000-01-01 to 9999-12-31, as numbers and as ISO 8601 in UTC.
const moment = fc
  .record({ year: fc.integer({ min: 0, max: 9999 }), month: fc.integer({ min: 1, max: 12 }), day: fc.integer({ min: 1, max: 31 }), hour: fc.integer({ min: 0, max: 23 }), minute: fc.integer({ min: 0, max: 59 }), second: fc.integer({ min: 0, max: 59 }), ms: fc.integer({ min: 0, max: 999 }) })
  .filter((m) => m.day <= daysInMonth(m.year, m.month));
const iso = (m: { year: number; month: number; day: number }): string => `${pad(m.year, 4)}-${pad(m.month)}-${pad(m.day)}`;

describe('calendar dates', () => {
  it('utcMs is the instant ISO 8601 names, for every year from 0 to 9999', () => {
    fc.assert(
      fc.property(moment, (m) => {
        const text = `${iso(m)}T${pad(m.hour)}:${pad(m.minute)}:${pad(m.second)}.${pad(m.ms, 3)}Z`;
        expect(utcMs(m.year, m.month, m.day, m.hour, m.minute, m.second, m.ms)).toBe(Date.parse(text));
      }),
    );
  });

  it('regression: years 0 to 99 are those years, not 1900 to 1999 as Date.UTC reads them', () => {
    expect(new Date(utcMs(50, 3, 1)).toISOString()).toBe('0050-03-01T00:00:00.000Z');
    expect(addDays('0050-03-01', -1)).toBe('0050-02-28');
    expect(addDays('0099-12-31', 1)).toBe('0100-01-01');
    // Year 0 is a leap year in the proleptic Gregorian calendar; 1900 is not.
    expect(daysInMonth(0, 2)).toBe(29);
    expect(daysInMonth(1900, 2)).toBe(28);
  });

  it('addDays moves by whole calendar days and back', () => {
    fc.assert(
      fc.property(moment, fc.integer({ min: -400, max: 400 }), (m, days) => {
        const date = iso(m);
        const moved = addDays(date, days);
        fc.pre(moved >= '0000-01-01' && moved <= '9999-12-31' && !moved.startsWith('-') && !moved.startsWith('+'));
        expect(Date.parse(`${moved}T00:00:00Z`) - Date.parse(`${date}T00:00:00Z`)).toBe(days * DAY);
        expect(addDays(moved, -days)).toBe(date);
      }),
    );
  });

  it('addDays crosses month and year ends', () => {
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });

  it('addDays refuses what is not a date', () => {
    expect(() => addDays('2026-13-45', 1)).toThrow(/not a calendar date/);
  });
});
