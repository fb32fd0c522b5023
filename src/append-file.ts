// An append-only scratch file for what a build must carry to its end without holding it in memory:
// the event spool (read back by offset) and the crawl-cache entries (read back line by line).
// Appends are gathered in one buffer and written a megabyte at a time. Synchronous on purpose: the
// writes are small and frequent, and the promise API's round trips cost more than the write.

import { closeSync, copyFileSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { withPath } from './io-error.js';
import { LineSplitter } from './read-lines.js';

const FLUSH_BYTES = 1 << 20;

/** A new file (it must not exist), private to the build; deleted by dispose(). */
export class AppendFile {
  private fd: number | undefined;
  private written = 0;
  // Bytes appended but not yet written: block[0, fill). Made on the first append.
  private block: Buffer | undefined;
  private fill = 0;

  constructor(readonly file: string) {
    this.fd = openSync(file, 'wx+', 0o600);
  }

  /** Bytes appended so far: the offset the next append starts at. */
  get size(): number {
    return this.written + this.fill;
  }

  /** Append bytes (a string as UTF-8); returns their length in bytes. */
  append(data: Uint8Array | string): number {
    this.openFd();
    const length = typeof data === 'string' ? Buffer.byteLength(data, 'utf8') : data.byteLength;
    if (this.fill + length > FLUSH_BYTES) this.flush();
    if (length > FLUSH_BYTES) {
      // Bigger than the block: written at once, as it is.
      this.writeOut(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
      return length;
    }
    const block = (this.block ??= Buffer.allocUnsafe(FLUSH_BYTES));
    if (typeof data !== 'string') block.set(data, this.fill);
    else if (block.write(data, this.fill, 'utf8') !== length) throw new Error(`internal: ${this.file}: UTF-8 length mismatch`);
    this.fill += length;
    return length;
  }

  /** `length` bytes from offset `at` (in `into`, when given). */
  read(at: number, length: number, into?: Buffer): Buffer {
    this.flush();
    const bytes = readAt(this.openFd(), at, length, into);
    if (!bytes) throw new Error(`internal: ${this.file} ended early`);
    return bytes;
  }

  /** The text appended so far, a line at a time (without the '\n'), read a megabyte at a time. */
  *lines(): Generator<string> {
    this.flush();
    const found: string[] = [];
    const splitter = new LineSplitter((line) => found.push(line) > 0, () => Infinity);
    const buffer = Buffer.allocUnsafe(FLUSH_BYTES);
    for (let at = 0; at < this.written; at += FLUSH_BYTES) {
      const bytes = readAt(this.openFd(), at, Math.min(FLUSH_BYTES, this.written - at), buffer);
      if (!bytes) throw new Error(`internal: ${this.file} ended early`);
      splitter.push(bytes);
      yield* found.splice(0);
    }
    const rest = splitter.end();
    if (rest !== '') yield rest;
  }

  /** Close and delete the file (idempotent). */
  dispose(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    this.block = undefined;
    this.fill = 0;
    try {
      unlinkSync(this.file);
    } catch {
      // Already gone with its staging folder.
    }
  }

  /** Writes out, closes and moves the file to `dest` (copied across file systems); offsets stay valid. */
  persist(dest: string): void {
    this.flush();
    closeSync(this.openFd());
    this.fd = undefined;
    this.block = undefined;
    try {
      renameSync(this.file, dest);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      copyFileSync(this.file, dest);
      unlinkSync(this.file);
    }
  }

  /** Write what is gathered to the file. */
  private flush(): void {
    if (this.fill === 0) return;
    const fill = this.fill;
    this.fill = 0;
    this.writeOut(this.block!.subarray(0, fill));
  }

  private writeOut(data: Uint8Array): void {
    const fd = this.openFd();
    let done = 0;
    try {
      while (done < data.length) done += writeSync(fd, data, done, data.length - done, this.written + done);
    } catch (error) {
      throw withPath(error, this.file);
    }
    this.written += data.length;
  }

  private openFd(): number {
    if (this.fd === undefined) throw new Error(`internal: ${this.file} was already disposed`);
    return this.fd;
  }
}

/** `length` bytes of an open file from offset `at`, in `buffer` (a new one by default); undefined when the file ends before them. */
export function readAt(fd: number, at: number, length: number, buffer: Buffer = Buffer.allocUnsafe(length)): Buffer | undefined {
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buffer, done, length - done, at + done);
    if (n === 0) return undefined;
    done += n;
  }
  return buffer.length === length ? buffer : buffer.subarray(0, length);
}

let scratchBuffer = Buffer.alloc(0);

/** This thread's reused buffer of at least `length` bytes: one per read fragments malloc's heap. */
export function scratch(length: number): Buffer {
  if (scratchBuffer.length < length) scratchBuffer = Buffer.allocUnsafe(Math.max(length, 64 * 1024));
  return scratchBuffer;
}
