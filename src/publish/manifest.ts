// manifest.json: the table of contents of a published folder. It holds nothing clock-based, so an
// unchanged build renders identical bytes and the manifest itself stays unchanged on the CDN.
// The shrink guard and verify read it back.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CalfeedError } from '../errors.js';
import { paths } from '../paths.js';
import { contentTypeFor, type FileKind, kindOf } from './content-types.js';

/** Bumped when the manifest's shape changes incompatibly. */
export const MANIFEST_FORMAT = 1;

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

/** Render manifest.json: every file but itself (sorted by path) and per-calendar counts; no timestamps. */
export function renderManifest(
  files: ReadonlyMap<string, { bytes: number; sha256: string }>,
  calendars: ReadonlyArray<{ id: string; slug: string; title: string; events: number }>,
  meta: { generator: string },
): string {
  const entries: ManifestFile[] = [];
  for (const [relPath, info] of files) {
    if (relPath === paths.manifest()) continue;
    entries.push({ path: relPath, kind: kindOf(relPath), contentType: contentTypeFor(relPath), bytes: info.bytes, sha256: info.sha256 });
  }
  // Code-unit order, not localeCompare: the same on every machine and locale.
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  // A calendar's files live under two folders; map each folder prefix to the calendar's slug.
  const slugByPrefix = new Map<string, string>();
  for (const cal of calendars) {
    slugByPrefix.set(paths.calendarDir(cal.slug), cal.slug);
    slugByPrefix.set(path.posix.dirname(paths.eventsMirror(cal.slug)) + '/', cal.slug);
  }
  const filesBySlug = new Map<string, number>();
  for (const entry of entries) {
    const slug = slugByPrefix.get(firstTwoSegments(entry.path));
    if (slug !== undefined) filesBySlug.set(slug, (filesBySlug.get(slug) ?? 0) + 1);
  }

  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    generator: meta.generator,
    counts: {
      calendars: calendars.length,
      events: calendars.reduce((sum, cal) => sum + cal.events, 0),
      files: entries.length,
    },
    calendars: calendars.map((cal) => ({
      id: cal.id,
      slug: cal.slug,
      title: cal.title,
      events: cal.events,
      files: filesBySlug.get(cal.slug) ?? 0,
    })),
    files: entries,
  };
  return JSON.stringify(manifest, null, 2) + '\n';
}

function firstTwoSegments(relPath: string): string {
  const first = relPath.indexOf('/');
  const second = first < 0 ? -1 : relPath.indexOf('/', first + 1);
  return second < 0 ? '' : relPath.slice(0, second + 1);
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

/** The published manifest of outDir; undefined if missing or unreadable. */
export async function readManifest(outDir: string): Promise<Manifest | undefined> {
  try {
    return parseManifest(await readFile(path.join(path.resolve(outDir), paths.manifest()), 'utf8'));
  } catch {
    return undefined;
  }
}

/** Shrink guard: a reason to refuse publishing when the new build has less than half the calendars or events of the last one. */
export function shrinkReason(previous: Manifest | undefined, next: { calendars: number; events: number }): string | undefined {
  if (previous === undefined) return undefined;
  const checks: Array<[string, number, number]> = [
    ['calendars', previous.counts.calendars, next.calendars],
    ['events', previous.counts.events, next.events],
  ];
  for (const [what, before, now] of checks) {
    if (before > 0 && now * 2 < before) {
      return (
        `The new build has ${now} ${what}, less than half of the ${before} published last time. ` +
        'The portal may have returned an incomplete answer, so the last good output was kept. ' +
        'If the drop is real, run again with --allow-shrink.'
      );
    }
  }
  return undefined;
}
