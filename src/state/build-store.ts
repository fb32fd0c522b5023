// The build store: everything a build leaves in --cache-dir for the next one, in one file,
// `build-store`, made current in one rename after the publish. A killed build leaves the last
// store or the new one, never half of either, and never state files of two builds side by side.
//
// Layout, one row a line, each section in this order (a store out of order is corrupt):
//   {"calfeedStore":1,"portal":…,"inputs":…}   header: the format, the portal, the inputs digest
//   S\t[ref]\t{record}\n<JSON><VEVENT><items>\n every live event as spooled, with its history (spool.ts)
//   D\t"key"\t{doc}   E\t"key"\t{entry}        HTTP validators and body hashes (crawl/cache.ts)
//   N\t"calendar id"\t{notes}                  warnings and unreadable events per calendar
//   H\t"key"\t{record}   K\t[calendars]         removed events' and calendar history (history.ts, calendars.ts)
//   G\t"group"\t{group}                        what each group of files was rendered from (rendered.ts)
//   R\t{"at":…,"build":…}                      the build record (last-build.ts), at offset `at`, last
// Written a row at a time and read a row at a time: at 100,000 events it is hundreds of megabytes.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { appendFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CrawlCache } from '../crawl/cache.js';
import type { Calendar } from '../model.js';
import { RefList } from '../pipeline/ref-list.js';
import { EventSpool, parseRowHead, type EventRef } from '../pipeline/spool.js';
import { ByteLines } from '../read-lines.js';
import { makeDir } from '../make-dir.js';
import { writePieces } from '../write-lines.js';
import { isCalendarRecord, type CalendarRecord } from './calendars.js';
import { emptyHistory, isEventRecord, type HistoryState } from './history.js';
import { isStrings, parseLastBuild, type LastBuild } from './last-build.js';
import { parseGroup, type RenderedGroup, type RenderedState } from './rendered.js';

export const STORE_FILE = 'build-store';
const FORMAT = 5;
const ORDER = 'SDENHKGR';
// The state files of calfeed before the build store: a build that finds them starts empty.
const LEGACY = ['crawl.json', 'history.json', 'rendered.json', 'last-build.json', 'events.spool', 'events.spool.json'];
const MAX_LINE = 1 << 26;

/** What the store was made for: a store is kept across other inputs, but its record and events then stand for nothing. */
export interface StoreHeader {
  /** The portal's base URL, or "embedded demo": HTTP validators hold only for their portal. */
  portal: string;
  /** buildInputs() of the build that made it (up-to-date.ts). */
  inputs: string;
}

/** What reading a calendar's events gave besides the events: its warnings, and the events it could not read. */
export interface CalendarNotes {
  /** Each warning with the id of the event it is about. */
  warnings: Array<[eventId: string, message: string]>;
  /** Each event it could not read, with why: the code of the warning that says so, and its message. */
  unreadable: Array<[eventId: string, code: string, message: string]>;
}

/** The last build's events, when its record vouches for them: to take unchanged events from. */
export interface SavedEvents {
  rows: StoredEvents;
  /** The calendars the last build listed. */
  calendars: Calendar[];
  /** By calendar id. */
  notes: Map<string, CalendarNotes>;
}

/** Everything in a store but its record. */
export interface StoreSections {
  crawl: CrawlCache;
  history: HistoryState;
  rendered: Map<string, RenderedGroup>;
  /** Every event's row, whatever the record says (an event with the same render fingerprint takes its items). */
  rows?: StoredEvents;
  /** With load(…, true). */
  saved?: SavedEvents;
}

/** The last build's spooled events: refs by calendar id, in the order the build spooled them. */
export class StoredEvents {
  // A calendar's positions in its RefList by event id, made when one of its events is first looked up.
  private readonly byId = new Map<string, Map<string, number>>();

  constructor(
    readonly spool: EventSpool,
    // Packed (RefList), not an object per ref: the build holds them all until its end.
    readonly events: Map<string, RefList>,
  ) {}

  /** The last build's ref of an event (a new object), if it spooled one. */
  ref(calendarId: string, eventId: string): EventRef | undefined {
    const refs = this.events.get(calendarId);
    if (!refs) return undefined;
    let positions = this.byId.get(calendarId);
    if (!positions) {
      positions = new Map();
      for (let i = 0; i < refs.length; i++) positions.set(refs.at(i).id, i);
      this.byId.set(calendarId, positions);
    }
    const i = positions.get(eventId);
    return i === undefined ? undefined : refs.at(i);
  }
}

/** The store in --cache-dir as a build finds it: header and record read, the rest on load(). */
export class BuildStore {
  private constructor(
    readonly file: string,
    /** What the store was made for; undefined when it cannot be used. */
    readonly header: StoreHeader | undefined,
    /** The record of the last build (its `inputs` the header's); undefined when there is none. */
    readonly record: LastBuild | undefined,
    /** Why the store cannot be used, when it cannot. */
    readonly note?: string,
    /** The note only says that there is no store yet. */
    readonly missing = false,
  ) {}

  /** The store's header and record; a missing, unreadable, foreign or damaged store opens empty, with a note. */
  static async open(cacheDir: string): Promise<BuildStore> {
    const file = join(cacheDir, STORE_FILE);
    const empty = (note: string, missing = false): BuildStore => new BuildStore(file, undefined, undefined, note, missing);
    // Left by an earlier calfeed, maybe one run after this store was made: neither is trusted.
    const legacy = await removeLegacy(cacheDir);
    if (legacy.length > 0) {
      await rm(file, { force: true, recursive: true });
      return empty(`found the state files of an earlier calfeed in ${cacheDir} (${legacy.join(', ')}): starting from an empty build store, and removing them`);
    }
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return empty(`no build store at ${file} yet: full build`, true);
      return empty(`cannot read ${file} (${(error as Error).message}): starting empty, full build`);
    }
    try {
      const header = parseHeader(new ByteLines(fd).line(1 << 16));
      if (header === 'foreign') return empty(`${file} is from another calfeed version: starting empty, full build`);
      const record = header && readRecord(fd, header.inputs);
      if (!header || record === undefined) return empty(`${file} is corrupt or truncated: starting empty, full build`);
      return new BuildStore(file, header, record ?? undefined);
    } catch (error) {
      return empty(`cannot read ${file} (${(error as Error).message}): starting empty, full build`);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Everything but the record, read a row at a time; `saved` only when the record vouches for --out
   * as it is (a build killed after its publish leaves --out newer). A damaged store gives a note.
   */
  load(portal: string, vouched: boolean): { sections: StoreSections; note?: string } {
    if (!this.header) return { sections: emptySections() };
    const reader = new SectionReader(vouched);
    const fd = openSync(this.file, 'r');
    let read: boolean;
    try {
      read = reader.read(new ByteLines(fd));
    } finally {
      closeSync(fd);
    }
    const sections = read ? reader.sections(this.file) : undefined;
    if (!sections) return { sections: emptySections(), note: `${this.file} is corrupt or truncated: starting empty, full build` };
    if (this.header.portal === portal) return { sections };
    sections.crawl = CrawlCache.empty();
    return { sections, note: `${this.file} was written for another portal (${this.header.portal}): not using its HTTP validators, full crawl` };
  }
}

const emptySections = (): StoreSections => ({ crawl: CrawlCache.empty(), history: emptyHistory(), rendered: new Map() });

/** Reads a store's rows into its sections; false at the first row that is not as a store writes it. */
class SectionReader {
  private readonly crawl = CrawlCache.empty();
  private readonly history = emptyHistory();
  private readonly rendered = new Map<string, RenderedGroup>();
  private readonly notes = new Map<string, CalendarNotes>();
  private readonly events = new Map<string, RefList>();

  constructor(private readonly vouched: boolean) {}

  read(lines: ByteLines): boolean {
    lines.line(1 << 16);
    for (let order = 0; ; ) {
      const line = lines.line(MAX_LINE);
      const kind = line === undefined || line[1] !== 9 ? -1 : ORDER.indexOf(String.fromCharCode(line[0]!));
      if (kind < order) return false;
      order = kind;
      if (ORDER[kind] === 'R') return lines.line(0) === undefined;
      if (!(ORDER[kind] === 'S' ? this.row(line!, lines) : this.entry(ORDER[kind]!, line!.toString('utf8', 2)))) return false;
    }
  }

  /** The sections read; undefined when the events are not those of the calendars listed. */
  sections(file: string): StoreSections | undefined {
    const { crawl, history, rendered } = this;
    const calendars = history.calendars.filter((r) => r.removedAt === undefined).map((r) => r.calendar);
    const listed = new Set(calendars.map((c) => c.id));
    if (this.vouched && [...this.events.keys()].some((id) => !listed.has(id))) return undefined;
    const rows = new StoredEvents(EventSpool.open(file), this.events);
    history.events.readFrom(rows.spool.text);
    if (!this.vouched) return { crawl, history, rendered, rows };
    return { crawl, history, rendered, rows, saved: { rows, calendars, notes: this.notes } };
  }

  // An event's row: its ref and history record, then its payload (skipped: read by offset) and a newline.
  private row(line: Buffer, lines: ByteLines): boolean {
    const parsed = parseRowHead(line.toString('utf8', 2));
    const record = parsed && parse(parsed.record);
    if (!parsed || !isEventRecord(record)) return false;
    const { ref } = parsed;
    const at = lines.offset;
    // The record stays in the row (the head line ends with it, after the ref's tab): most events are taken whole.
    const tab = line.indexOf(9, 2);
    this.history.events.setAt(JSON.stringify([ref.calendarId, ref.id]), record.rendered, at - line.length + tab, line.length - tab - 1);
    lines.skip(ref.jsonBytes + ref.veventBytes + ref.itemsBytes);
    if (lines.line(0)?.length !== 0) return false;
    let list = this.events.get(ref.calendarId);
    if (!list) this.events.set(ref.calendarId, (list = new RefList(ref.calendarId)));
    list.push({ ...ref, at });
    return true;
  }

  private entry(kind: string, text: string): boolean {
    const tab = text.indexOf('\t');
    const key = tab < 0 ? undefined : parse(text.slice(0, tab));
    const value = parse(tab < 0 ? text : text.slice(tab + 1));
    if (kind === 'K') {
      if (!Array.isArray(value) || !value.every(isCalendarRecord)) return false;
      this.history.calendars = value;
      return true;
    }
    if (typeof key !== 'string') return false;
    if (kind === 'D' || kind === 'E') return this.crawl.restore(kind, key, value);
    const group = kind === 'G' ? parseGroup(value) : undefined;
    if (kind === 'H' && isEventRecord(value)) this.history.events.set(key, value);
    else if (kind === 'N' && isNotes(value)) this.notes.set(key, value);
    else if (group) this.rendered.set(key, group);
    else return false;
    return true;
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isNotes(value: unknown): value is CalendarNotes {
  const { warnings, unreadable } = (value ?? {}) as Partial<CalendarNotes>;
  const tuples = (value: unknown, length: number): boolean => Array.isArray(value) && value.every((v) => isStrings(v) && v.length === length);
  return tuples(warnings, 2) && tuples(unreadable, 3);
}

function parseHeader(line: Buffer | undefined): StoreHeader | 'foreign' | undefined {
  const header = line && parse(line.toString('utf8'));
  if (typeof header !== 'object' || header === null) return undefined;
  const { calfeedStore, portal, inputs } = header as Record<string, unknown>;
  if (calfeedStore !== FORMAT) return 'foreign';
  return typeof portal === 'string' && typeof inputs === 'string' ? { portal, inputs } : undefined;
}

/** The store's last line, its build record: null when the store has none, undefined when the line is not one. */
function readRecord(fd: number, inputs: string): LastBuild | null | undefined {
  const size = fstatSync(fd).size;
  // From the end, in growing steps: a record holds up to a thousand warnings.
  for (let length = 1 << 16; ; length *= 4) {
    const from = Math.max(0, size - length);
    const bytes = Buffer.allocUnsafe(size - from);
    if (readSync(fd, bytes, 0, bytes.length, from) !== bytes.length || bytes.at(-1) !== 10) return undefined;
    const nl = bytes.lastIndexOf(10, bytes.length - 2);
    if (nl < 0 && from > 0 && length < MAX_LINE) continue;
    const at = from + nl + 1;
    if (bytes[nl + 1] !== 0x52 || bytes[nl + 2] !== 9) return undefined;
    const line = parse(bytes.toString('utf8', nl + 3, bytes.length - 1)) as { at?: unknown; build?: unknown } | undefined;
    if (line?.at !== at) return undefined;
    return line.build === null ? null : parseLastBuild(line.build, inputs);
  }
}

async function removeLegacy(cacheDir: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of LEGACY) {
    const file = join(cacheDir, name);
    if (await stat(file).then(() => true, () => false)) {
      found.push(name);
      await rm(file, { force: true, recursive: true });
    }
  }
  return found;
}

/** The next store, written beside the current one: commit() adds the build record and makes it current. */
export interface PreparedStore {
  commit(build: LastBuild | null): Promise<void>;
  discard(): Promise<void>;
}

/** The first line of a store made for `header`. */
export const headerLine = (header: StoreHeader): string => `${JSON.stringify({ calfeedStore: FORMAT, ...header })}\n`;

/** Write the next store but its record: the build's spool (begun with headerLine()), then `tail` (storeTail()). */
export async function prepareStore(cacheDir: string, spool: EventSpool, tail: Iterable<string>): Promise<PreparedStore> {
  await makeDir(cacheDir);
  const file = join(cacheDir, STORE_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  const discard = (): Promise<void> => rm(temp, { force: true });
  try {
    spool.persist(temp);
    await writePieces(temp, tail, 'a');
  } catch (error) {
    await discard();
    throw error;
  }
  return {
    commit: async (build) => {
      try {
        const at = (await stat(temp)).size;
        const { inputs: _inputs, ...rest } = build ?? { inputs: '' };
        await appendFile(temp, `R\t${JSON.stringify({ at, build: build ? rest : null })}\n`);
        await rename(temp, file);
      } catch (error) {
        await discard();
        throw error;
      }
    },
    discard,
  };
}

/** What a store holds after its rows: crawl records, notes, removed events' history, calendars, rendered groups. */
export function* storeTail(parts: {
  crawl?: CrawlCache;
  notes?: ReadonlyMap<string, CalendarNotes>;
  history: Iterable<readonly [string, string]>;
  calendars: readonly CalendarRecord[];
  rendered: RenderedState;
}): Generator<string> {
  if (parts.crawl) yield* parts.crawl.lines();
  for (const [id, notes] of parts.notes ?? []) yield `N\t${JSON.stringify(id)}\t${JSON.stringify(notes)}\n`;
  for (const [key, record] of parts.history) yield `H\t${key}\t${record}\n`;
  yield `K\t${JSON.stringify(parts.calendars)}\n`;
  for (const [name, group] of parts.rendered) yield `G\t${JSON.stringify(name)}\t${JSON.stringify(group)}\n`;
}
