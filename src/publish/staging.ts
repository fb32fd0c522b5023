// The staging folder: the next version of --out, built beside it. Writers put every file here;
// a file whose bytes equal the published copy (same SHA-256 and size as in --out's manifest.json)
// becomes a hard link to it (or a copy with its old mtime), so an unchanged build keeps every byte
// and mtime of --out and a CDN sync uploads nothing.
// Only sizes and hashes stay in memory, never contents: builds reach 100,000+ files.

import { constants, linkSync, lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { copyFile, link, lstat, mkdir, open, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CalfeedError, ConfigError } from '../errors.js';
import { paths } from '../paths.js';
import { FileTable } from './file-table.js';
import { errno, Limiter, sha256, sha256Digest } from './fs-util.js';
import { scanManifest } from './manifest.js';
import { assertSafeRelPath } from './rel-path.js';
import { ensureParent, siblingsOf, uniqueSuffix } from './siblings.js';

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
  /** Write a file; identical published bytes are hard-linked instead, keeping bytes and mtime. */
  write(relPath: string, data: string | Uint8Array): Promise<void>;
  /** Keep the published file at relPath as it is (e.g. after an HTTP 304). */
  keep(relPath: string): Promise<void>;
  /** Everything staged so far: path -> { bytes, sha256, changed }. */
  files(): ReadonlyMap<string, StagedFile>;
  /** Bytes of a staged file, else of the published one; undefined if neither exists. */
  readPublished(relPath: string): Promise<Buffer | undefined>;
  /** Whether --out's manifest lists this file and it is still there, so keep() will succeed without reading it. */
  isPublished(relPath: string): Promise<boolean>;
}

export interface StagingOptions {
  signal?: AbortSignal;
  onWarning?: (message: string) => void;
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
  await ensureParent(s);
  await assertReplaceable(s.outDir);
  const dir = path.join(s.parent, s.stagingPrefix + uniqueSuffix());
  await mkdir(dir);
  liveStagings.add(dir);
  return new DirStaging(dir, s.outDir, options);
}

/** Remove a staging folder after a failure; outDir is untouched. */
export async function discard(staging: Staging): Promise<void> {
  if (staging instanceof DirStaging) staging.close();
  await rm(staging.dir, { recursive: true, force: true });
  liveStagings.delete(staging.dir);
}

/** Mark a staging as used up (it has become outDir): later writes throw. */
export function sealStaging(staging: Staging): void {
  if (staging instanceof DirStaging) staging.close();
  liveStagings.delete(staging.dir);
}

// An output folder may hold top-level dot files besides calfeed's own (git's .gitkeep and
// .gitignore, GitHub Pages' .nojekyll, macOS's .DS_Store) without being "somebody else's folder";
// publish carries them over. A dot *folder* such as .git is foreign.
async function isHarmless(outDir: string, name: string): Promise<boolean> {
  if (!name.startsWith('.')) return false;
  try {
    return (await lstat(path.join(outDir, name))).isFile();
  } catch {
    return false;
  }
}

/**
 * Publishing replaces --out as a whole, so refuse a folder that does not look like calfeed output:
 * a typo such as `--out ~` must not delete a home folder.
 */
export async function assertReplaceable(outDir: string): Promise<void> {
  let entries: string[];
  try {
    const info = await stat(outDir);
    if (!info.isDirectory()) {
      throw new ConfigError(`The output path ${outDir} exists and is not a folder. Choose another --out or remove it.`);
    }
    entries = await readdir(outDir);
  } catch (error) {
    if (errno(error) === 'ENOENT') return;
    throw error;
  }
  if (entries.includes(paths.manifest())) return;
  const foreign: string[] = [];
  for (const name of entries) if (!(await isHarmless(outDir, name))) foreign.push(name);
  if (foreign.length === 0) return;
  throw new ConfigError(
    `Refusing to replace ${outDir}: it is not empty and has no ${paths.manifest()}, so it does not look like ` +
      `calfeed output (it holds ${JSON.stringify(foreign[0])}${foreign.length > 1 ? ` and ${foreign.length - 1} more` : ''}). ` +
      'calfeed replaces --out as a whole; choose a new or empty folder, or remove this one.',
  );
}

class DirStaging implements Staging {
  // Per file: a slot in a compact table (the path string is the caller's; see FileTable), taken
  // when the path is claimed and listed once its bytes are staged.
  private readonly staged = new FileTable();
  // Claims, so two outputs can never land on one file of a case-insensitive file system or CDN:
  // a lower-case file path is claimed by its slot in `staged`; a path with capitals under its
  // lower-cased form here (-> the path); every folder on the way under its lower-cased form in
  // folderClaims (-> the first file in it: a folder's exact spelling is a prefix of that file).
  // Keys are the paths themselves when already lower case, so no path is copied.
  private readonly upperClaims = new Map<string, string>();
  private readonly folderClaims = new Map<string, string>();
  // Folders claimed but not yet made in staging (null), or being made (their mkdir).
  private readonly dirsToMake = new Map<string, Promise<void> | null>();
  private readonly io = new Limiter(32);
  private closed = false;
  private warnedCopy = false;
  private published: Promise<PublishedIndex> | undefined;

  constructor(
    readonly dir: string,
    readonly outDir: string,
    private readonly options: StagingOptions,
  ) {}

  close(): void {
    this.closed = true;
  }

  async write(relPath: string, data: string | Uint8Array): Promise<void> {
    const folder = this.claim(relPath);
    // A large string (the combined calendar.ics, the manifest: 100 MB at 100,000 events) is hashed,
    // compared and written a slice at a time instead of as one Buffer copy of the whole text.
    const bytes = typeof data !== 'string' ? data : data.length < BIG_STRING ? Buffer.from(data, 'utf8') : new BigText(data);
    const hash = bytes instanceof BigText ? bytes.digest() : sha256Digest(bytes);
    const size = bytes instanceof BigText ? bytes.size : bytes.length;
    const target = this.stagedPath(relPath);
    const published = path.join(this.outDir, relPath);
    const index = await this.publishedIndex();
    const changed = await this.io.run(async () => {
      await this.ensureDir(folder);
      // The manifest does not list itself: compare its bytes.
      const same =
        index === 'unknown' || relPath === paths.manifest()
          ? await sameBytes(published, bytes)
          : await listedSame(index, relPath, published, size, hash);
      if (same) {
        await this.linkOrCopy(published, target);
        return false;
      }
      if (bytes instanceof BigText) await bytes.writeNew(target);
      // Synchronous on purpose, like the mkdir, link and lstat calls of this class: a build writes
      // three small files per event, and the promise API's thread-pool round trips (open, write,
      // close) cost several times the write itself; the profile showed a quarter of all CPU there.
      else writeFileSync(target, bytes, { flag: 'wx' });
      return true;
    });
    this.staged.set(relPath, size, hash, changed);
  }

  async keep(relPath: string): Promise<void> {
    const folder = this.claim(relPath);
    const target = this.stagedPath(relPath);
    const published = path.join(this.outDir, relPath);
    const index = await this.publishedIndex();
    const info = await this.io.run(async () => {
      const listed = index === 'unknown' ? undefined : index.get(relPath);
      if (listed !== undefined && (await listedSame(index as PublishedTable, relPath, published, listed.bytes, listed.sha256))) {
        await this.ensureDir(folder);
        await this.linkOrCopy(published, target);
        return { bytes: listed.bytes, sha256: listed.sha256, changed: false };
      }
      let bytes: Buffer;
      try {
        bytes = await readFile(published);
      } catch (error) {
        throw new CalfeedError(
          'BUILD',
          `Cannot keep ${relPath} unchanged: the published copy in ${this.outDir} is missing or unreadable (${errno(error) ?? String(error)}). ` +
            'Delete the cache folder (--cache-dir) to force a full build.',
          { cause: error },
        );
      }
      await this.ensureDir(folder);
      await this.linkOrCopy(published, target);
      return { bytes: bytes.length, sha256: sha256(bytes), changed: false };
    });
    this.staged.set(relPath, info.bytes, info.sha256, false);
  }

  files(): FileTable {
    return this.staged;
  }

  async readPublished(relPath: string): Promise<Buffer | undefined> {
    assertSafeRelPath(relPath);
    const from = this.staged.has(relPath) ? this.dir : this.outDir;
    try {
      return await readFile(path.join(from, relPath));
    } catch (error) {
      const code = errno(error);
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return undefined;
      throw error;
    }
  }

  async isPublished(relPath: string): Promise<boolean> {
    const index = await this.publishedIndex();
    if (index === 'unknown') return false;
    const listed = index.get(relPath);
    return listed !== undefined && listedSame(index, relPath, path.join(this.outDir, relPath), listed.bytes, listed.sha256);
  }

  // What --out holds, from its manifest.json, read once: comparing a new file's hash with the
  // manifest costs nothing, where reading every published file back cost a read per output file
  // (300,000 reads at 100,000 events). verify() re-hashes every staged file before publishing, so
  // a published file edited by hand cannot slip through as "unchanged".
  private publishedIndex(): Promise<PublishedIndex> {
    this.published ??= readPublishedIndex(this.outDir);
    return this.published;
  }

  private stagedPath(relPath: string): string {
    return path.join(this.dir, ...relPath.split('/'));
  }

  // Synchronous on purpose: the claim must be taken before the first await, so two concurrent
  // writes of one path cannot both pass the check. Returns the file's folder ('' for the top).
  private claim(relPath: string): string {
    if (this.closed) {
      throw new CalfeedError('BUILD', `Cannot write ${relPath}: this staging folder was already published or discarded.`);
    }
    this.options.signal?.throwIfAborted();
    assertSafeRelPath(relPath);
    const slash = relPath.lastIndexOf('/');
    const folder = slash < 0 ? '' : relPath.slice(0, slash);
    // Folders are claimed top down; a folder claimed under this exact spelling had all of its
    // parents claimed then, so the walk starts below the deepest such folder.
    const open: string[] = [];
    for (let f = folder; f !== ''; f = f.slice(0, Math.max(0, f.lastIndexOf('/')))) {
      const key = lowerKey(f);
      const by = this.folderClaims.get(key);
      if (by !== undefined && isFolderOf(f, by)) break;
      open.push(f);
    }
    for (let i = open.length - 1; i >= 0; i--) {
      const f = open[i]!;
      const key = lowerKey(f);
      const file = this.fileClaim(key);
      if (file !== undefined) throw collision(relPath, file);
      const by = this.folderClaims.get(key);
      if (by === undefined) {
        this.folderClaims.set(key, relPath);
        this.dirsToMake.set(f, null);
      } else if (!isFolderOf(f, by)) throw collision(relPath, by);
    }
    const key = lowerKey(relPath);
    const prior = this.fileClaim(key) ?? this.folderClaims.get(key);
    if (prior !== undefined) throw collision(relPath, prior);
    if (key !== relPath) this.upperClaims.set(key, relPath);
    this.staged.reserve(relPath);
    return folder;
  }

  /** The file that claimed a lower-cased path, if any. */
  private fileClaim(key: string): string | undefined {
    return this.staged.claimed(key) ? key : this.upperClaims.get(key);
  }

  private async ensureDir(folder: string): Promise<void> {
    const state = this.dirsToMake.get(folder);
    if (state === undefined) return; // made already (or '', the staging folder itself)
    if (state !== null) return state;
    try {
      mkdirSync(path.join(this.dir, ...folder.split('/')), { recursive: true });
    } catch (error) {
      this.dirsToMake.set(folder, null);
      throw error;
    }
    // mkdir -p made every folder above it too.
    for (let f = folder; f !== ''; f = f.slice(0, Math.max(0, f.lastIndexOf('/')))) this.dirsToMake.delete(f);
  }

  private async linkOrCopy(published: string, target: string): Promise<void> {
    try {
      linkSync(published, target);
      return;
    } catch (error) {
      if (errno(error) === 'EEXIST') throw error;
      if (!this.warnedCopy) {
        this.warnedCopy = true;
        this.options.onWarning?.(
          `Hard links are not available beside ${this.outDir} (${errno(error) ?? 'error'}); copying unchanged files and keeping their modification times.`,
        );
      }
    }
    const info = await stat(published);
    await copyFile(published, target, constants.COPYFILE_EXCL);
    await utimes(target, info.atime, info.mtime);
  }
}

/** The Map key for a path: the path itself when it is already lower case (no second string). */
function lowerKey(p: string): string {
  const lower = p.toLowerCase();
  return lower === p ? p : lower;
}

/** Whether `folder` (exact spelling) is a folder of the file `by` that claimed its lower-cased key. */
function isFolderOf(folder: string, by: string): boolean {
  return by.length > folder.length && by.charCodeAt(folder.length) === 47 /* '/' */ && by.startsWith(folder);
}

function collision(relPath: string, other: string): CalfeedError {
  const same = relPath === other;
  return new CalfeedError(
    'BUILD',
    same
      ? `Two outputs were written to the same file ${relPath}. This is a bug in calfeed; please report it.`
      : `The outputs ${relPath} and ${other} collide on case-insensitive file systems and CDNs ` +
          '(macOS, Windows): their paths differ only in letter case. This is a bug in calfeed path rules; please report it.',
  );
}

/** Published files by path (from --out's manifest), or 'unknown' when the manifest cannot be read. */
type PublishedTable = FileTable;
type PublishedIndex = PublishedTable | 'unknown';

async function readPublishedIndex(outDir: string): Promise<PublishedIndex> {
  try {
    const { result } = await scanManifest(path.join(outDir, paths.manifest()), () => {
      const table = new FileTable();
      return { add: (f) => table.set(f.path, f.bytes, f.sha256), done: () => table };
    });
    return result;
  } catch (error) {
    // No manifest: assertReplaceable() allows that only for a missing or (dot-files only) empty
    // --out, so no output file is published yet.
    if (errno(error) === 'ENOENT' || errno(error) === 'ENOTDIR') return new FileTable();
    return 'unknown'; // unreadable or damaged: fall back to comparing bytes
  }
}

// Listed in the manifest with this hash, and still on disk with that size (not deleted by hand).
async function listedSame(index: PublishedTable, relPath: string, published: string, size: number, hash: string | Uint8Array): Promise<boolean> {
  if (!index.matches(relPath, size, hash)) return false;
  try {
    const info = lstatSync(published);
    return info.isFile() && info.size === size;
  } catch (error) {
    const code = errno(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}

// Compare with the published copy without reading it unless the sizes match.
async function sameBytes(published: string, bytes: Uint8Array | BigText): Promise<boolean> {
  try {
    const info = await lstat(published);
    const size = bytes instanceof BigText ? bytes.size : bytes.length;
    if (!info.isFile() || info.size !== size) return false;
    if (bytes instanceof BigText) return await bytes.equalsFile(published);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).equals(await readFile(published));
  } catch (error) {
    const code = errno(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}

/** Strings this long (UTF-16 code units) are handled in slices; shorter ones as one Buffer. */
const BIG_STRING = 4 << 20;
const SLICE = 1 << 20;

/** A large text as UTF-8, one slice at a time: its size, its SHA-256, writing it, comparing it. */
class BigText {
  readonly size: number;
  constructor(private readonly text: string) {
    this.size = Buffer.byteLength(text, 'utf8');
  }

  /** UTF-8 slices; a cut never falls inside a surrogate pair, so the bytes equal Buffer.from(text). */
  *slices(): Generator<Buffer> {
    const text = this.text;
    for (let from = 0; from < text.length; ) {
      let to = Math.min(text.length, from + SLICE);
      const last = text.charCodeAt(to - 1);
      if (to < text.length && last >= 0xd800 && last <= 0xdbff) to--;
      yield Buffer.from(text.slice(from, to), 'utf8');
      from = to;
    }
  }

  digest(): Buffer {
    const hash = createHash('sha256');
    for (const slice of this.slices()) hash.update(slice);
    return hash.digest();
  }

  async writeNew(target: string): Promise<void> {
    const handle = await open(target, 'wx');
    try {
      for (const slice of this.slices()) await handle.write(slice);
    } finally {
      await handle.close();
    }
  }

  async equalsFile(file: string): Promise<boolean> {
    const handle = await open(file, 'r');
    try {
      let position = 0;
      for (const slice of this.slices()) {
        const read = Buffer.allocUnsafe(slice.length);
        const { bytesRead } = await handle.read(read, 0, slice.length, position);
        if (bytesRead !== slice.length || !read.equals(slice)) return false;
        position += bytesRead;
      }
      return position === this.size;
    } finally {
      await handle.close();
    }
  }
}
