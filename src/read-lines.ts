// Reading a big file (the build store, the manifest) line by line without holding it whole.

import { createReadStream, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/**
 * Feed each line of a UTF-8 file to `onLine` until it returns false. `maxPartial()` bounds how long
 * an unfinished line may grow (a file in another layout has one huge line). Returns whether every
 * line was accepted, and the text after the last newline.
 */
export async function readLines(file: string, onLine: (text: string) => boolean, maxPartial: () => number): Promise<{ accepted: boolean; tail: string }> {
  const lines = new LineSplitter(onLine, maxPartial);
  // 64 KB reads: each decoded chunk stays a young object; a megabyte one is a fresh allocation of
  // its own (new pages from the system) each time.
  const stream = createReadStream(file, { highWaterMark: 1 << 16 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) if (!lines.push(chunk)) return { accepted: false, tail: '' };
  } finally {
    stream.destroy();
  }
  return { accepted: true, tail: lines.end() };
}

/** readLines on bytes read by the caller, a chunk at a time (one read that does more than split lines). */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private rest = '';

  constructor(
    private readonly onLine: (text: string) => boolean,
    private readonly maxPartial: () => number,
  ) {}

  /** Feed the next chunk; false once a line was refused or an unfinished line grew too long. */
  push(chunk: Buffer): boolean {
    const text = this.rest + this.decoder.write(chunk);
    let from = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
      if (!this.onLine(text.slice(from, nl))) return false;
      from = nl + 1;
    }
    this.rest = text.slice(from);
    return this.rest.length <= this.maxPartial();
  }

  /** After the last chunk: the text after the last newline. */
  end(): string {
    return this.rest + this.decoder.end();
  }
}

/**
 * A file read a line at a time as bytes, each with its offset, where the caller may skip a
 * stretch of bytes without reading it (the build store's events, which are read by offset).
 * Synchronous: it runs before the build starts anything else.
 */
export class ByteLines {
  private buf = Buffer.allocUnsafe(1 << 20);
  // File offset of buf[0]; the unread bytes are buf[start, end).
  private base = 0;
  private start = 0;
  private end = 0;

  constructor(
    private readonly fd: number,
    at = 0,
  ) {
    this.base = at;
  }

  /** The offset of the next unread byte. */
  get offset(): number {
    return this.base + this.start;
  }

  /**
   * The next line without its '\n' (a view, valid until the next call); undefined at the end of
   * the file, when the file ends without a '\n', or when the line would be longer than `max` bytes.
   */
  line(max: number): Buffer | undefined {
    let from = this.start;
    for (;;) {
      const nl = this.buf.subarray(0, this.end).indexOf(10, from);
      if (nl >= 0) {
        const line = this.buf.subarray(this.start, nl);
        this.start = nl + 1;
        return line;
      }
      const searched = this.end - this.start;
      if (searched > max || !this.more()) return undefined;
      from = this.start + searched;
    }
  }

  /** Pass over `n` bytes. */
  skip(n: number): void {
    if (this.start + n <= this.end) {
      this.start += n;
      return;
    }
    this.base = this.offset + n;
    this.start = this.end = 0;
  }

  // Moves the unread bytes to the front (growing the buffer when they fill it) and reads more;
  // false at the end of the file.
  private more(): boolean {
    const unread = this.end - this.start;
    if (unread === this.buf.length) {
      const grown = Buffer.allocUnsafe(this.buf.length * 2);
      this.buf.copy(grown, 0, this.start, this.end);
      this.buf = grown;
    } else this.buf.copy(this.buf, 0, this.start, this.end);
    this.base += this.start;
    this.start = 0;
    this.end = unread;
    const n = readSync(this.fd, this.buf, this.end, this.buf.length - this.end, this.base + this.end);
    this.end += n;
    return n > 0;
  }
}
