// manifest.json: the table of contents of a published folder. It holds nothing clock-based, so an
// unchanged build renders identical bytes and the manifest itself stays unchanged on the CDN.
// Reading it back is manifest-read.ts.

import path from 'node:path';
import { paths } from '../paths.js';
import { contentTypeFor, type FileKind, kindOf } from './content-types.js';

/** Bumped when the manifest's shape changes incompatibly. */
const MANIFEST_FORMAT = 1;

export interface ManifestFile {
  path: string;
  kind: FileKind;
  contentType: string;
  bytes: number;
  sha256: string;
}

export interface ManifestCalendar {
  id: string;
  slug: string;
  title: string;
  events: number;
  /** Files under calendars/{slug}/ and event-calendar/{slug}/. */
  files: number;
}

export interface Manifest {
  format: number;
  generator: string;
  counts: { calendars: number; events: number; files: number };
  calendars: ManifestCalendar[];
  files: ManifestFile[];
}

/** Text chunks of this size (UTF-16 code units, about) make up manifestChunks. */
const MANIFEST_CHUNK = 1 << 16;

/**
 * manifest.json, JSON.stringify(manifest, null, 2) exactly: every file but itself, sorted by path,
 * and per-calendar counts, no timestamps. In chunks of about 64 K characters for
 * Staging.writeChunks, so a large manifest is never one string; the file list is taken lazily.
 */
export function* manifestChunks(
  files: ReadonlyMap<string, { bytes: number; sha256: string }>,
  calendars: ReadonlyArray<{ id: string; slug: string; title: string; events: number }>,
  meta: { generator: string },
): Generator<string> {
  const listed: string[] = [];
  for (const relPath of files.keys()) if (relPath !== paths.manifest()) listed.push(relPath);
  // Code-unit order, not localeCompare: the same on every machine and locale.
  listed.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const filesBySlug = filesPerCalendar(listed, calendars);
  const head: Manifest = {
    format: MANIFEST_FORMAT,
    generator: meta.generator,
    counts: { calendars: calendars.length, events: calendars.reduce((sum, cal) => sum + cal.events, 0), files: listed.length },
    calendars: calendars.map((cal) => ({ id: cal.id, slug: cal.slug, title: cal.title, events: cal.events, files: filesBySlug.get(cal.slug) ?? 0 })),
    files: [],
  };
  const whole = JSON.stringify(head, null, 2) + '\n';
  if (listed.length === 0) {
    yield whole;
    return;
  }
  const tail = '"files": []\n}\n';
  if (!whole.endsWith(tail)) throw new Error('internal: unexpected manifest layout');
  // JSON.stringify(..., 2) of a files array, one entry at a time. Kind and content type follow
  // from the path; their JSON is made once per pair.
  const typeLines = new Map<string, string>();
  const typeLinesOf = (relPath: string): string => {
    const kind = kindOf(relPath);
    const contentType = contentTypeFor(relPath);
    const key = `${kind}\n${contentType}`;
    let lines = typeLines.get(key);
    if (lines === undefined) {
      lines = `      "kind": ${JSON.stringify(kind)},\n      "contentType": ${JSON.stringify(contentType)},\n`;
      typeLines.set(key, lines);
    }
    return lines;
  };
  let chunk = whole.slice(0, -tail.length) + '"files": [\n';
  for (let i = 0; i < listed.length; i++) {
    const relPath = listed[i]!;
    const info = files.get(relPath)!;
    chunk +=
      (i > 0 ? ',\n' : '') +
      `    {\n      "path": ${JSON.stringify(relPath)},\n${typeLinesOf(relPath)}` +
      `      "bytes": ${JSON.stringify(info.bytes)},\n      "sha256": ${JSON.stringify(info.sha256)}\n    }`;
    if (chunk.length >= MANIFEST_CHUNK) {
      yield chunk;
      chunk = '';
    }
  }
  yield chunk + '\n  ]\n}\n';
}

/** Files per calendar slug: a calendar's files live under two folders (its pages and its mirror). */
function filesPerCalendar(relPaths: readonly string[], calendars: ReadonlyArray<{ slug: string }>): Map<string, number> {
  const slugByPrefix = new Map<string, string>();
  for (const cal of calendars) {
    slugByPrefix.set(paths.calendarDir(cal.slug), cal.slug);
    slugByPrefix.set(path.posix.dirname(paths.eventsMirror(cal.slug)) + '/', cal.slug);
  }
  const filesBySlug = new Map<string, number>();
  for (const relPath of relPaths) {
    const slug = slugByPrefix.get(firstTwoSegments(relPath));
    if (slug !== undefined) filesBySlug.set(slug, (filesBySlug.get(slug) ?? 0) + 1);
  }
  return filesBySlug;
}

function firstTwoSegments(relPath: string): string {
  const first = relPath.indexOf('/');
  const second = first < 0 ? -1 : relPath.indexOf('/', first + 1);
  return second < 0 ? '' : relPath.slice(0, second + 1);
}
