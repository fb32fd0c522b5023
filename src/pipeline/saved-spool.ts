// The last build's spool, kept in the cache folder: every live event as that build spooled it (its
// JSON with history fields, then its VEVENT), an index of its refs by calendar, and the calendar
// list. A rebuild in which the portal's data is unchanged and only "now" moved renders the
// calendar files again from it (see refresh in build.ts) instead of reading and normalizing every
// event's details again.
//
// Written like the other state: prepared before the publish, made current after it, and trusted
// only when last-build.json names it (its id and size), so a spool of another build is never read.

import { randomUUID } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Calendar } from '../model.js';
import { readLines } from '../read-lines.js';
import type { SpoolStamp } from '../state/last-build.js';
import { preparePiecesAtomic, type PreparedFile } from '../write-lines.js';
import { EventSpool, type EventRef } from './spool.js';

const DATA = 'events.spool';
const INDEX = 'events.spool.json';
const VERSION = 2;

/** What reading a calendar's events gave besides the events: its warnings, and the events it could not read. */
export interface CalendarNotes {
  /** Each warning with the id of the event it is about. */
  warnings: Array<[eventId: string, message: string]>;
  unreadable: string[];
}

export interface SavedSpool {
  spool: EventSpool;
  calendars: Calendar[];
  /** By calendar id. */
  notes: Map<string, CalendarNotes>;
  /** Refs by calendar id, in the order the build spooled them. */
  events: Map<string, EventRef[]>;
}

/**
 * Move the build's spool into the cache folder beside its index (as temp files): commit() makes
 * them the saved spool, discard() deletes them.
 */
export async function prepareSavedSpool(
  cacheDir: string,
  spool: EventSpool,
  calendars: readonly Calendar[],
  events: ReadonlyMap<string, Iterable<EventRef>>,
  notes: ReadonlyMap<string, CalendarNotes>,
): Promise<PreparedFile & { stamp: SpoolStamp }> {
  const temp = join(cacheDir, `${DATA}.${process.pid}.tmp`);
  const dropData = (): void => rmSync(temp, { force: true });
  spool.persist(temp);
  let index: PreparedFile;
  let stamp: SpoolStamp;
  try {
    stamp = { id: randomUUID(), bytes: statSync(temp).size };
    index = await preparePiecesAtomic(join(cacheDir, INDEX), indexLines(stamp, calendars, events, notes));
  } catch (error) {
    dropData();
    throw error;
  }
  return {
    stamp,
    commit: async () => {
      await rename(temp, join(cacheDir, DATA));
      await index.commit();
    },
    discard: async () => {
      dropData();
      await index.discard();
    },
  };
}

function* indexLines(
  stamp: SpoolStamp,
  calendars: readonly Calendar[],
  events: ReadonlyMap<string, Iterable<EventRef>>,
  notes: ReadonlyMap<string, CalendarNotes>,
): Generator<string> {
  yield JSON.stringify({ version: VERSION, ...stamp, calendars, notes: Object.fromEntries(notes) }) + '\n';
  for (const cal of calendars) {
    for (const ref of events.get(cal.id) ?? []) {
      const { calendarId, id, start, end, pageStart, pageEnd, cancelled, at, jsonBytes, veventBytes } = ref;
      yield JSON.stringify([calendarId, id, start, end, ref.stamp, pageStart, pageEnd, cancelled ? 1 : 0, at, jsonBytes, veventBytes]) + '\n';
    }
  }
}

/**
 * The saved spool `stamp` names, opened to read; undefined when it is missing, another build's,
 * or damaged in any way (the caller then builds the normal way).
 */
export async function loadSavedSpool(cacheDir: string, stamp: SpoolStamp): Promise<SavedSpool | undefined> {
  let calendars: Calendar[] | undefined;
  let notes = new Map<string, CalendarNotes>();
  let events = new Map<string, EventRef[]>();
  // The header line (the stamp and the calendars), then a ref a line; false at the first that is wrong.
  const line = (text: string): boolean => {
    if (calendars === undefined) {
      const header = parseHeader(text, stamp);
      calendars = header?.calendars;
      notes = header?.notes ?? notes;
      events = new Map((calendars ?? []).map((c) => [c.id, []]));
      return calendars !== undefined;
    }
    const ref = parseRef(text, stamp.bytes);
    const list = ref && events.get(ref.calendarId);
    if (!ref || !list) return false;
    list.push(ref);
    return true;
  };
  try {
    if (statSync(join(cacheDir, DATA)).size !== stamp.bytes) return undefined;
    // Read a line at a time: at 100,000 events the index is megabytes. No bound on a line: the
    // header holds the whole calendar list.
    const { accepted, tail } = await readLines(join(cacheDir, INDEX), line, () => Infinity);
    if (!accepted || (tail !== '' && !line(tail)) || calendars === undefined) return undefined;
  } catch {
    return undefined;
  }
  return { spool: EventSpool.open(join(cacheDir, DATA)), calendars, notes, events };
}

/** The calendars and their notes in the index's first line, when it is the header of the spool `stamp` names. */
function parseHeader(line: string, stamp: SpoolStamp): { calendars: Calendar[]; notes: Map<string, CalendarNotes> } | undefined {
  let header: { version?: unknown; id?: unknown; bytes?: unknown; calendars?: unknown; notes?: unknown };
  try {
    header = JSON.parse(line) as typeof header;
  } catch {
    return undefined;
  }
  if (header.version !== VERSION || header.id !== stamp.id || header.bytes !== stamp.bytes || !Array.isArray(header.calendars)) return undefined;
  if (typeof header.notes !== 'object' || header.notes === null) return undefined;
  const notes = new Map<string, CalendarNotes>();
  for (const [id, value] of Object.entries(header.notes)) {
    const { warnings, unreadable } = (value ?? {}) as Partial<CalendarNotes>;
    if (!Array.isArray(warnings) || !warnings.every((w) => Array.isArray(w) && w.length === 2 && isStrings(w)) || !isStrings(unreadable)) return undefined;
    notes.set(id, { warnings, unreadable });
  }
  return { calendars: header.calendars as Calendar[], notes };
}

const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');

function parseRef(line: string, size: number): EventRef | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!Array.isArray(v) || v.length !== 11) return undefined;
  const [calendarId, id, ...numbers] = v as unknown[];
  if (typeof calendarId !== 'string' || typeof id !== 'string') return undefined;
  if (!numbers.every((n) => typeof n === 'number' && Number.isFinite(n))) return undefined;
  const [start, end, stamp, pageStart, pageEnd, cancelled, at, jsonBytes, veventBytes] = numbers as number[];
  if (at! < 0 || jsonBytes! < 0 || veventBytes! < 0 || at! + jsonBytes! + veventBytes! > size) return undefined;
  return {
    calendarId,
    id,
    start: start!,
    end: end!,
    stamp: stamp!,
    pageStart: pageStart!,
    pageEnd: pageEnd!,
    cancelled: cancelled === 1,
    at: at!,
    jsonBytes: jsonBytes!,
    veventBytes: veventBytes!,
  };
}
