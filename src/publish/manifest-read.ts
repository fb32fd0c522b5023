// Reading a manifest.json back: whether calfeed wrote it, its parsed form, and a scan an entry at a
// time for the manifests of large sites (300,000 files, 75 MB), which are never held whole.

import { readFile } from 'node:fs/promises';
import { CalfeedError } from '../errors.js';
import { readLines } from '../read-lines.js';
import type { FileKind } from './content-types.js';
import type { Manifest, ManifestFile } from './manifest.js';

/** Whether a manifest.json was written by calfeed, from its first bytes: they hold format and generator. */
export function isCalfeedHead(head: string): boolean {
  return /^\{\s*"format":\s*\d+,\s*"generator":\s*"calfeed[ "]/.test(head);
}

/** Parse manifest.json text; throws CalfeedError('BUILD') naming the problem if it is not a manifest. */
export function parseManifest(text: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CalfeedError('BUILD', `manifest.json is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  const m = value as Partial<Manifest> | null;
  const ok =
    m !== null &&
    typeof m === 'object' &&
    typeof m.format === 'number' &&
    typeof m.counts === 'object' &&
    m.counts !== null &&
    typeof m.counts.calendars === 'number' &&
    typeof m.counts.events === 'number' &&
    Array.isArray(m.calendars) &&
    Array.isArray(m.files) &&
    m.files.every(
      (f) => f !== null && typeof f === 'object' && typeof f.path === 'string' && typeof f.bytes === 'number' && typeof f.sha256 === 'string',
    );
  if (!ok) throw new CalfeedError('BUILD', 'manifest.json does not have the shape calfeed writes (format, counts, calendars, files).');
  return m as Manifest;
}

/** What scanManifest hands each file to; a fresh one is started if the scan has to begin again. */
export interface ManifestConsumer<T> {
  add(file: ManifestFile): void;
  done(): T;
}

/**
 * A manifest file as parseManifest gives it, `files` handed to the consumer an entry at a time so a
 * large one is never held whole. A layout other than manifestChunks' (hand-edited) falls back to
 * parseManifest, with a fresh consumer. Throws the read error or parseManifest's CalfeedError.
 */
export async function scanManifest<T>(file: string, start: () => ManifestConsumer<T>): Promise<ManifestScan<T>> {
  // Line by line in manifestChunks' layout; undefined as soon as the text strays from it.
  const lines = manifestLines(start());
  const { accepted, tail } = await readLines(file, lines.line, lines.maxPartial);
  const fast = accepted ? lines.end(tail) : undefined;
  if (fast !== undefined) return fast;
  const manifest = parseManifest(await readFile(file, 'utf8'));
  const consumer = start();
  for (const f of manifest.files) consumer.add(f);
  const { files: _files, ...rest } = manifest;
  return { manifest: rest, result: consumer.done() };
}

const FILES_OPEN = '  "files": [';
const ENTRY_KEYS = ['path', 'kind', 'contentType', 'bytes', 'sha256'] as const;
// A JSON string with nothing escaped: its text between the quotes is its value.
// eslint-disable-next-line no-control-regex
const PLAIN_STRING = /^"[^"\\\u0000-\u001f]*"$/;

/** What scanManifest gives: the manifest without its file list, and what the consumer made of that. */
export interface ManifestScan<T> {
  manifest: Omit<Manifest, 'files'>;
  result: T;
}

/** A manifest in manifestChunks' layout, fed a line at a time (readLines' onLine and maxPartial). */
export interface ManifestLines<T> {
  /** False as soon as the text strays from the layout. */
  line(text: string): boolean;
  maxPartial(): number;
  /** After the last line: the scan, or undefined when the text was not in the layout after all. */
  end(tail: string): ManifestScan<T> | undefined;
}

/** The state machine behind scanManifest's line-by-line reading, for a reader that has the bytes. */
export function manifestLines<T>(consumer: ManifestConsumer<T>): ManifestLines<T> {
  const head: string[] = [];
  let state = 'head' as 'head' | 'files' | 'entry' | 'closed' | 'end';
  let entry: string[] = [];
  let last = false; // the previous entry ended without a comma: it was the last one
  const interned = new Map<string, string>();
  const intern = (s: string): string => {
    const known = interned.get(s);
    if (known !== undefined) return known;
    if (interned.size < 256) interned.set(s, s);
    return s;
  };
  let consumerEmpty = true;
  const line = (text: string): boolean => {
    switch (state) {
      case 'head':
        if (text === FILES_OPEN) state = 'files';
        else head.push(text);
        return true;
      case 'files':
        if (text === '    {' && !last) {
          state = 'entry';
          entry = [];
          return true;
        }
        if (text === '  ]' && (last || consumerEmpty)) {
          state = 'closed';
          return true;
        }
        return false;
      case 'entry': {
        if (text === '    },' || text === '    }') {
          const parsed = parseEntry(entry, intern);
          if (parsed === undefined) return false;
          consumer.add(parsed);
          consumerEmpty = false;
          last = text === '    }';
          state = 'files';
          return true;
        }
        entry.push(text);
        return entry.length <= ENTRY_KEYS.length;
      }
      case 'closed':
        if (text !== '}') return false;
        state = 'end';
        return true;
      case 'end':
        return false;
    }
  };
  // No line of a file entry is longer than 64 KB; the head may be.
  const maxPartial = (): number => (state === 'head' ? Infinity : 1 << 16);
  // manifestChunks ends the file with a newline; an empty files list ("files": []) is left to JSON.parse.
  const end = (tail: string): ManifestScan<T> | undefined => (state === 'end' && tail === '' ? headOf(head, consumer) : undefined);
  return { line, maxPartial, end };
}

// The manifest's lines before its file list, read as the manifest without one.
function headOf<T>(head: readonly string[], consumer: ManifestConsumer<T>): ManifestScan<T> | undefined {
  let meta: unknown;
  try {
    meta = JSON.parse(`${head.join('\n')}\n  "files": []\n}`);
  } catch {
    return undefined;
  }
  const manifest = parseManifest(JSON.stringify(meta)) as Partial<Manifest>;
  delete manifest.files;
  return { manifest: manifest as Omit<Manifest, 'files'>, result: consumer.done() };
}

// One files[] entry in manifestChunks' layout: the five keys, one a line, in order.
function parseEntry(lines: string[], intern: (s: string) => string): ManifestFile | undefined {
  if (lines.length !== ENTRY_KEYS.length) return undefined;
  const values: unknown[] = [];
  for (let i = 0; i < ENTRY_KEYS.length; i++) {
    const key = ENTRY_KEYS[i]!;
    const text = lines[i]!;
    const prefix = `      "${key}": `;
    if (!text.startsWith(prefix)) return undefined;
    const isLast = i === ENTRY_KEYS.length - 1;
    if (text.endsWith(',') === isLast) return undefined;
    const raw = text.slice(prefix.length, isLast ? text.length : -1);
    let value: unknown;
    if (PLAIN_STRING.test(raw)) {
      value = raw.slice(1, -1);
    } else {
      try {
        value = JSON.parse(raw);
      } catch {
        return undefined;
      }
    }
    values.push(value);
  }
  const [p, kind, contentType, bytes, sha256] = values;
  if (typeof p !== 'string' || typeof kind !== 'string' || typeof contentType !== 'string' || typeof bytes !== 'number' || typeof sha256 !== 'string') {
    return undefined;
  }
  return { path: p, kind: intern(kind) as FileKind, contentType: intern(contentType), bytes, sha256 };
}
