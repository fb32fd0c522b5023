// Reading and writing build state in the cache folder. Writes are atomic (temp file + rename) so a
// killed build leaves either the old state or the new one, never half of either.
//
// history.json is one JSON object, laid out one event a line and written and read a line at a
// time: at 100,000 events, one JSON.stringify of it cost more memory than the whole build.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseEntryLine, readLines } from '../read-lines.js';
import { jsonEntryLines, preparePiecesAtomic, type PreparedFile } from '../write-lines.js';
import { HISTORY_VERSION, emptyHistory, isEventRecord, parseHistory, type HistoryState } from './history.js';
import { isCalendarRecord, type CalendarRecord } from './calendars.js';
import { HistoryRecords } from './records.js';

const HISTORY_FILE = 'history.json';

/** Load event history; a missing or unreadable file gives an empty history and a note saying why. */
export async function loadHistory(cacheDir: string): Promise<{ state: HistoryState; note?: string; missing?: true }> {
  let text: string;
  try {
    const byLine = await loadLines(join(cacheDir, HISTORY_FILE));
    if (byLine) return { state: byLine };
    text = await readFile(join(cacheDir, HISTORY_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: emptyHistory(), note: 'no event history yet: every event is new', missing: true };
    return { state: emptyHistory(), note: `event history unreadable (${(error as Error).message}): starting afresh` };
  }
  let parsed: HistoryState | undefined;
  try {
    parsed = parseHistory(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  return parsed ? { state: parsed } : { state: emptyHistory(), note: 'event history corrupt or from another version: starting afresh' };
}

// The first line: the version and the calendar records, then the events a line each. A history
// written before calendars were recorded has none (its first line is the bare header).
const BARE_HEADER = `{"version":${HISTORY_VERSION},"events":{`;
const HEADER_START = `{"version":${HISTORY_VERSION},"calendars":`;
const HEADER_END = ',"events":{';
const FOOTER = '}}';

/** Store history atomically, one event a line. */
export async function saveHistory(cacheDir: string, state: HistoryState): Promise<void> {
  await (await prepareHistory(cacheDir, state.events.texts(), state.calendars)).commit();
}

/**
 * Write the next history (event records as [key JSON, record JSON], see HistoryTracker.records,
 * and the calendar records) beside history.json; it replaces it on commit(), which the build
 * calls only after publishing.
 */
export function prepareHistory(cacheDir: string, records: Iterable<[string, string]>, calendars: readonly CalendarRecord[]): Promise<PreparedFile> {
  return preparePiecesAtomic(join(cacheDir, HISTORY_FILE), historyLines(records, calendars));
}

function* historyLines(records: Iterable<[string, string]>, calendars: readonly CalendarRecord[]): Generator<string> {
  yield HEADER_START + JSON.stringify(calendars) + HEADER_END;
  yield* jsonEntryLines(records);
  yield `\n${FOOTER}\n`;
}

/** The calendar records of a header line; undefined when it is not one. */
function headerCalendars(text: string): CalendarRecord[] | undefined {
  if (text === BARE_HEADER) return [];
  if (!text.startsWith(HEADER_START) || !text.endsWith(HEADER_END)) return undefined;
  try {
    const calendars: unknown = JSON.parse(text.slice(HEADER_START.length, -HEADER_END.length));
    return Array.isArray(calendars) && calendars.every(isCalendarRecord) ? calendars : undefined;
  } catch {
    return undefined;
  }
}

/** History in saveHistory's layout, read a line at a time; undefined for any other layout. */
async function loadLines(file: string): Promise<HistoryState | undefined> {
  const events = new HistoryRecords();
  let calendars: CalendarRecord[] | undefined;
  let section: 'header' | 'events' | 'end' = 'header';
  const line = (text: string): boolean => {
    if (section === 'header') {
      section = 'events';
      calendars = headerCalendars(text);
      return calendars !== undefined;
    }
    if (section === 'end') return text === '';
    if (text === FOOTER) {
      section = 'end';
      return true;
    }
    const entry = parseEntryLine(text);
    if (!entry || !isEventRecord(entry[1])) return false;
    events.set(entry[0], entry[1]);
    return true;
  };
  // A longer unfinished line is not this layout (an older history.json is a single line).
  const { accepted, tail } = await readLines(file, line, () => 1 << 22);
  if (!accepted || (section as string) !== 'end' || tail !== '' || !calendars) return undefined;
  return { version: HISTORY_VERSION, events, calendars };
}
