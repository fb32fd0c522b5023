// HTTP build state between runs: for each mirror file, the URLs it was made from with their
// validators (ETag, Last-Modified) and the sha256 of what was published; for each event, a hash of
// its list entry and when its details were last checked. The cache only ever saves requests: the
// crawler trusts an entry only when the published bytes still hash to it, so a stale, foreign or
// corrupt cache costs a full crawl, never a wrong build.

import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const FILE = 'crawl.json';
const VERSION = 1;

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
}

export interface EventEntry {
  /** sha256 (hex) of the list entry's canonical JSON. */
  entry: string;
  /** Epoch ms when the details were last fetched or confirmed with a 304. */
  checkedAt: number;
}

interface CacheFile {
  version: number;
  /** Which portal the entries are for (see load()). */
  portal?: string;
  docs: Record<string, DocEntry>;
  events: Record<string, EventEntry>;
}

/** Build state for incremental crawls: read the previous run, record this one, save atomically. */
export class CrawlCache {
  /** Why the cache was not used (missing, corrupt, other version); undefined when it was. */
  readonly loadNote: string | undefined;
  private readonly before: CacheFile;
  private readonly after: CacheFile;

  private constructor(before: CacheFile, portal: string | undefined, loadNote?: string) {
    this.before = before;
    this.after = { version: VERSION, ...(portal === undefined ? {} : { portal }), docs: {}, events: {} };
    this.loadNote = loadNote;
  }

  /** An empty cache (first run, or tests). */
  static empty(note?: string, portal?: string): CrawlCache {
    return new CrawlCache({ version: VERSION, docs: {}, events: {} }, portal, note);
  }

  /**
   * Loads `crawl.json` from the cache folder; anything unusable gives an empty cache and a note.
   * `portal` names the portal this build talks to (its base URL, or e.g. "embedded demo"): a cache
   * written for another portal is ignored, since ETags and skip decisions only hold for their portal.
   */
  static async load(dir: string, portal?: string): Promise<CrawlCache> {
    const file = join(dir, FILE);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      return CrawlCache.empty(missing ? `no crawl cache at ${file} yet: full crawl` : `cannot read ${file} (${(error as Error).message}): full crawl`, portal);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return CrawlCache.empty(`${file} is corrupt (not JSON): ignoring it, full crawl`, portal);
    }
    if (!isObject(data) || data['version'] !== VERSION || !isObject(data['docs']) || !isObject(data['events'])) {
      return CrawlCache.empty(`${file} is from another calfeed version or malformed: ignoring it, full crawl`, portal);
    }
    if (portal !== undefined && data['portal'] !== portal) {
      return CrawlCache.empty(`${file} was written for another portal (${String(data['portal'] ?? 'unknown')}): ignoring it, full crawl`, portal);
    }
    return new CrawlCache({ version: VERSION, docs: validDocs(data['docs']), events: validEvents(data['events']) }, portal);
  }

  /** What the previous run recorded for a mirror path. */
  previousDoc(mirrorPath: string): DocEntry | undefined {
    return own(this.before.docs, mirrorPath);
  }

  /** Records a mirror path for this run (only recorded entries are saved). */
  recordDoc(mirrorPath: string, entry: DocEntry): void {
    this.after.docs[mirrorPath] = entry;
  }

  /** What the previous run recorded for an event. */
  previousEvent(calendarId: string, eventId: string): EventEntry | undefined {
    return own(this.before.events, eventKey(calendarId, eventId));
  }

  /** Records an event for this run. */
  recordEvent(calendarId: string, eventId: string, entry: EventEntry): void {
    this.after.events[eventKey(calendarId, eventId)] = entry;
  }

  /** Writes this run's entries (entries not recorded this run are dropped): temp file + rename. */
  async save(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    const file = join(dir, FILE);
    const temp = `${file}.${process.pid}.tmp`;
    try {
      await writeFile(temp, JSON.stringify(this.after));
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }
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

function eventKey(calendarId: string, eventId: string): string {
  return JSON.stringify([calendarId, eventId]);
}

function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

function validDocs(raw: Record<string, unknown>): Record<string, DocEntry> {
  const out: Record<string, DocEntry> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!isObject(value) || typeof value['sha256'] !== 'string' || !Array.isArray(value['pages'])) continue;
    const pages = value['pages'].filter(
      (p): p is PageEntry =>
        isObject(p) &&
        typeof p['url'] === 'string' &&
        typeof p['sha256'] === 'string' &&
        (p['etag'] === undefined || typeof p['etag'] === 'string') &&
        (p['lastModified'] === undefined || typeof p['lastModified'] === 'string'),
    );
    if (pages.length === value['pages'].length && pages.length > 0) out[key] = { sha256: value['sha256'], pages };
  }
  return out;
}

function validEvents(raw: Record<string, unknown>): Record<string, EventEntry> {
  const out: Record<string, EventEntry> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (isObject(value) && typeof value['entry'] === 'string' && typeof value['checkedAt'] === 'number') {
      out[key] = { entry: value['entry'], checkedAt: value['checkedAt'] };
    }
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
