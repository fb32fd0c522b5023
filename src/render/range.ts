// Intl's formatRange without its cost on every call (ICU re-applies interval patterns each time).
// A range within one day is its date's fields set into a frame of the two times of day and the
// pattern's literals: "Thursday, September 24, 2026, 3:00 – 5:00 PM" is the 24th's fields in the
// frame of "3:00 – 5:00 PM". Frames are remembered per pair of times, date fields per day, and ICU
// is asked only for ones not seen yet. Every ICU answer is checked against what the parts would
// have made; if a locale's patterns do not split this way, every range goes to ICU.

import type { RenderContext } from './context.js';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** Part types that depend on the date alone; every other part depends on the times or is literal. */
const DATE_PARTS = new Set(['weekday', 'era', 'year', 'month', 'day', 'relatedYear', 'yearName']);
/** Part types a frame may hold (anything else, and the range goes to ICU). */
const FRAME_PARTS = new Set(['literal', 'hour', 'minute', 'dayPeriod']);

/** A range's text around its date fields: text[0] + date[0] + text[1] + ... + text[n]. */
interface Frame {
  text: string[];
  /** The date part types, in order, that go between the texts. */
  types: string[];
}

/** A day's date fields, as one frame's parts showed them. */
interface DateFields {
  types: string[];
  values: string[];
}

const MAX_FRAMES = 10_000;
const MAX_DAYS = 20_000;

/**
 * formatRange for a formatter whose output shows no zone, given wall times placed in UTC (epoch ms
 * of the same wall clock reading in UTC, from zone.ts wallMs), the formatter set to UTC.
 */
export class WallRangeFormatter {
  /** Frames by start and end time of day (ms), as start * DAY_MS + end. */
  private readonly frames = new Map<number, Frame>();
  /** Date fields by UTC day number. */
  private readonly days = new Map<number, DateFields>();
  private composes = true;

  constructor(private readonly formatter: Intl.DateTimeFormat) {}

  /** Exactly formatter.formatRange(from, to). */
  formatRange(from: number, to: number): string {
    const day = Math.floor(from / DAY_MS);
    // Within one day and at least a minute apart: ranges in the same minute read as one instant,
    // and ICU decides that case by its own rules.
    if (!this.composes || !(to > from) || Math.floor(to / DAY_MS) !== day || Math.floor(from / MINUTE_MS) === Math.floor(to / MINUTE_MS)) {
      return this.formatter.formatRange(from, to);
    }
    const key = (from - day * DAY_MS) * DAY_MS + (to - day * DAY_MS);
    const frame = this.frames.get(key);
    const fields = this.days.get(day);
    if (frame && fields && sameTypes(frame.types, fields.types)) return compose(frame, fields.values);

    const parts = this.formatter.formatRangeToParts(from, to);
    let actual = '';
    for (const part of parts) actual += part.value;
    const learned = split(parts);
    if (!learned) {
      this.composes = false;
      return actual;
    }
    const useFrame = frame ?? learned.frame;
    const useFields = fields ?? learned.fields;
    // What the remembered parts say must be what ICU says, else this formatter does not compose.
    if (!sameTypes(useFrame.types, useFields.types) || compose(useFrame, useFields.values) !== actual) {
      this.composes = false;
      return actual;
    }
    if (!frame) {
      if (this.frames.size >= MAX_FRAMES) this.frames.clear();
      this.frames.set(key, learned.frame);
    }
    if (!fields) {
      if (this.days.size >= MAX_DAYS) this.days.clear();
      this.days.set(day, learned.fields);
    }
    return actual;
  }
}

/** The one WallRangeFormatter of an Intl formatter (set to UTC, showing no zone), so it learns once. */
export function wallRangeFormatter(ctx: RenderContext, formatter: Intl.DateTimeFormat): WallRangeFormatter {
  let range = ctx.wallRanges.get(formatter);
  if (!range) {
    range = new WallRangeFormatter(formatter);
    ctx.wallRanges.set(formatter, range);
  }
  return range;
}

/** A range's parts as a frame and date fields; undefined for parts of a kind this does not handle. */
function split(parts: Intl.DateTimeRangeFormatPart[]): { frame: Frame; fields: DateFields } | undefined {
  const text: string[] = [];
  const types: string[] = [];
  const values: string[] = [];
  let run = '';
  for (const part of parts) {
    if (DATE_PARTS.has(part.type)) {
      text.push(run);
      run = '';
      types.push(part.type);
      values.push(part.value);
    } else if (FRAME_PARTS.has(part.type)) {
      run += part.value;
    } else {
      return undefined;
    }
  }
  text.push(run);
  return { frame: { text, types }, fields: { types, values } };
}

function sameTypes(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function compose(frame: Frame, values: string[]): string {
  let out = frame.text[0]!;
  for (let i = 0; i < values.length; i++) out += values[i]! + frame.text[i + 1]!;
  return out;
}
