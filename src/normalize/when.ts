// When an event happens, from whatever time fields a record has: one date-time, a date and a
// separate time of day, or dates alone (all-day). All-day end dates in the model are INCLUSIVE.

import type { EventWhen } from '../model.js';
import { END_CANDIDATES, explicitHit, presentCandidates, START_CANDIDATES, type Hit } from './fields.js';
import type { RawRecord } from './record.js';
import { addDays } from '../calendar-date.js';
import { dateInZone, describeReading, isMidnightInZone, parseTime, wallToEpoch, type ParsedTime } from './time.js';
import type { FieldPath } from './types.js';

type Instant = Extract<ParsedTime, { kind: 'instant' }>;
type TimeOfDay = Extract<ParsedTime, { kind: 'time' }>;

/** A time field as read, for `calfeed inspect`. */
export interface TimeUse {
  field: 'start' | 'end';
  path: string | [string, string];
  reading: string;
  sample: unknown;
  keys: string[];
}

/** One end of an event after reading: an instant or a date, with how it was found. */
interface Point {
  instant?: number;
  date?: string;
  /** The wall date of the point and whether it is wall midnight; lazy, as reading a zone costs. */
  wall: () => { date?: string; midnight: boolean };
  use: TimeUse;
}

export interface WhenResult {
  when?: EventWhen;
  uses: TimeUse[];
  /** Why there is no `when` (NO_START or BAD_TIME), or a problem with the end. */
  problems: Array<{ code: string; message: string }>;
}

/** The wall date and midnight-ness of an instant, for all-day events given as date-times. */
function wallDateOf(p: Instant, zone: string): { date: string; midnight: boolean } {
  // As written when the string carries its own offset: the portal said which day it meant.
  if (p.written && p.reading !== 'utc') return { date: p.written.date, midnight: /^00:00:00(\.000)?$/.test(p.written.time) };
  // UTC midnight is how many systems store a plain date; anything else is read in the zone.
  if (p.ms % 86_400_000 === 0) return { date: new Date(p.ms).toISOString().slice(0, 10), midnight: true };
  return { date: dateInZone(p.ms, zone), midnight: isMidnightInZone(p.ms, zone) };
}

function pointOf(field: 'start' | 'end', hit: Hit, parsed: Instant | { kind: 'date'; date: string }, zone: string): Point {
  const use: TimeUse = { field, path: hit.path, reading: describeReading(parsed, zone), sample: hit.value, keys: hit.keys };
  if (parsed.kind === 'date') return { date: parsed.date, wall: () => ({ date: parsed.date, midnight: true }), use };
  let wall: { date: string; midnight: boolean } | undefined;
  return { instant: parsed.ms, wall: () => (wall ??= wallDateOf(parsed, zone)), use };
}

function combined(field: 'start' | 'end', dateHit: Hit, date: string, timeHit: Hit, time: TimeOfDay, zone: string): Point {
  const use: TimeUse = {
    field,
    path: [dateHit.path, timeHit.path],
    reading: `date + time of day: wall time in ${zone}`,
    sample: [dateHit.value, timeHit.value],
    keys: [...new Set([...dateHit.keys, ...timeHit.keys])],
  };
  const instant = wallToEpoch(date, time, zone);
  const midnight = time.hour === 0 && time.minute === 0 && time.second === 0;
  return { instant, wall: () => ({ date, midnight }), use };
}

interface Parsed {
  hit: Hit;
  parsed: ParsedTime;
}

/** The hits for one end (the explicit mapping, or every present candidate), read: the first of each kind. */
function gather(record: RawRecord, explicit: FieldPath | undefined, candidates: readonly string[], zone: string) {
  // Mapped fields win where they exist; a record without them falls back to detection (see findField).
  let hits: Hit[] = [];
  const tupleDate = Array.isArray(explicit) ? explicitHit(record, explicit[0], false) : undefined;
  if (Array.isArray(explicit)) {
    hits = [tupleDate, explicitHit(record, explicit[1], false)].filter((h): h is Hit => h !== undefined && h.value !== null && h.value !== '');
  } else if (explicit !== undefined && explicit !== '') {
    const hit = explicitHit(record, explicit, false);
    // A mapped date still picks up a detected time-of-day sibling (`date` mapped, `startTime` present).
    const times = presentCandidates(record, candidates).filter((h) => parseTime(h.value, zone)?.kind === 'time');
    if (hit && hit.value !== null && hit.value !== '') hits = [hit, ...times];
  }
  if (hits.length === 0) hits = presentCandidates(record, candidates);
  const parsed: Parsed[] = [];
  const bad: Hit[] = [];
  for (const hit of hits) {
    let p = parseTime(hit.value, zone);
    // In a [date, time] mapping the first field only gives the day, even if it is a date-time.
    if (hit === tupleDate && p?.kind === 'instant') p = { kind: 'date', date: wallDateOf(p, zone).date };
    if (p) parsed.push({ hit, parsed: p });
    else bad.push(hit);
  }
  const first = <K extends ParsedTime['kind']>(kind: K) =>
    parsed.find((p) => p.parsed.kind === kind) as { hit: Hit; parsed: Extract<ParsedTime, { kind: K }> } | undefined;
  return { instant: first('instant'), date: first('date'), time: first('time'), bad };
}

/** Reads the start: prefers a full date-time, or a date-only field when the event is all-day. */
function readStart(record: RawRecord, explicit: FieldPath | undefined, allDay: boolean | undefined, zone: string) {
  const { instant, date, time, bad } = gather(record, explicit, START_CANDIDATES, zone);
  if (date && (allDay === true || (!instant && !time))) return { point: pointOf('start', date.hit, date.parsed, zone) };
  if (instant) return { point: pointOf('start', instant.hit, instant.parsed, zone) };
  if (date && time) return { point: combined('start', date.hit, date.parsed.date, time.hit, time.parsed, zone) };
  if (bad.length > 0 || time) {
    const what = bad[0] ?? time!.hit;
    return { problem: { code: 'BAD_TIME', message: `cannot read the start time ${JSON.stringify(what.value)} in field "${what.path}"` } };
  }
  const hint = explicit !== undefined && explicit !== '' ? `the mapped start field ${JSON.stringify(explicit)} is missing` : 'no start field was detected';
  return { problem: { code: 'NO_START', message: `${hint}; set fields.event.start in calfeed.config.json (run calfeed inspect)` } };
}

function readEnd(record: RawRecord, explicit: FieldPath | undefined, start: Point, allDay: boolean, zone: string) {
  const { instant, date, time, bad } = gather(record, explicit, END_CANDIDATES, zone);
  let point: Point | undefined;
  if (date && (allDay || (!instant && !time))) point = pointOf('end', date.hit, date.parsed, zone);
  else if (instant) point = pointOf('end', instant.hit, instant.parsed, zone);
  else if (time && !allDay) {
    // A time of day alone ends on its own date field, or on the start's date.
    const startPath = Array.isArray(start.use.path) ? start.use.path[0] : start.use.path;
    const dateHit = date?.hit ?? { path: startPath, value: start.wall().date, keys: [] };
    const day = date ? date.parsed.date : start.wall().date;
    if (day !== undefined) {
      point = combined('end', dateHit, day, time.hit, time.parsed, zone);
      // 22:00-01:00 on the start's date means the end is after midnight (not when the end has its own date).
      if ((!date || date.hit.path === startPath) && start.instant !== undefined && point.instant! < start.instant) {
        point.instant = wallToEpoch(addDays(day, 1), time.parsed, zone);
      }
    }
  }
  // An unreadable end only matters when no other end field could be read.
  const problem = !point && bad[0] ? { code: 'BAD_END', message: `ignored an end time that cannot be read: ${JSON.stringify(bad[0].value)} in field "${bad[0].path}"` } : undefined;
  return { point, problem };
}

// Every format calfeed writes has four-digit years, and an all-day end is written exclusive: an event
// must fit in 0001-9999 with a day to spare at each end, or it is unreadable rather than a crash later.
const FIRST_DAY = '0001-01-02';
const LAST_DAY = '9999-12-30';
const FIRST_MS = Date.parse(`${FIRST_DAY}T00:00:00Z`);
const LAST_MS = Date.parse(`${LAST_DAY}T00:00:00Z`);
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function outOfRange(when: EventWhen): boolean {
  if (when.kind === 'allDay') {
    return !ISO_DATE.test(when.startDate) || !ISO_DATE.test(when.endDate) || when.startDate < FIRST_DAY || when.endDate > LAST_DAY;
  }
  const inRange = (ms: number): boolean => Number.isFinite(ms) && ms >= FIRST_MS && ms <= LAST_MS;
  return !inRange(when.start) || (when.end !== undefined && !inRange(when.end));
}

/** Builds the model's `when` from a record, or says why it cannot. */
export function resolveWhen(
  record: RawRecord,
  mapping: { start?: FieldPath; end?: FieldPath },
  allDayFlag: boolean | undefined,
  zone: string,
): WhenResult {
  const result = readWhen(record, mapping, allDayFlag, zone);
  if (!result.when || !outOfRange(result.when)) return result;
  const [start] = result.uses;
  return {
    uses: result.uses,
    problems: [{ code: 'BAD_TIME', message: `the time ${JSON.stringify(start?.sample)} in field "${String(start?.path)}" (or its end) is outside the years 0001 to 9999` }],
  };
}

function readWhen(
  record: RawRecord,
  mapping: { start?: FieldPath; end?: FieldPath },
  allDayFlag: boolean | undefined,
  zone: string,
): WhenResult {
  const start = readStart(record, mapping.start, allDayFlag, zone);
  if (!start.point) {
    // Still report the end, so `calfeed inspect` shows it even when the start is not found.
    const orphan = readEnd(record, mapping.end, { wall: () => ({ midnight: false }), use: { field: 'start', path: '', reading: '', sample: undefined, keys: [] } }, allDayFlag === true, zone);
    return { uses: orphan.point ? [orphan.point.use] : [], problems: [start.problem!] };
  }
  const s = start.point;
  const allDay = s.date !== undefined || allDayFlag === true;
  const end = readEnd(record, mapping.end, s, allDay, zone);
  const uses = [s.use, ...(end.point ? [end.point.use] : [])];
  const problems = end.problem ? [end.problem] : [];

  if (allDay) {
    const startDate = s.date ?? s.wall().date!;
    let endDate = startDate;
    const e = end.point;
    if (e?.date !== undefined) endDate = e.date;
    else if (e?.wall().date !== undefined) {
      // A date-time end at wall midnight after the start day is exclusive: the day before is the last day.
      const { date, midnight } = e.wall();
      endDate = midnight && date! > startDate ? addDays(date!, -1) : date!;
    }
    if (endDate < startDate) {
      problems.push({ code: 'END_BEFORE_START', message: `all-day end ${endDate} is before the start ${startDate}; using a one-day event` });
      endDate = startDate;
    }
    return { when: { kind: 'allDay', startDate, endDate }, uses, problems };
  }

  const startMs = s.instant!;
  let endMs = end.point?.instant;
  if (end.point?.date !== undefined) {
    // A timed start with a date-only end: the event runs to the end of that day.
    endMs = wallToEpoch(addDays(end.point.date, 1), { hour: 0, minute: 0, second: 0, millisecond: 0 }, zone);
  }
  if (endMs !== undefined && endMs < startMs) {
    problems.push({
      code: 'END_BEFORE_START',
      message: `end ${new Date(endMs).toISOString()} is before the start ${new Date(startMs).toISOString()}; the end is dropped`,
    });
    endMs = undefined;
  }
  return { when: endMs === undefined ? { kind: 'timed', start: startMs } : { kind: 'timed', start: startMs, end: endMs }, uses, problems };
}
