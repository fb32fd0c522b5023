// The staging folder: the next version of --out, built beside it. A file whose bytes equal the
// published copy (same SHA-256 and size as in --out's manifest.json) is kept as that copy, so an
// unchanged build keeps every byte and mtime of --out and a CDN sync uploads nothing. Publish
// hard-links such files from --out (or copies them with their old mtime); nothing in --out is moved
// or removed. Only sizes and hashes stay in memory, never contents.

import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { paths } from '../paths.js';
import { DirStaging } from './dir-staging.js';
import type { FileTable } from './file-table.js';
import { removeTree } from './fs-util.js';
import { filesDiffer } from './intact.js';
import { dropped } from './published.js';
import type { Manifest } from './manifest.js';
import { PublishedManifest } from './published-manifest.js';
import { assertReplaceable } from './replaceable.js';
import { siblingsOf, uniqueSuffix } from './siblings.js';
import { makeDir } from '../make-dir.js';
import { keepSpare, takeSpare } from './spare.js';
import { folderOf } from './staging-claims.js';
import { underRoot } from './write-job.js';

export interface StagedFile {
  bytes: number;
  sha256: string;
  /** False when the published file had the same bytes and was kept as it was. */
  changed: boolean;
}

export interface Staging {
  /** Absolute path of the staging folder. */
  readonly dir: string;
  /** Absolute path of the output folder it will replace. */
  readonly outDir: string;
  /** Whether new files are made in a writer thread (StagingOptions.writerThread). */
  readonly writerThread: boolean;
  /**
   * Write a file (text, bytes, or text in pieces to be written one after another); identical
   * published bytes are kept as the published file instead (bytes and mtime).
   */
  write(relPath: string, data: string | Uint8Array | readonly string[]): Promise<void>;
  /**
   * write() for a file of any size, from chunks as they arrive (strings as UTF-8, a surrogate pair
   * split between two joined), never held whole. If the chunks throw, the partial file is removed
   * and the path stays claimed.
   */
  writeChunks(relPath: string, chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>): Promise<void>;
  /** Keep the published file at relPath as it is (e.g. after an HTTP 304): linked, or copied, from --out. */
  keep(relPath: string): Promise<void>;
  /** Everything staged so far: path -> { bytes, sha256, changed }. */
  files(): FileTable;
  /** Bytes of a staged file, else of the published one; undefined if neither exists. */
  readPublished(relPath: string): Promise<Buffer | undefined>;
  /**
   * Whether --out's manifest lists this file (with this SHA-256, hex, when one is given) and it is
   * still there, so keep() will succeed without reading it.
   */
  isPublished(relPath: string, sha256?: string): Promise<boolean>;
  /** The SHA-256 (hex) --out's manifest lists for relPath; undefined when it lists none. */
  publishedHash(relPath: string): Promise<string | undefined>;
  /** --out's manifest.json without its file list (for the shrink guard); undefined if unreadable or none. */
  publishedManifest(): Promise<Omit<Manifest, 'files'> | undefined>;
}

export interface StagingOptions {
  signal?: AbortSignal;
  onWarning?: (message: string) => void;
  /** Whether new files are made in a writer thread (writer.ts); default: when there is a spare core. */
  writerThread?: boolean;
  /** --out's manifest.json as the build reads it, once (shared with the up-to-date check); by default staging reads it itself. */
  published?: PublishedManifest;
}

// Staging folders this process created and has not yet published or discarded: recover() must
// not sweep them even though their pid (ours) is alive.
const liveStagings = new Set<string>();

/** Whether dir is a staging folder this process is still using. */
export function isLiveStaging(dir: string): boolean {
  return liveStagings.has(dir);
}

/** Start a staging folder beside outDir (same parent, so the final rename is on one file system). */
export async function createStaging(outDir: string, options: StagingOptions = {}): Promise<Staging> {
  const s = siblingsOf(outDir);
  await makeDir(s.parent);
  const published = options.published ?? new PublishedManifest(s.outDir);
  await assertReplaceable(s.outDir, published);
  const dir = path.join(s.parent, s.stagingPrefix + uniqueSuffix());
  // Marked live first: recover() must not sweep the spare once it is renamed to `dir`.
  liveStagings.add(dir);
  try {
    const stale = await takeSpare(s, await published.read(), dir);
    if (stale === undefined) await mkdir(dir);
    return new DirStaging(dir, s.outDir, options, published, stale);
  } catch (error) {
    await removeTree(dir).catch(() => undefined);
    liveStagings.delete(dir);
    throw error;
  }
}

/** Remove a staging folder after a failure; outDir is untouched. */
export async function discard(staging: Staging): Promise<void> {
  // The writer finishes what it was given first: nothing may be written into the folder being removed.
  if (staging instanceof DirStaging) await staging.close();
  await removeTree(staging.dir);
  liveStagings.delete(staging.dir);
}

/**
 * Drop a staging folder after sameAsPublished(): it holds only --out's own files, so one taken
 * from the spare becomes the spare again for the next build; any other is removed.
 */
export async function setAside(staging: Staging): Promise<void> {
  if (staging instanceof DirStaging && staging.spare) {
    const read = await staging.publishedRead.read();
    await staging.close();
    if (read.found === 'read' && (await keepSpare(siblingsOf(staging.outDir), staging.dir, read.sha256, [...staging.spare.notHeld]))) {
      liveStagings.delete(staging.dir);
      return;
    }
  }
  await discard(staging);
}

/**
 * Whether staging holds exactly the files --out holds, byte for byte, so publishing would change
 * nothing: every file kept (none written), none of --out's gone, no problem found, and --out's
 * files on disk as its manifest lists them (found so at the build's start, else looked at now).
 */
export async function sameAsPublished(staging: Staging): Promise<boolean> {
  if (!(staging instanceof DirStaging)) return false;
  const staged = staging.files();
  const listing = await staging.publishedListing();
  if (listing === undefined || staged.changedCount() > 0 || !staged.has(paths.manifest())) return false;
  if (!staged.problems().next().done) return false;
  if (!dropped(listing, staged).next().done) return false;
  return staging.publishedRead.foundAsListed || (await filesDiffer(staging.publishedRead)) === undefined;
}

/**
 * What publish flushes to disk before the commit (durable.ts): the files whose bytes were written
 * into staging (every file, when unchanged ones had to be copied), and every folder of it, the
 * staging folder last. Absolute paths, made as they are read.
 */
export function toFlush(staging: DirStaging): { files: Iterable<string>; folders: Iterable<string> } {
  return { files: writtenFiles(staging.dir, staging.files(), staging.copiedKept), folders: foldersOf(staging.dir, staging.files()) };
}

function* writtenFiles(dir: string, staged: FileTable, copiedKept: boolean): Generator<string> {
  for (const { relPath, slot, listed } of staged.slots()) {
    if (listed && (copiedKept || staged.changedAt(slot))) yield underRoot(dir, relPath);
  }
}

// Each folder once, from the staged paths (no walk), the staging folder last.
function* foldersOf(dir: string, staged: FileTable): Generator<string> {
  const seen = new Set<string>();
  for (const { relPath, listed } of staged.slots()) {
    if (!listed) continue;
    for (let f = folderOf(relPath); f !== '' && !seen.has(f); f = folderOf(f)) {
      seen.add(f);
      yield underRoot(dir, f);
    }
  }
  yield dir;
}

/** Mark a staging as used up (it has become outDir): later writes throw. */
export function sealStaging(staging: Staging): void {
  // linkKept() has already drained and stopped the writer thread.
  if (staging instanceof DirStaging) void staging.close();
  liveStagings.delete(staging.dir);
}
