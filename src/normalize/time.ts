// Reading one raw time value. Pure: the zone for wall times is passed in, never the machine's.
// Accepted: ISO 8601 with `Z` or an offset (that instant) or without (wall time in the zone); a date
// alone (`2026-12-24`, `20261224`: all-day); a time of day alone (`10:00`, combined with a date
// field); a number or digits (epoch seconds below 1e11, the year 5138, else milliseconds); anything
// else luxon reads as ISO 8601 or RFC 2822.

import { DateTime, IANAZone } from 'luxon';
import { addDays, daysInMonth, utcMs } from '../calendar-date.js';

export type Reading = 'offset' | 'utc' | 'zone' | 'epoch-seconds' | 'epoch-milliseconds';

export type ParsedTime =
  | {
      kind: 'instant';
      ms: number;
      reading: Reading;
      /** The wall date and time as written in the string, when it was a string with a date-time. */
      written?: { date: string; time: string };
      /** The offset as written (`+02:00`), for reporting. */
      offset?: string;
    }
  | { kind: 'date'; date: string }
  | { kind: 'time'; hour: number; minute: number; second: number; millisecond: number };

const DAY_MS = 86_400_000;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const BASIC_DATE = /^(\d{4})(\d{2})(\d{2})$/;
const TIME_ONLY = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?$/;

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function validDate(y: number, m: number, d: number): boolean {
  return m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m);
}

function fraction(digits: string | undefined): number {
  // Milliseconds from the first three digits; sub-millisecond digits are dropped, not rounded.
  return digits ? Number(`${digits}00`.slice(0, 3)) : 0;
}

function zoneOf(name: string): IANAZone {
  const zone = IANAZone.create(name);
  return zone.isValid ? zone : IANAZone.create('UTC');
}

/**
 * Epoch ms of a wall time in a zone, by RFC 5545's (and Temporal's "compatible") rule: a wall time
 * in a spring gap takes the offset before the gap (03:30 becomes 04:30 +03:00 in Europe/Vilnius on
 * 2026-03-29); one that occurs twice in autumn is the earlier instant.
 */
export function wallToEpoch(
  date: string,
  time: { hour: number; minute: number; second: number; millisecond: number },
  zoneName: string,
): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const wall = utcMs(y, m, d, time.hour, time.minute, time.second, time.millisecond);
  const zone = zoneOf(zoneName);
  const before = zone.offset(wall - DAY_MS);
  const after = zone.offset(wall + DAY_MS);
  // No change of offset within a day either side (the common case): one answer, no ambiguity.
  if (before === after) return wall - before * 60_000;
  const offsets = new Set([before, zone.offset(wall), after]);
  const fits = [...offsets].map((o) => wall - o * 60_000).filter((t) => zone.offset(t) * 60_000 === wall - t);
  if (fits.length > 0) return Math.min(...fits);
  return wall - before * 60_000;
}

/** The calendar date (`YYYY-MM-DD`) of an instant in a zone. */
export function dateInZone(ms: number, zoneName: string): string {
  return DateTime.fromMillis(ms, { zone: zoneOf(zoneName) }).toISODate() ?? new Date(ms).toISOString().slice(0, 10);
}

/** True when an instant is midnight on the wall clock of a zone. */
export function isMidnightInZone(ms: number, zoneName: string): boolean {
  const local = DateTime.fromMillis(ms, { zone: zoneOf(zoneName) });
  return local.hour === 0 && local.minute === 0 && local.second === 0 && local.millisecond === 0;
}

function fromEpoch(n: number): ParsedTime | undefined {
  if (!Number.isFinite(n)) return undefined;
  const seconds = Math.abs(n) < 1e11;
  const ms = Math.round(seconds ? n * 1000 : n);
  if (Math.abs(ms) > 8.64e15) return undefined;
  return { kind: 'instant', ms, reading: seconds ? 'epoch-seconds' : 'epoch-milliseconds' };
}

function offsetMinutes(offset: string): number {
  const match = /^([+-])(\d{2}):?(\d{2})?$/.exec(offset)!;
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0);
  return match[1] === '-' ? -minutes : minutes;
}

function parseDateTime(match: RegExpExecArray, zone: string): ParsedTime | undefined {
  const y = Number(match[1]);
  const mo = Number(match[2]);
  const d = Number(match[3]);
  const h = Number(match[4]);
  const mi = Number(match[5]);
  const s = Math.min(Number(match[6] ?? 0), 59); // a leap second 60 is read as 59
  const msPart = fraction(match[7]);
  if (!validDate(y, mo, d) || h > 24 || mi > 59 || (h === 24 && (mi > 0 || s > 0 || msPart > 0))) return undefined;
  const date = `${match[1]}-${match[2]}-${match[3]}`;
  const written = { date, time: `${pad(h)}:${pad(mi)}:${pad(s)}${msPart ? `.${pad(msPart, 3)}` : ''}` };
  const offset = match[8];
  const wallUtc = utcMs(y, mo, d, h, mi, s, msPart);
  if (offset === undefined) {
    // 24:00 means the end of the day: wall midnight of the next day.
    const ms = h === 24 ? wallToEpoch(addDays(date, 1), { hour: 0, minute: 0, second: 0, millisecond: 0 }, zone) : wallToEpoch(date, { hour: h, minute: mi, second: s, millisecond: msPart }, zone);
    return { kind: 'instant', ms, reading: 'zone', written };
  }
  if (offset.toUpperCase() === 'Z') return { kind: 'instant', ms: wallUtc, reading: 'utc', written, offset: 'Z' };
  return { kind: 'instant', ms: wallUtc - offsetMinutes(offset) * 60_000, reading: 'offset', written, offset };
}

/** Reads one raw value as an instant, a date or a time of day; undefined when it is none of them. */
export function parseTime(value: unknown, zone: string): ParsedTime | undefined {
  if (typeof value === 'number') return fromEpoch(value);
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === '') return undefined;

  const basic = BASIC_DATE.exec(text);
  if (basic && validDate(Number(basic[1]), Number(basic[2]), Number(basic[3])) && Number(basic[1]) >= 1900) {
    return { kind: 'date', date: `${basic[1]}-${basic[2]}-${basic[3]}` };
  }
  if (/^-?\d+(\.\d+)?$/.test(text)) return fromEpoch(Number(text));

  const dateOnly = DATE_ONLY.exec(text);
  if (dateOnly) {
    return validDate(Number(dateOnly[1]), Number(dateOnly[2]), Number(dateOnly[3])) ? { kind: 'date', date: text } : undefined;
  }
  const timeOnly = TIME_ONLY.exec(text);
  if (timeOnly) {
    const [hour, minute, second] = [Number(timeOnly[1]), Number(timeOnly[2]), Number(timeOnly[3] ?? 0)];
    if (hour > 23 || minute > 59 || second > 60) return undefined;
    return { kind: 'time', hour, minute, second: Math.min(second, 59), millisecond: fraction(timeOnly[4]) };
  }
  const dateTime = DATE_TIME.exec(text);
  if (dateTime) return parseDateTime(dateTime, zone);

  // Less common spellings (basic ISO 8601, week dates, RFC 2822 / HTTP dates).
  const iso = DateTime.fromISO(text, { zone: zoneOf(zone), setZone: true });
  const parsed = iso.isValid ? iso : DateTime.fromRFC2822(text, { setZone: true });
  if (!parsed.isValid) return undefined;
  const hasOffset = !iso.isValid || /(Z|[+-]\d{2}(:?\d{2})?)$/i.test(text);
  return { kind: 'instant', ms: parsed.toMillis(), reading: hasOffset ? 'offset' : 'zone' };
}

/** A one-line description of how a parsed value is read, for `calfeed inspect`. */
export function describeReading(parsed: ParsedTime, zone: string): string {
  if (parsed.kind === 'date') return 'date only: an all-day event';
  if (parsed.kind === 'time') return `time of day: combined with a date field, wall time in ${zone}`;
  if (parsed.reading === 'offset') return `ISO 8601 with offset ${parsed.offset ?? ''}`.trim();
  if (parsed.reading === 'zone') return `no offset: wall time in ${zone}`;
  // 'epoch seconds', 'epoch milliseconds'
  return parsed.reading === 'utc' ? 'ISO 8601 in UTC (Z)' : parsed.reading.replace('-', ' ');
}
