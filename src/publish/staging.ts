// The staging folder: the next version of --out, built beside it. Writers put every file here;
// a file whose bytes equal the published copy (same SHA-256 and size as in --out's manifest.json)
// is kept as that copy, so an unchanged build keeps every byte and mtime of --out and a CDN sync
// uploads nothing. Keeping is deferred until publish: nothing is made in staging for such a file
// during the build; publish hard-links it then from --out (or copies it with its old mtime), and
// never moves or removes anything in --out. Only sizes and hashes stay in memory, never contents:
// builds reach 100,000+ files.

import { closeSync, constants, fstatSync, linkSync, lstatSync, openSync, readFileSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { createHash, type Hash } from 'node:crypto';
import { copyFile, lstat, mkdir, readdir, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { CalfeedError, ConfigError } from '../errors.js';
import { withPath } from '../io-error.js';
import { paths } from '../paths.js';
import { chunkCheckFor, type ChunkCheck } from './content-check.js';
import { FileTable } from './file-table.js';
import { PathClaims } from './path-claims.js';
import { errno, Limiter, readHead, sha256Digest } from './fs-util.js';
import { HEADERS_FIRST_LINE } from './headers.js';
import { isCalfeedManifest, type Manifest, scanManifest } from './manifest.js';
import { assertSafeRelPath } from './rel-path.js';
import { ensureParent, siblingsOf, uniqueSuffix } from './siblings.js';
import { type JobResult, makeDirs, underRoot } from './write-job.js';
import { createWriter, type StagingWriter } from './writer.js';

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
  /** Write a file; identical published bytes are kept as the published file instead (bytes and mtime). */
  write(relPath: string, data: string | Uint8Array): Promise<void>;
  /**
   * Write a file from chunks as they arrive (strings are UTF-8; a surrogate pair split between two
   * string chunks is joined), in writes of about 64 KB, hashing on the fly: a file of any size is
   * never held whole. Same claims, content checks and unchanged-file rule as write(): when the
   * bytes equal the published copy, the staged file becomes a hard link to it (bytes and mtime
   * kept; at publish for a file of less than one block). If the chunks throw, the partial file is
   * removed and the path stays claimed.
   */
  writeChunks(relPath: string, chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>): Promise<void>;
  /** Keep the published file at relPath as it is (e.g. after an HTTP 304); it is linked or moved at publish. */
  keep(relPath: string): Promise<void>;
  /**
   * Keep every file --out's manifest lists that nothing was staged at yet, but those `skip` turns
   * down; returns how many were kept. Throws when --out has no readable manifest. `sizesChecked`:
   * the caller has just found every listed file in --out with its listed size (outputDiffers),
   * so they are not looked at again one by one.
   */
  keepPublished(skip: (relPath: string) => boolean, sizesChecked?: boolean): Promise<number>;
  /** Everything staged so far: path -> { bytes, sha256, changed }. */
  files(): ReadonlyMap<string, StagedFile>;
  /** Bytes of a staged file, else of the published one; undefined if neither exists. */
  readPublished(relPath: string): Promise<Buffer | undefined>;
  /**
   * Whether --out's manifest lists this file (with this SHA-256, hex, when one is given) and it is
   * still there, so keep() will succeed without reading it.
   */
  isPublished(relPath: string, sha256?: string): Promise<boolean>;
  /**
   * --out's manifest.json as published, without its file list (for the shrink guard); undefined
   * when there is none or it cannot be read. Taken from the one read of it the build makes anyway.
   */
  publishedManifest(): Promise<Omit<Manifest, 'files'> | undefined>;
}

export interface StagingOptions {
  signal?: AbortSignal;
  onWarning?: (message: string) => void;
  /** Whether new files are made in a writer thread (writer.ts); default: when there is a spare core. */
  writerThread?: boolean;
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
  // The writer finishes what it was given first: nothing may be written into the folder being removed.
  if (staging instanceof DirStaging) await staging.close();
  await rm(staging.dir, { recursive: true, force: true });
  liveStagings.delete(staging.dir);
}

/**
 * At publish, before verify: link (or copy) every deferred file into staging from --out, which
 * stays as it is. After this the staging folder is the complete new output.
 */
export async function linkKept(staging: Staging): Promise<void> {
  if (staging instanceof DirStaging) await staging.linkKept();
}

/**
 * What publish flushes to disk before the commit (durable.ts): the files whose bytes were written
 * into staging (every file, when unchanged ones had to be copied), and every folder of it, the
 * staging folder last. Absolute paths, made as they are read.
 */
export function toFlush(staging: Staging): { files: Iterable<string>; folders: Iterable<string> } {
  if (!(staging instanceof DirStaging)) return { files: [], folders: [staging.dir] };
  return { files: staging.writtenFiles(), folders: staging.folders() };
}

/**
 * The files --out's manifest listed when the staging started (the same table it compares new
 * files with), or undefined when there was no readable manifest: publish counts removed files
 * from it instead of reading the manifest a second time.
 */
export async function publishedFiles(staging: Staging): Promise<ReadonlyMap<string, unknown> | undefined> {
  return staging instanceof DirStaging ? staging.publishedListing() : undefined;
}

/** Mark a staging as used up (it has become outDir): later writes throw. */
export function sealStaging(staging: Staging): void {
  // linkKept() has already drained and stopped the writer thread.
  if (staging instanceof DirStaging) void staging.close();
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
  if (await isCalfeedOutput(outDir, entries)) return;
  const foreign: string[] = [];
  for (const name of entries) if (!(await isHarmless(outDir, name))) foreign.push(name);
  if (foreign.length === 0) return;
  const shown = foreign.slice(0, 8).map((name) => JSON.stringify(name)).join(', ') + (foreign.length > 8 ? ` and ${foreign.length - 8} more` : '');
  const why = entries.includes(paths.manifest())
    ? `its ${paths.manifest()} was not written by calfeed (a web app's manifest, say)`
    : `it has no ${paths.manifest()}`;
  throw new ConfigError(
    `Refusing to replace ${outDir}: it is not empty and ${why}, so it does not look like calfeed output. ` +
      `Publishing would delete ${shown}. calfeed replaces --out as a whole; choose a new or empty folder, or remove this one.`,
  );
}


// calfeed's manifest.json, or (when that was damaged by hand) calfeed's _headers: either says the
// folder is calfeed output. A web app's manifest.json says nothing.
async function isCalfeedOutput(outDir: string, entries: readonly string[]): Promise<boolean> {
  if (entries.includes(paths.manifest()) && (await isCalfeedManifest(path.join(outDir, paths.manifest())))) return true;
  return entries.includes(paths.headers()) && (await readHead(path.join(outDir, paths.headers()), 256))?.startsWith(HEADERS_FIRST_LINE + '\n') === true;
}

class DirStaging implements Staging {
  // Per file: a slot in a compact table (the path string is the caller's; see FileTable), taken
  // when the path is claimed and listed once its bytes are staged.
  private readonly staged = new FileTable();
  // Claims, so two outputs can never land on one file of a case-insensitive file system or CDN:
  // a lower-case file path is claimed by its slot in `staged`; a path with capitals under its
  // lower-cased form in upperClaims; every folder on the way under its lower-cased form in
  // folderClaims. Each names the slot of the file that claimed it (for a folder: the first file in
  // it, whose path starts with the folder's exact spelling), and whether it is made (QUEUED, MADE).
  private readonly upperClaims = new PathClaims();
  private readonly folderClaims = new PathClaims();
  // Paths isPublished() found listed and on disk with their listed size, so the keep() that
  // follows does not lstat the published file a second time. Emptied as the paths are claimed.
  private readonly checkedPublished = new Set<string>();
  // The copy fallback (no hard links) runs in the thread pool, a few at a time; links, folders for
  // them and streamed files are made synchronously here, new files by `writer`.
  private readonly copies = new Limiter(32);
  private closed = false;
  // Whether an unchanged file was copied rather than linked (no hard links): its bytes are new too.
  private copied = false;
  private published: Promise<PublishedIndex> | undefined;
  private index: PublishedIndex | undefined;
  // --out's manifest without its file list, when the index came from it (else undefined).
  private indexManifest: Omit<Manifest, 'files'> | undefined;
  // Makes new files (and their folders) in a writer thread; see writer.ts.
  private readonly writer: StagingWriter;

  constructor(
    readonly dir: string,
    readonly outDir: string,
    private readonly options: StagingOptions,
  ) {
    this.writer = createWriter(dir, { signal: options.signal, thread: options.writerThread });
  }

  /** Refuse further writes; resolves once the writer has done what it was given and stopped. */
  close(): Promise<void> {
    this.closed = true;
    return this.writer.stop();
  }

  async write(relPath: string, data: string | Uint8Array): Promise<void> {
    const folder = this.claim(relPath);
    // A large string (a combined calendar.ics: 100 MB at 100,000 events) is streamed a slice at a
    // time instead of made into one Buffer copy of the whole text.
    if (typeof data === 'string' && data.length >= BIG_STRING) return this.stream(relPath, folder, slicesOf(data), false);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const index = this.index ?? (await this.publishedIndex());
    await this.commit(relPath, folder, bytes, index);
  }

  async writeChunks(relPath: string, chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>): Promise<void> {
    const folder = this.claim(relPath);
    await this.stream(relPath, folder, chunks, Symbol.asyncIterator in chunks);
  }

  async keepPublished(skip: (relPath: string) => boolean, sizesChecked = false): Promise<number> {
    const index = this.index ?? (await this.publishedIndex());
    if (index === 'unknown' || this.indexManifest === undefined) throw new CalfeedError('BUILD', `Cannot keep the files of ${this.outDir}: it has no readable ${paths.manifest()}.`);
    let kept = 0;
    for (const relPath of index.keys()) {
      if (this.staged.claimed(relPath) || skip(relPath)) continue;
      await this.keepListed(relPath, sizesChecked);
      kept++;
    }
    return kept;
  }

  keep(relPath: string): Promise<void> {
    return this.keepListed(relPath, this.checkedPublished.delete(relPath));
  }

  // keep(), where `checked` says the published file was already found with its listed size.
  private async keepListed(relPath: string, checked: boolean): Promise<void> {
    const folder = this.claim(relPath);
    const target = this.stagedPath(relPath);
    const published = this.publishedPath(relPath);
    const index = this.index ?? (await this.publishedIndex());
    const size = index === 'unknown' ? undefined : index.sizeOf(relPath);
    if (size !== undefined && (checked || publishedSize(published) === size)) {
      const hash = (index as PublishedTable).hashOf(relPath)!;
      if (folder !== '') {
        this.staged.set(relPath, size, hash, false, true);
        return;
      }
      const copying = this.linkOrCopy(published, target);
      if (copying) await copying;
      this.staged.set(relPath, size, hash, false);
      return;
    }
    let bytes: Buffer;
    try {
      bytes = readFileSync(published);
    } catch (error) {
      throw new CalfeedError(
        'BUILD',
        `Cannot keep ${relPath} unchanged: the published copy in ${this.outDir} is missing or unreadable (${errno(error) ?? String(error)}). ` +
          'Delete the cache folder (--cache-dir) to force a full build.',
        { cause: error },
      );
    }
    this.ensureDir(folder);
    const copying = this.linkOrCopy(published, target);
    if (copying) await copying;
    this.staged.set(relPath, bytes.length, sha256Digest(bytes), false);
  }

  files(): FileTable {
    return this.staged;
  }

  async readPublished(relPath: string): Promise<Buffer | undefined> {
    assertSafeRelPath(relPath);
    // Synchronous, like the writes: these are mirror files of a few KB, read once each, and the
    // promise API's open/stat/read/close round trips cost more than the read.
    try {
      // A deferred file is the published one: staging has nothing at its path yet.
      const staged = this.staged.has(relPath) && !this.staged.deferred(relPath);
      return readFileSync(staged ? this.stagedPath(relPath) : this.publishedPath(relPath));
    } catch (error) {
      const code = errno(error);
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return undefined;
      throw error;
    }
  }

  async isPublished(relPath: string, sha256?: string): Promise<boolean> {
    const index = this.index ?? (await this.publishedIndex());
    if (index === 'unknown') return false;
    const size = index.sizeOf(relPath);
    if (size === undefined || (sha256 !== undefined && !index.matches(relPath, size, sha256))) return false;
    if (publishedSize(path.join(this.outDir, relPath)) !== size) return false;
    this.checkedPublished.add(relPath);
    return true;
  }

  /** See linkKept(). */
  async linkKept(): Promise<void> {
    this.assertOpen('the kept files');
    // Every write has resolved by now (publish comes after them); the thread is not needed again.
    await this.writer.stop();
    const copying: Array<Promise<void>> = [];
    for (const { relPath, slot, listed } of this.staged.slots()) {
      if (!listed || !this.staged.deferredAt(slot)) continue;
      this.ensureDir(folderOf(relPath));
      let copy: Promise<void> | undefined;
      try {
        copy = this.linkOrCopy(this.publishedPath(relPath), this.stagedPath(relPath));
      } catch (error) {
        throw this.missingPublished(relPath, error);
      }
      if (copy === undefined) continue;
      // Copies (no hard links) go through the limiter; a batch at a time keeps the promises few.
      copying.push(copy.catch((error: unknown) => Promise.reject(this.missingPublished(relPath, error))));
      if (copying.length >= 256) await Promise.all(copying.splice(0));
    }
    await Promise.all(copying);
  }

  /** See toFlush(). */
  *writtenFiles(): Generator<string> {
    for (const { relPath, slot, listed } of this.staged.slots()) {
      if (listed && (this.copied || this.staged.changedAt(slot))) yield this.stagedPath(relPath);
    }
  }

  /** See toFlush(): each folder once, from the staged paths (no walk), the staging folder last. */
  *folders(): Generator<string> {
    const seen = new Set<string>();
    for (const { relPath, listed } of this.staged.slots()) {
      if (!listed) continue;
      for (let f = folderOf(relPath); f !== '' && !seen.has(f); f = folderOf(f)) {
        seen.add(f);
        yield this.stagedPath(f);
      }
    }
    yield this.dir;
  }

  private missingPublished(relPath: string, error: unknown): unknown {
    if (errno(error) !== 'ENOENT') return error;
    return new CalfeedError(
      'BUILD',
      `Cannot keep ${relPath} unchanged: the published copy in ${this.outDir} is missing (ENOENT); it was there earlier in the build. ` +
        'Nothing was published. Run the build again.',
      { cause: error },
    );
  }

  async publishedManifest(): Promise<Omit<Manifest, 'files'> | undefined> {
    await this.publishedIndex();
    return this.indexManifest;
  }

  /** See publishedFiles(). */
  async publishedListing(): Promise<PublishedTable | undefined> {
    const index = this.index ?? (await this.publishedIndex());
    return index !== 'unknown' && this.indexManifest !== undefined ? index : undefined;
  }

  // What --out holds, from its manifest.json, read once: comparing a new file's hash with the
  // manifest costs nothing, where reading every published file back cost a read per output file
  // (300,000 reads at 100,000 events). A kept file is trusted on its listed hash and its size on
  // disk (a file edited by hand to another size is read and hashed instead).
  private publishedIndex(): Promise<PublishedIndex> {
    this.published ??= readPublishedIndex(this.outDir).then(({ index, manifest }) => {
      this.index = index;
      this.indexManifest = manifest;
      return index;
    });
    return this.published;
  }

  private stagedPath(relPath: string): string {
    return underRoot(this.dir, relPath);
  }

  private publishedPath(relPath: string): string {
    return underRoot(this.outDir, relPath);
  }

  // Stage bytes held whole: a hard link when the published copy has them, else a new file, made
  // by the writer (in its thread when there is one). The decision is made here, synchronously.
  private async commit(relPath: string, folder: string, bytes: Uint8Array, index: PublishedIndex): Promise<void> {
    // A path the manifest does not list (every path of a first build) is new whatever its bytes:
    // their hash is needed only for the table, so the writer computes it beside the write.
    if (index !== 'unknown' && relPath !== paths.manifest() && index.sizeOf(relPath) === undefined) {
      const { hash } = await this.writeNew(relPath, folder, bytes, true);
      this.staged.set(relPath, bytes.length, hash!, true);
      return;
    }
    const hash = sha256Digest(bytes);
    const target = this.stagedPath(relPath);
    const published = this.publishedPath(relPath);
    // The manifest does not list itself: compare its bytes.
    const listed = index !== 'unknown' && relPath !== paths.manifest();
    const same = listed ? listedSame(index, relPath, published, bytes.length, hash) : sameBytes(published, bytes);
    // Same as listed in the published manifest: deferred to publish (top-level files are few: they
    // are linked now).
    if (same && listed && folder !== '') {
      this.staged.set(relPath, bytes.length, hash, false, true);
      return;
    }
    if (same) {
      this.ensureDir(folder);
      const copying = this.linkOrCopy(published, target);
      if (copying) await copying;
    } else {
      await this.writeNew(relPath, folder, bytes, false);
    }
    this.staged.set(relPath, bytes.length, hash, !same);
  }

  // A new file through the writer, with the folders on the way that no write has asked for yet.
  // Its content problem (checkOnWrite, on the bytes written) is recorded before this resolves.
  private async writeNew(relPath: string, folder: string, bytes: Uint8Array, hash: boolean): Promise<JobResult> {
    const dirs = this.foldersToQueue(folder);
    let result: JobResult;
    try {
      result = await this.writer.write({ dirs, relPath, bytes, hash });
    } catch (error) {
      // Not made after all: the next write into them asks again (and meets the error itself).
      for (const dir of dirs) {
        const id = this.folderClaims.find(lowerKey(dir));
        if (!this.folderClaims.has(id, MADE)) this.folderClaims.clear(id, QUEUED);
      }
      throw error;
    }
    for (const dir of dirs) this.folderClaims.set(this.folderClaims.find(lowerKey(dir)), MADE);
    if (result.problem !== undefined) this.staged.addProblem(relPath, result.problem);
    return result;
  }

  private async stream(relPath: string, folder: string, chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>, isAsync: boolean): Promise<void> {
    const index = this.index ?? (await this.publishedIndex());
    const compare = index === 'unknown' || relPath === paths.manifest();
    // Bytes gather in `block`; the file is opened when the first block is full, so a small file
    // goes the way of write() (one writeFileSync, or a link) and never has a handle open.
    const block = Buffer.allocUnsafe(BLOCK);
    let fill = 0;
    let file: StreamedFile | undefined;
    const open = (): StreamedFile => {
      this.assertOpen(relPath);
      this.ensureDir(folder);
      return new StreamedFile(this.stagedPath(relPath), compare ? this.publishedPath(relPath) : undefined, chunkCheckFor(relPath));
    };
    const push = (bytes: Uint8Array): void => {
      let from = 0;
      while (from < bytes.length) {
        if (fill === 0 && bytes.length - from >= BLOCK) {
          file ??= open();
          file.write(from === 0 ? bytes : bytes.subarray(from));
          return;
        }
        const n = Math.min(BLOCK - fill, bytes.length - from);
        block.set(n === bytes.length ? bytes : bytes.subarray(from, from + n), fill);
        fill += n;
        from += n;
        if (fill === BLOCK) {
          this.options.signal?.throwIfAborted();
          file ??= open();
          file.write(block);
          fill = 0;
        }
      }
    };
    // A high surrogate ending a string chunk waits for the next chunk, so a pair split between two
    // strings becomes the same 4 bytes as in the joined string (alone, it becomes U+FFFD as usual).
    let held = '';
    const add = (chunk: string | Uint8Array): void => {
      if (typeof chunk !== 'string') {
        if (held !== '') push(Buffer.from(held, 'utf8'));
        held = '';
        push(chunk);
        return;
      }
      let text = held === '' ? chunk : held + chunk;
      held = '';
      const last = text.charCodeAt(text.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) {
        held = text.slice(-1);
        text = text.slice(0, -1);
      }
      if (text !== '') push(Buffer.from(text, 'utf8'));
    };
    try {
      if (isAsync) for await (const chunk of chunks as AsyncIterable<string | Uint8Array>) add(chunk);
      else for (const chunk of chunks as Iterable<string | Uint8Array>) add(chunk);
      if (held !== '') push(Buffer.from(held, 'utf8'));
      if (file === undefined) {
        await this.commit(relPath, folder, block.subarray(0, fill), index);
        return;
      }
      if (fill > 0) file.write(block.subarray(0, fill));
      file.close();
    } catch (error) {
      file?.abandon();
      throw error;
    }

    const { size, hash } = file;
    const target = this.stagedPath(relPath);
    const published = this.publishedPath(relPath);
    const same = compare ? file.sameAsPublished() : listedSame(index as PublishedTable, relPath, published, size, hash);
    if (same) {
      unlinkSync(target);
      const copying = this.linkOrCopy(published, target);
      if (copying) await copying;
    } else {
      const problem = file.check?.finish(() => readFileSync(target));
      if (problem !== undefined) this.staged.addProblem(relPath, problem);
    }
    this.staged.set(relPath, size, hash, !same);
  }

  private assertOpen(relPath: string): void {
    if (this.closed) {
      throw new CalfeedError('BUILD', `Cannot write ${relPath}: this staging folder was already published or discarded.`);
    }
  }

  // Synchronous on purpose: the claim must be taken before the first await, so two concurrent
  // writes of one path cannot both pass the check. Returns the file's folder ('' for the top).
  private claim(relPath: string): string {
    this.assertOpen(relPath);
    this.options.signal?.throwIfAborted();
    assertSafeRelPath(relPath);
    this.checkedPublished.delete(relPath);
    const slash = relPath.lastIndexOf('/');
    const folder = slash < 0 ? '' : relPath.slice(0, slash);
    // Folders are claimed top down; a folder claimed under this exact spelling had all of its
    // parents claimed then, so the walk starts below the deepest such folder.
    const open: string[] = [];
    for (let f = folder; f !== ''; f = f.slice(0, Math.max(0, f.lastIndexOf('/')))) {
      const id = this.folderClaims.find(lowerKey(f));
      if (id >= 0 && this.spelledAs(id, f)) break;
      open.push(f);
    }
    // Everything is checked before anything is claimed, so a refused path claims nothing. (The
    // checks do not depend on one another: keys of different depths never match.)
    const keys = open.map(lowerKey);
    for (let i = open.length - 1; i >= 0; i--) {
      const file = this.fileClaim(keys[i]!);
      if (file !== undefined) throw collision(relPath, file);
      // Claimed, but not under this spelling (the walk above stopped at the one that was).
      const by = this.folderClaims.find(keys[i]!);
      if (by >= 0) throw collision(relPath, this.staged.pathAt(this.folderClaims.claimer(by)));
    }
    const key = lowerKey(relPath);
    const prior = this.fileClaim(key) ?? this.folderClaimer(key);
    if (prior !== undefined) throw collision(relPath, prior);
    // The slot reserve() gives the path, which is new.
    const slot = this.staged.slotCount();
    for (let i = open.length - 1; i >= 0; i--) this.folderClaims.add(keys[i]!, slot, keys[i] === open[i] ? LOWER_CASE : 0);
    if (key !== relPath) this.upperClaims.add(key, slot);
    this.staged.reserve(relPath);
    return folder;
  }

  /** Whether the folder claimed with this id was claimed under exactly this spelling. */
  private spelledAs(id: number, folder: string): boolean {
    // Most folders are lower case: no path is read back to tell.
    if (this.folderClaims.has(id, LOWER_CASE)) return folder === lowerKey(folder);
    return isFolderOf(folder, this.staged.pathAt(this.folderClaims.claimer(id)));
  }

  /** The file that claimed a lower-cased path, if any. */
  private fileClaim(key: string): string | undefined {
    if (this.staged.claimed(key)) return key;
    const id = this.upperClaims.find(key);
    return id < 0 ? undefined : this.staged.pathAt(this.upperClaims.claimer(id));
  }

  /** The first file in the folder claimed under a lower-cased path, if any. */
  private folderClaimer(key: string): string | undefined {
    const id = this.folderClaims.find(key);
    return id < 0 ? undefined : this.staged.pathAt(this.folderClaims.claimer(id));
  }

  // For the steps that make files in this thread (links, copies, streamed files): every folder on
  // the way was claimed; make those not known to be made yet, top down, each with a plain mkdir
  // whose parent is known to exist, never mkdir -p. A folder only queued for the writer is made
  // here too, rather than waiting for it: whichever thread comes second finds it made (EEXIST).
  private ensureDir(folder: string): void {
    const missing = this.unflagged(folder, MADE);
    if (missing.length === 0) return;
    makeDirs(this.dir, missing);
    for (const f of missing) this.folderClaims.set(this.folderClaims.find(lowerKey(f)), MADE | QUEUED);
  }

  // For a file the writer makes: the folders on the way it must make first (no write has asked
  // for them yet), marked QUEUED. The writer makes a batch in order, so a later file in one of
  // them finds it made.
  private foldersToQueue(folder: string): string[] {
    const missing = this.unflagged(folder, QUEUED);
    for (const f of missing) this.folderClaims.set(this.folderClaims.find(lowerKey(f)), QUEUED);
    return missing;
  }

  // The folders on the way to `folder` without `flag`, top down. A folder nobody claimed counts as
  // made: '' (the staging folder itself) is the only one asked.
  private unflagged(folder: string, flag: number): string[] {
    const missing: string[] = [];
    for (let f = folder; f !== ''; f = f.slice(0, Math.max(0, f.lastIndexOf('/')))) {
      const id = this.folderClaims.find(lowerKey(f));
      if (id < 0 || this.folderClaims.has(id, flag)) break;
      missing.push(f);
    }
    return missing.reverse();
  }

  // A hard link, synchronously; undefined when done. Without hard links: a copy with the old
  // mtime, returned as a promise.
  private linkOrCopy(published: string, target: string): Promise<void> | undefined {
    try {
      linkSync(published, target);
      return undefined;
    } catch (error) {
      // EEXIST: a bug (two writers); ENOENT: the published copy is gone. Neither means "no links".
      const code = errno(error);
      if (code === 'EEXIST' || code === 'ENOENT') throw error;
      if (!this.copied) {
        this.copied = true;
        this.options.onWarning?.(
          `Hard links are not available beside ${this.outDir} (${errno(error) ?? 'error'}); copying unchanged files and keeping their modification times.`,
        );
      }
    }
    return this.copies.run(async () => {
      const info = await stat(published);
      await copyFile(published, target, constants.COPYFILE_EXCL);
      await utimes(target, info.atime, info.mtime);
    });
  }
}

// Folder claim flags: claimed under its lower-case spelling; made in staging; asked of the writer
// (which makes it before any file after it), or made.
const LOWER_CASE = 1;
const MADE = 2;
const QUEUED = 4;

/** The folder of a relative path ('' for a top-level file). */
function folderOf(relPath: string): string {
  const slash = relPath.lastIndexOf('/');
  return slash < 0 ? '' : relPath.slice(0, slash);
}

/** The claim key for a path: the path itself when it is already lower case (no second string). */
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

async function readPublishedIndex(outDir: string): Promise<{ index: PublishedIndex; manifest?: Omit<Manifest, 'files'> }> {
  try {
    const { manifest, result } = await scanManifest(path.join(outDir, paths.manifest()), () => {
      const table = new FileTable();
      return { add: (f) => table.set(f.path, f.bytes, f.sha256), done: () => table };
    });
    return { index: result, manifest };
  } catch (error) {
    // No manifest: assertReplaceable() allows that only for a missing or (dot-files only) empty
    // --out, so no output file is published yet.
    if (errno(error) === 'ENOENT' || errno(error) === 'ENOTDIR') return { index: new FileTable() };
    return { index: 'unknown' }; // unreadable or damaged: fall back to comparing bytes
  }
}

/** Size of a regular file (lstat: a symlink does not count), or -1 when it is missing or not one. */
function publishedSize(file: string): number {
  try {
    const info = lstatSync(file);
    return info.isFile() ? info.size : -1;
  } catch (error) {
    const code = errno(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return -1;
    throw error;
  }
}

// Listed in the manifest with this hash, and still on disk with that size (not deleted by hand).
function listedSame(index: PublishedTable, relPath: string, published: string, size: number, hash: string | Uint8Array): boolean {
  return index.matches(relPath, size, hash) && publishedSize(published) === size;
}

// Compare with the published copy without reading it unless the sizes match.
function sameBytes(published: string, bytes: Uint8Array): boolean {
  if (publishedSize(published) !== bytes.length) return false;
  try {
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).equals(readFileSync(published));
  } catch (error) {
    const code = errno(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}

/** Staged files are written in blocks of this size. */
const BLOCK = 1 << 16;
/** Strings this long (UTF-16 code units) are streamed in slices; shorter ones become one Buffer. */
const BIG_STRING = 4 << 20;
const SLICE = 1 << 20;

/** A large string in slices of SLICE code units (writeChunks rejoins a pair cut in two). */
function* slicesOf(text: string): Generator<string> {
  for (let from = 0; from < text.length; from += SLICE) yield text.slice(from, from + SLICE);
}

/**
 * A staged file being written block by block: its size and SHA-256 so far, the content check fed
 * the same bytes, and (when there is no manifest to trust) a running comparison with the
 * published copy, read alongside, so an unchanged file is never read back afterwards.
 */
class StreamedFile {
  size = 0;
  private readonly hasher: Hash = createHash('sha256');
  private digest: Buffer | undefined;
  private fd: number | undefined;
  // The published copy, open while it still equals what was written; -1 once it differs (or is
  // absent, or closed). `matching` stays true after close() if every byte matched.
  private published = -1;
  private publishedBytes = 0;
  private matching = false;
  private scratch: Buffer | undefined;

  constructor(
    private readonly target: string,
    published: string | undefined,
    readonly check: ChunkCheck | undefined,
  ) {
    this.fd = openSync(target, 'wx');
    if (published === undefined) return;
    try {
      const fd = openSync(published, 'r');
      const info = fstatSync(fd);
      if (info.isFile()) {
        this.published = fd;
        this.publishedBytes = info.size;
        this.matching = true;
      } else closeSync(fd);
    } catch (error) {
      const code = errno(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EISDIR') {
        this.abandon();
        throw error;
      }
    }
  }

  get hash(): Buffer {
    this.digest ??= this.hasher.digest();
    return this.digest;
  }

  write(bytes: Uint8Array): void {
    this.hasher.update(bytes);
    this.check?.push(bytes);
    try {
      for (let at = 0; at < bytes.length; ) at += writeSync(this.fd!, bytes, at, bytes.length - at);
    } catch (error) {
      throw withPath(error, this.target);
    }
    if (this.published >= 0) this.compare(bytes);
    this.size += bytes.length;
  }

  /** Whether every byte written equals the published copy, which has no more bytes. */
  sameAsPublished(): boolean {
    return this.matching && this.publishedBytes === this.size;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.dropPublished();
  }

  /** After a failure: close everything and remove the partial file. */
  abandon(): void {
    try {
      this.close();
    } catch {
      // already failing
    }
    try {
      unlinkSync(this.target);
    } catch {
      // already gone
    }
  }

  private compare(bytes: Uint8Array): void {
    if (this.size + bytes.length > this.publishedBytes) return this.differs();
    this.scratch ??= Buffer.allocUnsafe(BLOCK);
    const scratch = this.scratch;
    for (let done = 0; done < bytes.length; ) {
      const want = Math.min(scratch.length, bytes.length - done);
      let got = 0;
      while (got < want) {
        const n = readSync(this.published, scratch, got, want - got, this.size + done + got);
        if (n === 0) return this.differs();
        got += n;
      }
      if (!scratch.subarray(0, want).equals(bytes.subarray(done, done + want))) return this.differs();
      done += want;
    }
  }

  private differs(): void {
    this.matching = false;
    this.dropPublished();
  }

  private dropPublished(): void {
    if (this.published >= 0) closeSync(this.published);
    this.published = -1;
  }
}
