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
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
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
