// One staged file written block by block as its chunks arrive (Staging.writeChunks), hashed and
// content-checked on the fly, so a file of any size (a 100 MB combined calendar.ics) is never held
// whole.

import { closeSync, fstatSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { createHash, type Hash } from 'node:crypto';
import { withPath } from '../io-error.js';
import type { ChunkCheck } from './content-check.js';
import { errno } from './fs-util.js';

/** Staged files are written in blocks of this size. */
export const BLOCK = 1 << 16;

/**
 * A staged file being written block by block: its size and SHA-256 so far, the content check fed
 * the same bytes, and (when there is no manifest to trust) a running comparison with the
 * published copy, read alongside, so an unchanged file is never read back afterwards.
 */
export class StreamedFile {
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
