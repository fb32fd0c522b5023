// Growable typed arrays in fixed-size pages, for the per-file and per-key tables of a large build:
// unlike an array that doubles when full, only the last page has room to spare, and nothing is copied.

type Page = Uint8Array<ArrayBuffer> | Int32Array<ArrayBuffer> | Uint32Array<ArrayBuffer> | Float64Array<ArrayBuffer>;

// 4,096 elements a page: 32 KB of numbers, 128 KB of 32-byte digests; a small table allocates one.
const SHIFT = 12;
const MASK = (1 << SHIFT) - 1;

/** Elements of `width` numbers each (a 32-byte digest: width 32), numbered from 0; unset ones read 0. */
export class PagedArray<P extends Page> {
  private readonly pages: P[] = [];

  constructor(
    private readonly make: (length: number) => P,
    private readonly width = 1,
  ) {}

  /** Number `k` of element `i`. */
  get(i: number, k = 0): number {
    const page = this.pages[i >>> SHIFT];
    return page === undefined ? 0 : page[(i & MASK) * this.width + k]!;
  }

  /** Sets number `k` of element `i`, adding pages up to it. */
  set(i: number, value: number, k = 0): void {
    this.page(i)[(i & MASK) * this.width + k] = value;
  }

  /** Element `i` as a view of its `width` numbers (it stays valid: pages never move). */
  view(i: number): P {
    const at = (i & MASK) * this.width;
    return this.page(i).subarray(at, at + this.width) as P;
  }

  private page(i: number): P {
    const p = i >>> SHIFT;
    while (this.pages.length <= p) this.pages.push(this.make(this.width << SHIFT));
    return this.pages[p]!;
  }
}

// 64 KB pages of bytes; a longer item gets a page of its own size.
const BYTE_PAGE = 1 << 16;
// An item's address: page * 2^32 + offset (exact in a double up to 2^21 pages).
const PAGE_STRIDE = 2 ** 32;

/** Byte strings appended end to end in pages (none split across two), each known by its address and length. */
export class PagedBytes {
  private readonly pages: Buffer[] = [];
  // Bytes used of the last page.
  private used = 0;

  /** Copies `bytes[0, length)` in; returns their address. */
  append(bytes: Uint8Array, length = bytes.length): number {
    if (length > BYTE_PAGE) {
      this.pages.push(Buffer.from(bytes.subarray(0, length)));
      // Nothing more goes into that page.
      this.used = BYTE_PAGE;
      return (this.pages.length - 1) * PAGE_STRIDE;
    }
    if (this.pages.length === 0 || this.used + length > BYTE_PAGE) {
      this.pages.push(Buffer.alloc(BYTE_PAGE));
      this.used = 0;
    }
    const at = this.used;
    this.pages[this.pages.length - 1]!.set(bytes.subarray(0, length), at);
    this.used += length;
    return (this.pages.length - 1) * PAGE_STRIDE + at;
  }

  /** Whether the `length` bytes at `address` are `bytes[0, length)`. */
  equals(address: number, bytes: Uint8Array, length: number): boolean {
    const page = this.pages[Math.floor(address / PAGE_STRIDE)]!;
    const at = address % PAGE_STRIDE;
    for (let k = 0; k < length; k++) if (page[at + k] !== bytes[k]) return false;
    return true;
  }

  /** The `length` bytes at `address`, read as UTF-8 (a new string). */
  text(address: number, length: number): string {
    const at = address % PAGE_STRIDE;
    return this.pages[Math.floor(address / PAGE_STRIDE)]!.toString('utf8', at, at + length);
  }
}

/** A byte element (view()) as hex, without copying it first. */
export function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');
}
