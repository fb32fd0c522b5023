// Regrouping a file's chunks (strings and bytes, of any sizes) into the blocks staging writes, so
// a streamed file is written in a few large writes and a small one is still held whole at the end
// (and staged like any written file: one write, or a link to the published copy).

import { BLOCK } from './streamed-file.js';

/** Strings this long (UTF-16 code units) are streamed in slices; shorter ones become one Buffer. */
export const BIG_STRING = 4 << 20;
const SLICE = 1 << 20;

/** A large string in slices of SLICE code units (ChunkBlocks rejoins a pair cut in two). */
export function* slicesOf(text: string): Generator<string> {
  for (let from = 0; from < text.length; from += SLICE) yield text.slice(from, from + SLICE);
}

/** Whether write() was given text in pieces rather than a string or bytes. */
export function isPieces(data: string | Uint8Array | readonly string[]): data is readonly string[] {
  return Array.isArray(data);
}

/** The UTF-16 length of text in pieces (compared with BIG_STRING). */
export function textLength(pieces: readonly string[]): number {
  let length = 0;
  for (const piece of pieces) length += piece.length;
  return length;
}

/**
 * The UTF-8 bytes of the pieces' concatenation, encoded into one Buffer without making that
 * string: joining a megabyte feed costs a copy, and encoding the joined string another.
 */
export function utf8Joined(pieces: readonly string[]): Buffer {
  // A surrogate pair split between two pieces is one character only once they are joined.
  if (pieces.some((piece, i) => i < pieces.length - 1 && isHighSurrogate(piece.charCodeAt(piece.length - 1)))) return Buffer.from(pieces.join(''), 'utf8');
  let total = 0;
  for (const piece of pieces) total += Buffer.byteLength(piece, 'utf8');
  const bytes = Buffer.allocUnsafe(total);
  let at = 0;
  for (const piece of pieces) at += bytes.write(piece, at, 'utf8');
  return bytes;
}

const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;

/**
 * Chunks in, blocks of BLOCK bytes out. `out` is given each full block (`gathered`: the same
 * buffer each time, to be used before returning) or, at a block boundary, a piece of at least a
 * block, passed on as it came.
 */
export class ChunkBlocks {
  private readonly block = Buffer.allocUnsafe(BLOCK);
  private fill = 0;
  // A high surrogate ending a string chunk waits for the next chunk, so a pair split between two
  // strings becomes the same 4 bytes as in the joined string (alone, it becomes U+FFFD as usual).
  private held = '';

  constructor(private readonly out: (bytes: Uint8Array, gathered: boolean) => void) {}

  add(chunk: string | Uint8Array): void {
    if (typeof chunk !== 'string') {
      if (this.held !== '') this.push(Buffer.from(this.held, 'utf8'));
      this.held = '';
      this.push(chunk);
      return;
    }
    let text = this.held === '' ? chunk : this.held + chunk;
    this.held = '';
    if (isHighSurrogate(text.charCodeAt(text.length - 1))) {
      this.held = text.slice(-1);
      text = text.slice(0, -1);
    }
    if (text !== '') this.push(Buffer.from(text, 'utf8'));
  }

  /** After the last chunk: the bytes gathered since the last block (all of them when no block filled). */
  end(): Uint8Array {
    if (this.held !== '') this.push(Buffer.from(this.held, 'utf8'));
    this.held = '';
    return this.block.subarray(0, this.fill);
  }

  private push(bytes: Uint8Array): void {
    let from = 0;
    while (from < bytes.length) {
      if (this.fill === 0 && bytes.length - from >= BLOCK) {
        this.out(from === 0 ? bytes : bytes.subarray(from), false);
        return;
      }
      const n = Math.min(BLOCK - this.fill, bytes.length - from);
      this.block.set(n === bytes.length ? bytes : bytes.subarray(from, from + n), this.fill);
      this.fill += n;
      from += n;
      if (this.fill === BLOCK) {
        this.out(this.block, true);
        this.fill = 0;
      }
    }
  }
}
