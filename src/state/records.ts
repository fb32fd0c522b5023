// Event history records, kept compact: a record is its key in a StringIndex and its JSON text in
// one UTF-8 arena (about 300 bytes, no object for the collector to trace; an object cost 700),
// parsed only when asked for. The render fingerprint, set after a record is stored, lives beside it.
// A live event's record is in its build-store row already: only where is kept (setAt), and it is
// read back only for the events a build does not take whole from their rows.

import type { EventWhen } from '../model.js';
import { StringIndex } from '../string-index.js';

/** What history remembers of one event (see history.ts for why). */
export interface EventRecord {
  firstSeen: number;
  changedAt: number;
  sequence: number;
  /** Hash of the event's content, to notice changes. */
  hash: string;
  /** Enough to publish a cancellation after the event is gone. */
  calendarSlug: string;
  slug: string;
  title: string;
  when: EventWhen;
  removedAt?: number;
  /** What the event's page and .ics were last rendered from, and a digest of their bytes (see pipeline/event-files.ts). */
  rendered?: string;
}

/** Records by key, in insertion order; a record set again replaces the old one in place of order. */
export class HistoryRecords {
  private readonly index = new StringIndex();
  private arena = new Uint8Array(1 << 16);
  private used = 0;
  // Record id -> [start, end) of its text in the arena.
  private starts = new Float64Array(1024);
  private ends = new Float64Array(1024);
  private readonly fingerprints: Array<string | undefined> = [];
  // 1 for a record set by setAt(): starts/ends are then where its text is in `source`.
  private inSource = new Uint8Array(1024);
  private source: ((at: number, length: number) => string) | undefined;

  get size(): number {
    return this.index.size;
  }

  /** The id of a key (0 to size - 1, in insertion order), or -1. */
  idOf(key: string): number {
    return this.index.get(key);
  }

  keyAt(id: number): string {
    return this.index.keyAt(id);
  }

  set(key: string, record: EventRecord): void {
    const { rendered, ...rest } = record;
    const id = this.index.add(key);
    this.grow(id + 1);
    const text = JSON.stringify(rest);
    const bytes = Buffer.byteLength(text, 'utf8');
    if (this.used + bytes > this.arena.length) {
      const arena = new Uint8Array(Math.max(this.used + bytes, this.arena.length * 2));
      arena.set(this.arena.subarray(0, this.used));
      this.arena = arena;
    }
    this.view().write(text, this.used, 'utf8');
    this.starts[id] = this.used;
    this.used += bytes;
    this.ends[id] = this.used;
    this.inSource[id] = 0;
    this.fingerprints[id] = rendered;
  }

  /**
   * Sets a record that stays where it is: its JSON text (with its fingerprint, `rendered`, in it)
   * is the `length` bytes at `at` of what readFrom() is given, read when the record is asked for.
   */
  setAt(key: string, rendered: string | undefined, at: number, length: number): void {
    const id = this.index.add(key);
    this.grow(id + 1);
    this.starts[id] = at;
    this.ends[id] = at + length;
    this.inSource[id] = 1;
    this.fingerprints[id] = rendered;
  }

  /** Where the texts of setAt()'s records are read from (the build store, open until its records are last read). */
  readFrom(read: (at: number, length: number) => string): void {
    this.source = read;
  }

  /** Sets the render fingerprint of a stored record; false when there is none under key. */
  setRendered(key: string, fingerprint: string | undefined): boolean {
    const id = this.index.get(key);
    if (id < 0) return false;
    this.fingerprints[id] = fingerprint;
    return true;
  }

  /** The render fingerprint of a stored record, without parsing it. */
  rendered(key: string): string | undefined {
    const id = this.index.get(key);
    return id < 0 ? undefined : this.fingerprints[id];
  }

  /**
   * Each record as `[key JSON, record JSON]`, made from the stored text without parsing it (but
   * setAt()'s): the history file is written from these.
   */
  *texts(): Generator<[string, string]> {
    for (let id = 0; id < this.index.size; id++) {
      const text = this.inSource[id] ? JSON.stringify(this.parsedAt(id)) : this.textAt(id);
      const fingerprint = this.fingerprints[id];
      const json = fingerprint === undefined ? text : `${text.slice(0, -1)}${text.length > 2 ? ',' : ''}"rendered":${JSON.stringify(fingerprint)}}`;
      yield [JSON.stringify(this.index.keyAt(id)), json];
    }
  }

  /** A fresh copy of the record with this id (see idOf): changing it changes nothing here. */
  recordAt(id: number): EventRecord {
    const record = this.parsedAt(id);
    const fingerprint = this.fingerprints[id];
    if (fingerprint !== undefined) record.rendered = fingerprint;
    return record;
  }

  // The record without its fingerprint, as set() stores it.
  private parsedAt(id: number): EventRecord {
    if (!this.inSource[id]) return JSON.parse(this.textAt(id)) as EventRecord;
    if (!this.source) throw new Error('internal: a history record read before readFrom()');
    const { rendered: _rendered, ...record } = JSON.parse(this.source(this.starts[id]!, this.ends[id]! - this.starts[id]!)) as EventRecord;
    return record;
  }

  private textAt(id: number): string {
    return this.view().toString('utf8', this.starts[id]!, this.ends[id]!);
  }

  private view(): Buffer {
    return Buffer.from(this.arena.buffer, this.arena.byteOffset, this.arena.length);
  }

  private grow(count: number): void {
    if (count <= this.starts.length) return;
    const starts = new Float64Array(this.starts.length * 2);
    starts.set(this.starts);
    this.starts = starts;
    const ends = new Float64Array(this.ends.length * 2);
    ends.set(this.ends);
    this.ends = ends;
    const inSource = new Uint8Array(this.inSource.length * 2);
    inSource.set(this.inSource);
    this.inSource = inSource;
  }
}
