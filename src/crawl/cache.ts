// HTTP build state between runs: for each mirror file, the URLs it came from with their validators
// and the sha256 of what was published; for each event, a hash of its list entry and when its
// details were last checked. The crawler trusts an entry only while the published bytes still hash
// to it, so a stale or corrupt cache costs a full crawl, never a wrong build. Kept in the build
// store (D and E rows).

import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { AppendFile } from '../append-file.js';
import { isObject } from '../normalize/record.js';
import { hexOf, PagedArray } from '../paged.js';
import { StringIndex } from '../string-index.js';

export interface PageEntry {
  /** Token-free request URL, relative to the base URL when under it (PortalClient.keyFor). */
  url: string;
  etag?: string;
  lastModified?: string;
  /** sha256 (hex) of the page body. */
  sha256: string;
}

export interface DocEntry {
  /** sha256 (hex) of the mirror file's bytes (for one page: the body itself). */
  sha256: string;
  pages: PageEntry[];
  /** What paging a list warned about: given again by a build that takes the list as published. */
  warnings?: string[];
}

export interface EventEntry {
  /** sha256 (hex) of the list entry's canonical JSON. */
  entry: string;
  /** Epoch ms when the details were last fetched or confirmed with a 304. */
  checkedAt: number;
}

/** Build state for incremental crawls: what the previous run recorded, and what this one records. */
export class CrawlCache {
  private readonly before = new Tables();
  // This run's entries: in memory, or (spillTo) appended to a file until they are saved.
  private after: Tables | EntryLog = new Tables();
  private oldest = Infinity;

  /** An empty cache (the build store restores the previous run's entries into it). */
  static empty(): CrawlCache {
    return new CrawlCache();
  }

  /** Take a previous run's entry, as lines() wrote it (kind D: a doc, E: an event); false when it is not one. */
  restore(kind: 'D' | 'E', key: string, value: unknown): boolean {
    return kind === 'D' ? addDoc(this.before, key, value) : addEvent(this.before, key, value);
  }

  /** What the previous run recorded for a mirror path. */
  previousDoc(mirrorPath: string): DocEntry | undefined {
    return this.before.doc(mirrorPath);
  }

  /** Records a mirror path for this run (only recorded entries are saved). */
  recordDoc(mirrorPath: string, entry: DocEntry): void {
    this.after.setDoc(mirrorPath, entry);
  }

  /** What the previous run recorded for an event. */
  previousEvent(calendarId: string, eventId: string): EventEntry | undefined {
    return this.before.event(calendarId, eventId);
  }

  /** Records an event for this run. */
  recordEvent(calendarId: string, eventId: string, entry: EventEntry): void {
    this.after.setEvent(calendarId, eventId, entry);
    if (entry.checkedAt < this.oldest) this.oldest = entry.checkedAt;
  }

  /** The earliest checkedAt of this run's events (Infinity: none): when some details are next due. */
  get oldestCheck(): number {
    return this.oldest;
  }

  /** From now on, keeps this run's entries in a file in `folder`, not in memory; call before recording. */
  spillTo(folder: string): void {
    if (!(this.after instanceof Tables) || !this.after.empty) throw new Error('internal: spillTo() after entries were recorded');
    this.after = new EntryLog(new AppendFile(join(folder, `.calfeed-crawl-${process.pid}`)));
  }

  /** This run's entries as build-store rows, docs first (entries not recorded this run are dropped). */
  *lines(): Generator<string> {
    for (const [key, entry] of this.after.docTexts()) yield `D\t${key}\t${entry}\n`;
    for (const [key, entry] of this.after.eventTexts()) yield `E\t${key}\t${entry}\n`;
  }

  /** Delete the file spillTo() made (idempotent); its entries cannot be saved afterwards. */
  dispose(): void {
    if (this.after instanceof EntryLog) this.after.dispose();
  }
}

// In memory, a doc or event costs its key's bytes in a StringIndex and a few typed-array bytes, not
// a tree of objects. Records whose hashes are not SHA-256 hex, or with several pages, are kept as given.
const DIGEST = 32;
const HEX = /^[0-9a-f]{64}$/;

class Tables {
  private readonly docIndex = new StringIndex();
  private readonly docHashes = new PagedArray((n) => new Uint8Array(n), DIGEST);
  // undefined: the page URL is the mirror path itself (the usual case, so it is not stored twice).
  private readonly docUrls: Array<string | undefined> = [];
  private readonly docEtags: Array<string | undefined> = [];
  private readonly docModified: Array<string | undefined> = [];
  private readonly docOdd = new Map<number, DocEntry>();
  private readonly modifiedSeen = new Map<string, string>();

  // Keyed by eventKey(calendarId, eventId), the key the saved file uses.
  private readonly eventIndex = new StringIndex();
  private readonly eventHashes = new PagedArray((n) => new Uint8Array(n), DIGEST);
  private readonly eventChecked = new PagedArray((n) => new Float64Array(n));
  private readonly eventOdd = new Map<number, string>();

  get empty(): boolean {
    return this.docIndex.size === 0 && this.eventIndex.size === 0;
  }

  /** Docs as [key JSON, entry JSON], as the saved file holds them. */
  *docTexts(): Generator<[string, string]> {
    for (let i = 0; i < this.docIndex.size; i++) {
      const key = this.docIndex.keyAt(i);
      yield [JSON.stringify(key), JSON.stringify(this.docAt(key, i))];
    }
  }

  /** Events as [key JSON, entry JSON], keyed by eventKey as the saved file holds them. */
  *eventTexts(): Generator<[string, string]> {
    for (let i = 0; i < this.eventIndex.size; i++) {
      yield [JSON.stringify(this.eventIndex.keyAt(i)), JSON.stringify(this.eventAt(i))];
    }
  }

  setDoc(key: string, entry: DocEntry): void {
    let i = this.docIndex.get(key);
    if (i < 0) {
      i = this.docIndex.add(key);
      this.docUrls.push(undefined);
      this.docEtags.push(undefined);
      this.docModified.push(undefined);
    }
    this.docOdd.delete(i);
    const page = entry.pages[0];
    // The compact columns hold a one-page document's validators; anything more is kept whole.
    if (entry.pages.length !== 1 || page === undefined || page.sha256 !== entry.sha256 || !HEX.test(entry.sha256) || entry.warnings !== undefined) {
      this.docOdd.set(i, entry);
      return;
    }
    this.docHashes.view(i).set(Buffer.from(entry.sha256, 'hex'));
    this.docUrls[i] = page.url === key ? undefined : page.url;
    this.docEtags[i] = page.etag;
    this.docModified[i] = page.lastModified === undefined ? undefined : this.internModified(page.lastModified);
  }

  doc(key: string): DocEntry | undefined {
    const i = this.docIndex.get(key);
    return i < 0 ? undefined : this.docAt(key, i);
  }

  setEvent(calendarId: string, eventId: string, entry: EventEntry): void {
    const i = this.eventIndex.add(eventKey(calendarId, eventId));
    this.eventChecked.set(i, entry.checkedAt);
    this.eventOdd.delete(i);
    if (HEX.test(entry.entry)) this.eventHashes.view(i).set(Buffer.from(entry.entry, 'hex'));
    else this.eventOdd.set(i, entry.entry);
  }

  event(calendarId: string, eventId: string): EventEntry | undefined {
    const i = this.eventIndex.get(eventKey(calendarId, eventId));
    return i < 0 ? undefined : this.eventAt(i);
  }

  private docAt(key: string, i: number): DocEntry {
    const odd = this.docOdd.get(i);
    if (odd !== undefined) return odd;
    const sha256 = hexOf(this.docHashes.view(i));
    // Keys in the order the crawler writes them, so a saved entry reads the same as before.
    const page = { url: this.docUrls[i] ?? key } as PageEntry;
    const etag = this.docEtags[i];
    const lastModified = this.docModified[i];
    if (etag !== undefined) page.etag = etag;
    if (lastModified !== undefined) page.lastModified = lastModified;
    page.sha256 = sha256;
    return { sha256, pages: [page] };
  }

  private eventAt(i: number): EventEntry {
    return { entry: this.eventOdd.get(i) ?? hexOf(this.eventHashes.view(i)), checkedAt: this.eventChecked.get(i) };
  }

  // Last-Modified values repeat across a portal's documents: keep one string per value (bounded).
  private internModified(value: string): string {
    const known = this.modifiedSeen.get(value);
    if (known !== undefined) return known;
    if (this.modifiedSeen.size < 4096) this.modifiedSeen.set(value, value);
    return value;
  }
}

// This run's entries as lines of a file: a kind letter, the key's JSON, a tab, the entry's JSON
// (JSON text holds no raw tab or newline). Of an entry recorded twice, the later line wins.
class EntryLog {
  constructor(private readonly file: AppendFile) {}

  setDoc(key: string, entry: DocEntry): void {
    this.file.append(`D${JSON.stringify(key)}\t${JSON.stringify(entry)}\n`);
  }

  setEvent(calendarId: string, eventId: string, entry: EventEntry): void {
    this.file.append(`E${JSON.stringify(eventKey(calendarId, eventId))}\t${JSON.stringify(entry)}\n`);
  }

  docTexts(): Generator<[string, string]> {
    return this.texts('D');
  }

  eventTexts(): Generator<[string, string]> {
    return this.texts('E');
  }

  dispose(): void {
    this.file.dispose();
  }

  private *texts(kind: string): Generator<[string, string]> {
    for (const line of this.file.lines()) {
      if (line[0] !== kind) continue;
      const tab = line.indexOf('\t');
      yield [line.slice(1, tab), line.slice(tab + 1)];
    }
  }
}

// One saved doc, taken only when well formed.
function addDoc(tables: Tables, key: string, value: unknown): boolean {
  if (!isObject(value) || typeof value['sha256'] !== 'string' || !Array.isArray(value['pages'])) return false;
  const pages = value['pages'].filter(
    (p): p is PageEntry =>
      isObject(p) &&
      typeof p['url'] === 'string' &&
      typeof p['sha256'] === 'string' &&
      (p['etag'] === undefined || typeof p['etag'] === 'string') &&
      (p['lastModified'] === undefined || typeof p['lastModified'] === 'string'),
  );
  if (pages.length !== value['pages'].length || pages.length === 0) return false;
  const warnings = value['warnings'];
  if (warnings !== undefined && !(Array.isArray(warnings) && warnings.every((w) => typeof w === 'string'))) return false;
  tables.setDoc(key, warnings === undefined ? { sha256: value['sha256'], pages } : { sha256: value['sha256'], pages, warnings });
  return true;
}

// One saved event under its JSON [calendarId, eventId] key, taken only when well formed.
function addEvent(tables: Tables, key: string, value: unknown): boolean {
  if (!isObject(value) || typeof value['entry'] !== 'string' || typeof value['checkedAt'] !== 'number') return false;
  let ids: unknown;
  try {
    ids = JSON.parse(key);
  } catch {
    return false;
  }
  if (!Array.isArray(ids) || ids.length !== 2 || typeof ids[0] !== 'string' || typeof ids[1] !== 'string') return false;
  tables.setEvent(ids[0], ids[1], { entry: value['entry'], checkedAt: value['checkedAt'] });
  return true;
}

/** Hex sha256 of bytes. */
export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** sha256 of a value's canonical JSON (object keys sorted), so key order does not count as a change. */
export function entryHash(value: unknown): string {
  return sha256(JSON.stringify(canonical(value)));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = canonical(value[key]);
    return out;
  }
  return value;
}

/** The key of one event in the cache and the saved file: unambiguous whatever the ids hold. */
export function eventKey(calendarId: string, eventId: string): string {
  return JSON.stringify([calendarId, eventId]);
}
