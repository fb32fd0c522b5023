// The staging folder: the next version of --out, built beside it. Writers put every file here;
// a file whose bytes equal the published copy (same SHA-256 and size as in --out's manifest.json)
// becomes a hard link to it (or a copy with its old mtime), so an unchanged build keeps every byte
// and mtime of --out and a CDN sync uploads nothing.
// Only sizes and hashes stay in memory, never contents: builds reach 100,000+ files.

import { constants } from 'node:fs';
import { copyFile, link, lstat, mkdir, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CalfeedError, ConfigError } from '../errors.js';
import { paths } from '../paths.js';
import { errno, Limiter, sha256 } from './fs-util.js';
import { parseManifest } from './manifest.js';
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
  private readonly staged = new Map<string, StagedFile>();
  // Lower-cased path -> the path that claimed it, for files and for every folder on the way, so two
  // outputs can never land on one file of a case-insensitive file system or CDN.
  private readonly claims = new Map<string, { path: string; folder: boolean; by: string }>();
  private readonly madeDirs = new Set<string>();
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
    this.claim(relPath);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const hash = sha256(bytes);
    const target = this.stagedPath(relPath);
    const published = path.join(this.outDir, relPath);
    const index = await this.publishedIndex();
    const changed = await this.io.run(async () => {
      await this.ensureDir(path.dirname(target));
      // The manifest does not list itself: compare its bytes.
      const same =
        index === 'unknown' || relPath === paths.manifest()
          ? await sameBytes(published, bytes)
          : await listedSame(index.get(relPath), published, bytes.length, hash);
      if (same) {
        await this.linkOrCopy(published, target);
        return false;
      }
      await writeFile(target, bytes, { flag: 'wx' });
      return true;
    });
    this.staged.set(relPath, { bytes: bytes.length, sha256: hash, changed });
  }

  async keep(relPath: string): Promise<void> {
    this.claim(relPath);
    const target = this.stagedPath(relPath);
    const published = path.join(this.outDir, relPath);
    const index = await this.publishedIndex();
    const info = await this.io.run(async () => {
      const listed = index === 'unknown' ? undefined : index.get(relPath);
      if (listed !== undefined && (await listedSame(listed, published, listed.bytes, listed.sha256))) {
        await this.ensureDir(path.dirname(target));
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
      await this.ensureDir(path.dirname(target));
      await this.linkOrCopy(published, target);
      return { bytes: bytes.length, sha256: sha256(bytes), changed: false };
    });
    this.staged.set(relPath, info);
  }

  files(): ReadonlyMap<string, StagedFile> {
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
    return listed !== undefined && listedSame(listed, path.join(this.outDir, relPath), listed.bytes, listed.sha256);
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
  // writes of one path cannot both pass the check.
  private claim(relPath: string): void {
    if (this.closed) {
      throw new CalfeedError('BUILD', `Cannot write ${relPath}: this staging folder was already published or discarded.`);
    }
    this.options.signal?.throwIfAborted();
    assertSafeRelPath(relPath);
    const segments = relPath.split('/');
    for (let i = 1; i < segments.length; i++) {
      const folder = segments.slice(0, i).join('/');
      const prior = this.claims.get(folder.toLowerCase());
      if (prior === undefined) this.claims.set(folder.toLowerCase(), { path: folder, folder: true, by: relPath });
      else if (!prior.folder || prior.path !== folder) throw collision(relPath, prior.by);
    }
    const prior = this.claims.get(relPath.toLowerCase());
    if (prior !== undefined) throw collision(relPath, prior.by);
    this.claims.set(relPath.toLowerCase(), { path: relPath, folder: false, by: relPath });
  }

  private async ensureDir(dir: string): Promise<void> {
    if (this.madeDirs.has(dir)) return;
    await mkdir(dir, { recursive: true });
    this.madeDirs.add(dir);
  }

  private async linkOrCopy(published: string, target: string): Promise<void> {
    try {
      await link(published, target);
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
type PublishedIndex = ReadonlyMap<string, { bytes: number; sha256: string }> | 'unknown';

async function readPublishedIndex(outDir: string): Promise<PublishedIndex> {
  let text: string;
  try {
    text = await readFile(path.join(outDir, paths.manifest()), 'utf8');
  } catch (error) {
    // No manifest: assertReplaceable() allows that only for a missing or (dot-files only) empty
    // --out, so no output file is published yet.
    if (errno(error) === 'ENOENT' || errno(error) === 'ENOTDIR') return new Map();
    return 'unknown';
  }
  try {
    return new Map(parseManifest(text).files.map((f) => [f.path, { bytes: f.bytes, sha256: f.sha256 }]));
  } catch {
    return 'unknown'; // a damaged manifest: fall back to comparing bytes
  }
}

// Listed in the manifest with this hash, and still on disk with that size (not deleted by hand).
async function listedSame(listed: { bytes: number; sha256: string } | undefined, published: string, size: number, hash: string): Promise<boolean> {
  if (listed === undefined || listed.bytes !== size || listed.sha256 !== hash) return false;
  try {
    const info = await lstat(published);
    return info.isFile() && info.size === size;
  } catch (error) {
    const code = errno(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}

// Compare with the published copy without reading it unless the sizes match.
async function sameBytes(published: string, bytes: Uint8Array): Promise<boolean> {
  try {
    const info = await lstat(published);
    if (!info.isFile() || info.size !== bytes.length) return false;
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).equals(await readFile(published));
  } catch (error) {
    const code = errno(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}
