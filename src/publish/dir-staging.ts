// Staging in a folder: for each output file, whether it is new (written, by the writer thread),
// the published copy (linked from --out, at publish when it is in a subfolder) or neither yet
// (claimed, being streamed). See staging.ts for the contract.

import { readFileSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { CalfeedError } from '../errors.js';
import { paths } from '../paths.js';
import { BIG_STRING, ChunkBlocks, isPieces, slicesOf, textLength, utf8Joined } from './chunk-blocks.js';
import { chunkCheckFor } from './content-check.js';
import { FileTable } from './file-table.js';
import { errno, sha256Digest } from './fs-util.js';
import { KeptLinks } from './kept-links.js';
import type { Manifest } from './manifest.js';
import { listedSame, type PublishedIndex, publishedIndexOf, publishedSize, sameBytes } from './published.js';
import type { PublishedManifest } from './published-manifest.js';
import { assertSafeRelPath } from './rel-path.js';
import { SpareHold } from './spare.js';
import type { Staging, StagingOptions } from './staging.js';
import { folderOf, StagingClaims } from './staging-claims.js';
import { StreamedFile } from './streamed-file.js';
import { type JobResult, underRoot } from './write-job.js';
import { createWriter, type StagingWriter } from './writer.js';

type Chunks = Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>;

export class DirStaging implements Staging {
  // Per file: a slot in a compact table (the path string is the caller's; see FileTable), taken
  // when the path is claimed and listed once its bytes are staged.
  private readonly staged = new FileTable();
  private readonly claims: StagingClaims;
  // Paths isPublished() found listed and on disk with their listed size, so the keep() that
  // follows does not lstat the published file a second time. Emptied as the paths are claimed.
  private readonly checkedPublished = new Set<string>();
  private readonly links: KeptLinks;
  private closed = false;
  private published: Promise<PublishedIndex> | undefined;
  private index: PublishedIndex | undefined;
  private indexManifest: Omit<Manifest, 'files'> | undefined; // without its file list, when the index came from it
  // Makes new files (and their folders) in a writer thread; see writer.ts. Links, folders for
  // them and streamed files are made synchronously here.
  private readonly writer: StagingWriter;
  readonly writerThread: boolean;
  // When the folder was the spare: which of --out's files it holds (spare.ts).
  readonly spare: SpareHold | undefined;

  constructor(
    readonly dir: string,
    readonly outDir: string,
    private readonly options: StagingOptions,
    readonly publishedRead: PublishedManifest,
    notHeld?: Set<string>,
  ) {
    this.spare = notHeld && new SpareHold(dir, notHeld);
    this.claims = new StagingClaims(dir, this.staged);
    this.links = new KeptLinks(outDir, options.onWarning);
    this.writer = createWriter(dir, { signal: options.signal, thread: options.writerThread });
    this.writerThread = this.writer.threaded;
  }

  /** Whether a kept file had to be copied (no hard links here): its bytes are new on disk too. */
  get copiedKept(): boolean {
    return this.links.copied;
  }

  /** Refuse further writes; resolves once the writer has done what it was given and stopped. */
  close(): Promise<void> {
    this.closed = true;
    return this.writer.stop();
  }

  async write(relPath: string, data: string | Uint8Array | readonly string[]): Promise<void> {
    const folder = this.claim(relPath);
    // Large text is streamed a slice at a time rather than copied into one Buffer.
    if (typeof data === 'string' && data.length >= BIG_STRING) return this.stream(relPath, folder, slicesOf(data), false);
    if (isPieces(data) && textLength(data) >= BIG_STRING) return this.stream(relPath, folder, data, false);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : isPieces(data) ? utf8Joined(data) : data;
    const index = this.index ?? (await this.publishedIndex());
    await this.commit(relPath, folder, bytes, index);
  }

  async writeChunks(relPath: string, chunks: Chunks): Promise<void> {
    const folder = this.claim(relPath);
    await this.stream(relPath, folder, chunks, Symbol.asyncIterator in chunks);
  }

  async keep(relPath: string): Promise<void> {
    // Whether the published file was already found with its listed size.
    const checked = this.publishedRead.foundAsListed || this.checkedPublished.delete(relPath);
    const folder = this.claim(relPath);
    const target = this.stagedPath(relPath);
    const published = this.publishedPath(relPath);
    const index = this.index ?? (await this.publishedIndex());
    const size = index === 'unknown' ? undefined : index.sizeOf(relPath);
    if (size !== undefined && (checked || publishedSize(published) === size)) {
      const hash = (index as FileTable).hashOf(relPath)!;
      if (folder !== '') {
        this.staged.set(relPath, size, hash, false, true);
        return;
      }
      const copying = this.spare?.holds(relPath, index) ? undefined : this.links.linkOrCopy(published, target);
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
    this.claims.ensureDir(folder);
    this.spare?.vacate(relPath, index);
    const copying = this.links.linkOrCopy(published, target);
    if (copying) await copying;
    this.staged.set(relPath, bytes.length, sha256Digest(bytes), false);
  }

  files(): FileTable {
    return this.staged;
  }

  async readPublished(relPath: string): Promise<Buffer | undefined> {
    assertSafeRelPath(relPath);
    // Synchronous: mirror files of a few KB, where promise round trips cost more than the read.
    // A deferred file is the published one (staging has nothing at its path yet).
    try {
      const slot = this.staged.slotOf(relPath);
      return readFileSync(slot >= 0 && !this.staged.deferredAt(slot) ? this.stagedPath(relPath) : this.publishedPath(relPath));
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
    if (this.publishedRead.foundAsListed) return true;
    if (publishedSize(path.join(this.outDir, relPath)) !== size) return false;
    this.checkedPublished.add(relPath);
    return true;
  }

  async publishedHash(relPath: string): Promise<string | undefined> {
    const index = this.index ?? (await this.publishedIndex());
    return index === 'unknown' ? undefined : index.get(relPath)?.sha256;
  }

  async publishedManifest(): Promise<Omit<Manifest, 'files'> | undefined> {
    await this.publishedIndex();
    return this.indexManifest;
  }

  /** --out's files as its manifest listed them at the start; undefined without a readable manifest. */
  async publishedListing(): Promise<FileTable | undefined> {
    const index = this.index ?? (await this.publishedIndex());
    return index !== 'unknown' && this.indexManifest !== undefined ? index : undefined;
  }

  /** At publish, before verify: link (or copy) every deferred file from --out, making staging complete. */
  async linkKept(): Promise<void> {
    this.assertOpen('the kept files');
    // Every write has resolved by now (publish comes after them); the thread is not needed again.
    await this.writer.stop();
    const index = this.index ?? (await this.publishedIndex());
    const copying: Array<Promise<void>> = [];
    for (const { relPath, slot, listed } of this.staged.slots()) {
      if (!listed || !this.staged.deferredAt(slot) || this.spare?.holds(relPath, index)) continue;
      this.claims.ensureDir(folderOf(relPath));
      let copy: Promise<void> | undefined;
      try {
        copy = this.links.linkOrCopy(this.publishedPath(relPath), this.stagedPath(relPath));
      } catch (error) {
        throw this.missingPublished(relPath, error);
      }
      if (copy === undefined) continue;
      // Copies (no hard links) go through the limiter; a batch at a time keeps the promises few.
      copying.push(copy.catch((error: unknown) => Promise.reject(this.missingPublished(relPath, error))));
      if (copying.length >= 256) await Promise.all(copying.splice(0));
    }
    await Promise.all(copying);
    await this.spare?.dropGone(index, this.staged);
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

  // What --out holds, from its manifest.json, read once a build. A kept file is trusted on its
  // listed hash and its size on disk (a file edited by hand to another size is read and hashed).
  private publishedIndex(): Promise<PublishedIndex> {
    this.published ??= this.publishedRead.read().then((read) => {
      const { index, manifest } = publishedIndexOf(read);
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
    if (same && !this.spare?.holds(relPath, index)) {
      this.claims.ensureDir(folder);
      const copying = this.links.linkOrCopy(published, target);
      if (copying) await copying;
    } else if (!same) {
      this.spare?.vacate(relPath, index);
      await this.writeNew(relPath, folder, bytes, false);
    }
    this.staged.set(relPath, bytes.length, hash, !same);
  }

  // A new file through the writer, with the folders on the way that no write has asked for yet.
  // Its content problem (checkOnWrite, on the bytes written) is recorded before this resolves.
  private async writeNew(relPath: string, folder: string, bytes: Uint8Array, hash: boolean): Promise<JobResult> {
    const dirs = this.claims.foldersToQueue(folder);
    let result: JobResult;
    try {
      result = await this.writer.write({ dirs, relPath, bytes, hash });
    } catch (error) {
      this.claims.queuedDone(dirs, false);
      throw error;
    }
    this.claims.queuedDone(dirs, true);
    if (result.problem !== undefined) this.staged.addProblem(relPath, result.problem);
    return result;
  }

  // Stage chunks: gathered into blocks; a file that never fills one is staged as bytes held whole
  // (commit), a larger one written here block by block, then linked instead if it equals the
  // published copy.
  private async stream(relPath: string, folder: string, chunks: Chunks, isAsync: boolean): Promise<void> {
    const index = this.index ?? (await this.publishedIndex());
    // Without a manifest to trust, the published copy is compared as the bytes are written.
    const compare = index === 'unknown' || relPath === paths.manifest();
    let file: StreamedFile | undefined;
    const blocks = new ChunkBlocks((bytes, gathered) => {
      if (gathered) this.options.signal?.throwIfAborted();
      file ??= this.openStreamed(relPath, folder, compare, index);
      file.write(bytes);
    });
    try {
      if (isAsync) for await (const chunk of chunks as AsyncIterable<string | Uint8Array>) blocks.add(chunk);
      else for (const chunk of chunks as Iterable<string | Uint8Array>) blocks.add(chunk);
      const rest = blocks.end();
      if (file === undefined) {
        await this.commit(relPath, folder, rest, index);
        return;
      }
      if (rest.length > 0) file.write(rest);
      file.close();
    } catch (error) {
      file?.abandon();
      throw error;
    }
    await this.settleStreamed(relPath, file, compare ? undefined : (index as FileTable));
  }

  // Opened when the first block is full, so a small file never has a handle open.
  private openStreamed(relPath: string, folder: string, compare: boolean, index: PublishedIndex): StreamedFile {
    this.assertOpen(relPath);
    this.claims.ensureDir(folder);
    this.spare?.vacate(relPath, index);
    return new StreamedFile(this.stagedPath(relPath), compare ? this.publishedPath(relPath) : undefined, chunkCheckFor(relPath));
  }

  // A streamed file, written and closed: replaced by a link when it equals the published copy
  // (compared as written, or by the manifest's `listing`), else its content check is recorded.
  private async settleStreamed(relPath: string, file: StreamedFile, listing: FileTable | undefined): Promise<void> {
    const { size, hash } = file;
    const target = this.stagedPath(relPath);
    const published = this.publishedPath(relPath);
    const same = listing === undefined ? file.sameAsPublished() : listedSame(listing, relPath, published, size, hash);
    if (same) {
      unlinkSync(target);
      const copying = this.links.linkOrCopy(published, target);
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
    return this.claims.claim(relPath);
  }
}
