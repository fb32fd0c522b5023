// Events between the crawl and the calendar-level render, kept on disk instead of in memory: each
// event is appended as it arrives (its JSON, VEVENT text and feed items, each rendered once) and
// only a small EventRef stays in memory, enough to sort, select and window events and to read one
// back (100,000 events held as objects took gigabytes). The file lives in the staging folder, so a
// killed build's spool goes with it.

import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { AppendFile, readAt, scratch } from '../append-file.js';
import { listEvent, type FeedEvent, type ListEvent } from '../model.js';
import type { EventSource } from '../render/html/view.js';

/** What stays in memory of a spooled event. */
export interface EventRef {
  readonly calendarId: string;
  readonly id: string;
  /** Start and exclusive end instants, epoch ms, in the event's zone (all-day: local midnights). */
  readonly start: number;
  readonly end: number;
  /** eventStamp(event): dates a feed that has no items. */
  readonly stamp: number;
  /** pageSpan(): what calendar pages split events at "now" by (isUpcoming). */
  readonly pageStart: number;
  readonly pageEnd: number;
  /** isCancelled(event): a cancelled upcoming event is not counted on index.html. */
  readonly cancelled: boolean;
  /** No location: its page's Event structured data cannot pass Google's requirements (the build warns). */
  readonly placeless: boolean;
  /** The event's categories as the portal spells them: which category pages and feeds it is in. */
  readonly categories: readonly string[];
  /** Where its JSON, VEVENT text and feed items (none for an event ended when rendered) are, in bytes. */
  readonly at: number;
  readonly jsonBytes: number;
  readonly veventBytes: number;
  readonly itemsBytes: number;
}

/**
 * The line that starts an event's row in a spool (and the build store): its ref as a JSON array, a
 * tab and its history record; then come its JSON, VEVENT text, feed items and a newline.
 */
export function rowHead(ref: Omit<EventRef, 'at'>, record: string): string {
  const { calendarId, id, start, end, stamp, pageStart, pageEnd, cancelled, placeless, jsonBytes, veventBytes, itemsBytes, categories } = ref;
  return `S\t${JSON.stringify([calendarId, id, start, end, stamp, pageStart, pageEnd, cancelled ? 1 : 0, placeless ? 1 : 0, jsonBytes, veventBytes, itemsBytes, categories])}\t${record}\n`;
}

/** The ref and the record text a rowHead() line (without "S\t" and the newline) holds; undefined when it is not one. */
export function parseRowHead(text: string): { ref: Omit<EventRef, 'at'>; record: string } | undefined {
  const tab = text.indexOf('\t');
  const ref = tab < 0 ? undefined : parseRef(text.slice(0, tab));
  return ref && { ref, record: text.slice(tab + 1) };
}

function parseRef(text: string): Omit<EventRef, 'at'> | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(v) || v.length !== 13) return undefined;
  const categories: unknown = v.pop();
  if (!Array.isArray(categories) || !categories.every((c) => typeof c === 'string')) return undefined;
  const [calendarId, id, ...numbers] = v as unknown[];
  if (typeof calendarId !== 'string' || typeof id !== 'string') return undefined;
  if (!numbers.every((n) => typeof n === 'number' && Number.isFinite(n))) return undefined;
  const [start, end, stamp, pageStart, pageEnd, cancelled, placeless, jsonBytes, veventBytes, itemsBytes] = numbers as number[];
  if (jsonBytes! < 0 || veventBytes! < 0 || itemsBytes! < 0) return undefined;
  return {
    calendarId,
    id,
    start: start!,
    end: end!,
    stamp: stamp!,
    pageStart: pageStart!,
    pageEnd: pageEnd!,
    cancelled: cancelled === 1,
    placeless: placeless === 1,
    jsonBytes: jsonBytes!,
    veventBytes: veventBytes!,
    itemsBytes: itemsBytes!,
    categories: categories as string[],
  };
}

/** What the build works out about an event as it spools it: the ref's fields besides its place in the file. */
export type RefFacts = Omit<EventRef, 'calendarId' | 'id' | 'at' | 'jsonBytes' | 'veventBytes' | 'itemsBytes'>;

/** Orders refs by start, then calendar id, then event id (code units): the order of every file that lists events. */
export function compareRefs(a: Pick<EventRef, 'start' | 'calendarId' | 'id'>, b: Pick<EventRef, 'start' | 'calendarId' | 'id'>): number {
  return a.start - b.start || compareStrings(a.calendarId, b.calendarId) || compareStrings(a.id, b.id);
}

/** A feed's date: the newest eventStamp of its items, else `fallback` (the newest of all its events'). */
export function feedDate(items: ReadonlyArray<Pick<EventRef, 'stamp'>>, fallback: number): number {
  let newest = items.length === 0 ? fallback : 0;
  for (const ref of items) newest = Math.max(newest, ref.stamp);
  return newest;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Where the JSON of each ref is in its spool: [at, bytes] pairs, for a reader in another thread (readSpans). */
export function spans(refs: readonly EventRef[]): Float64Array {
  const pairs = new Float64Array(refs.length * 2);
  refs.forEach((ref, i) => {
    pairs[2 * i] = ref.at;
    pairs[2 * i + 1] = ref.jsonBytes;
  });
  return pairs;
}

/** Reads `length` bytes at `at` of a spool, as text. */
export type SpoolRead = (at: number, length: number) => string;

/** The events at `pairs` (spans()) of a spool, each given to `take`. */
export function readSpans<T>(read: SpoolRead, pairs: Float64Array, take: (event: FeedEvent) => T): T[] {
  const events: T[] = [];
  for (let i = 0; i < pairs.length; i += 2) events.push(take(JSON.parse(read(pairs[i]!, pairs[i + 1]!)) as FeedEvent));
  return events;
}

/** Events in a list (spans() of their refs) read from the spool when asked, a part at a time, as ListEvents. */
export function spooledList(spool: SpoolRead, list: Float64Array): EventSource {
  const count = list.length / 2;
  const read = (at: readonly number[]): ListEvent[] => {
    const pairs = new Float64Array(at.length * 2);
    at.forEach((i, k) => pairs.set(list.subarray(2 * i, 2 * i + 2), 2 * k));
    return readSpans(spool, pairs, listEvent);
  };
  return {
    length: count,
    read,
    *[Symbol.iterator]() {
      for (let from = 0; from < count; from += SPOOL_PART) yield* read(Array.from({ length: Math.min(SPOOL_PART, count - from) }, (_, k) => from + k));
    },
  };
}

/** How many events one read of the spool takes when a list is read whole, in order. */
const SPOOL_PART = 1000;

/** Where the feed items of each ref are in its spool, and its JSON: [at, jsonBytes, veventBytes, itemsBytes] each (readItems). */
export function itemSpans(refs: readonly EventRef[]): Float64Array {
  const spans = new Float64Array(refs.length * 4);
  refs.forEach((ref, i) => spans.set([ref.at, ref.jsonBytes, ref.veventBytes, ref.itemsBytes], 4 * i));
  return spans;
}

/**
 * The feed items at `spans` (itemSpans()) of a spool. An event spooled without them (it had
 * ended then, as "now" was) is read and given to `render`.
 */
export function readItems(read: SpoolRead, spans: Float64Array, render: (event: FeedEvent) => string): string[] {
  const items: string[] = [];
  for (let i = 0; i < spans.length; i += 4) {
    const [at, jsonBytes, veventBytes, itemsBytes] = [spans[i]!, spans[i + 1]!, spans[i + 2]!, spans[i + 3]!];
    items.push(itemsBytes > 0 ? read(at + jsonBytes + veventBytes, itemsBytes) : render(JSON.parse(read(at, jsonBytes)) as FeedEvent));
  }
  return items;
}

/** Where a spool's bytes are: the file a build appends to, or one a build left in the cache folder. */
interface SpoolData {
  read(at: number, length: number, into?: Buffer): Buffer;
  dispose(): void;
}

/** An append-only file of events; not safe to read from while another call is writing. */
export class EventSpool {
  private constructor(
    readonly file: string,
    private readonly data: SpoolData,
  ) {}

  /** A new spool file in folder (the staging folder), starting with `header` (the build store's). */
  static create(folder: string, header = ''): EventSpool {
    const file = path.join(folder, `.calfeed-spool-${process.pid}`);
    const data = new AppendFile(file);
    data.append(header);
    return new EventSpool(file, data);
  }

  /** A spool an earlier build kept (the build store), to read from; refs to it are the ones it made. */
  static open(file: string): EventSpool {
    return new EventSpool(file, new ReadOnlyFile(file));
  }

  /** Move the spool file to `dest` (the build store being prepared), closing it, for a later build to open(). */
  persist(dest: string): void {
    if (!(this.data instanceof AppendFile)) throw new Error('internal: persist() of a spool opened to read');
    this.data.persist(dest);
  }

  /** Append an event with its VEVENT text, feed items and history record (EventFiles.write's output). */
  add(event: FeedEvent, output: { vevent: string; items: string; record: string }, facts: RefFacts, eventJson = JSON.stringify(event)): EventRef {
    const { vevent, items, record } = output;
    const head = { calendarId: event.calendarId, id: event.id, ...facts };
    const bytes = { jsonBytes: Buffer.byteLength(eventJson, 'utf8'), veventBytes: Buffer.byteLength(vevent, 'utf8'), itemsBytes: Buffer.byteLength(items, 'utf8') };
    return this.append({ ...head, ...bytes }, record, eventJson, vevent, items);
  }

  /** Append an unchanged event's row as another spool (the last build's) holds it; returns its ref here. */
  copy(from: EventSpool, ref: EventRef): EventRef {
    const data = this.appendable();
    const row = from.row(ref);
    // The ref's bytes start where they did in its row: after its head line.
    const at = data.size + row.length - (ref.jsonBytes + ref.veventBytes + ref.itemsBytes + 1);
    data.append(row);
    return { ...ref, at };
  }

  /** A ref's whole row as spooled: its rowHead() line (ref and history record), its bytes and the newline. */
  row(ref: EventRef): Buffer {
    const end = ref.at + ref.jsonBytes + ref.veventBytes + ref.itemsBytes + 1;
    // Read back from the ref's bytes in growing windows; a head is a few hundred bytes.
    for (let window = 2048; ; window *= 4) {
      const from = Math.max(0, ref.at - window);
      const bytes = this.data.read(from, end - from);
      // The head line's own newline is the byte before the ref's bytes; the row starts after the one before it.
      const start = bytes.lastIndexOf(10, ref.at - from - 2) + 1;
      if (start > 0 || from === 0) return bytes.subarray(start);
    }
  }

  // A row: the line rowHead() makes, the event's JSON, VEVENT text and feed items, and a newline.
  private append(ref: Omit<EventRef, 'at'>, record: string, ...payload: Array<string | Buffer>): EventRef {
    const data = this.appendable();
    data.append(rowHead(ref, record));
    const at = data.size;
    for (const bytes of payload) data.append(bytes);
    data.append('\n');
    return { ...ref, at } as EventRef;
  }

  private appendable(): AppendFile {
    if (!(this.data instanceof AppendFile)) throw new Error('internal: append to a spool opened to read');
    return this.data;
  }

  /** The events of refs, in the order given. */
  events(refs: ReadonlyArray<Pick<EventRef, 'at' | 'jsonBytes'>>): FeedEvent[] {
    return refs.map((ref) => JSON.parse(this.json(ref)) as FeedEvent);
  }

  /** This spool's reader (SpoolRead), into this thread's scratch(). */
  readonly text: SpoolRead = (at, length) => this.data.read(at, length, scratch(length)).toString('utf8');

  /** The feed items spooled for a ref ('' when none were: the event had ended). */
  itemsOf(ref: EventRef): string {
    return ref.itemsBytes === 0 ? '' : this.text(ref.at + ref.jsonBytes + ref.veventBytes, ref.itemsBytes);
  }

  /** The feed items of refs (readItems()). */
  items(refs: readonly EventRef[], render: (event: FeedEvent) => string): string[] {
    return readItems(this.text, itemSpans(refs), render);
  }

  /** The event of a ref as spooled: JSON.stringify(event). */
  json(ref: Pick<EventRef, 'at' | 'jsonBytes'>): string {
    return this.text(ref.at, ref.jsonBytes);
  }

  /** A ref's JSON, then its VEVENT text, in this thread's scratch(): for bytes used at once (hashed). */
  recordView(ref: EventRef): Buffer {
    const length = ref.jsonBytes + ref.veventBytes;
    return this.data.read(ref.at, length, scratch(length));
  }

  /** The VEVENT text of a ref, in this thread's scratch(): valid until its next read. */
  vevent(ref: Pick<EventRef, 'at' | 'jsonBytes' | 'veventBytes'>): Buffer {
    return this.data.read(ref.at + ref.jsonBytes, ref.veventBytes, scratch(ref.veventBytes));
  }

  /** Close the file (idempotent); one this build appended to is deleted too, unless persisted. */
  dispose(): void {
    this.data.dispose();
  }
}

/** A file opened to read by offset, closed by dispose(). */
class ReadOnlyFile implements SpoolData {
  private fd: number | undefined;

  constructor(private readonly file: string) {
    this.fd = openSync(file, 'r');
  }

  read(at: number, length: number, into?: Buffer): Buffer {
    if (this.fd === undefined) throw new Error(`internal: ${this.file} was already closed`);
    const bytes = readAt(this.fd, at, length, into);
    if (!bytes) throw new Error(`${this.file} ended early: it is not the file its index describes`);
    return bytes;
  }

  dispose(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
