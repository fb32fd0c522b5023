// A set of strings numbered 0, 1, 2... in insertion order, for the big per-file and per-event tables
// of a build. Unlike a Map<string, number>, a key costs only its UTF-8 bytes in shared pages and a
// few typed-array bytes, and no JavaScript object, so the garbage collector has nothing per key to
// trace. Open addressing with linear probing over a power-of-two slot array; no removal.

import { PagedArray, PagedBytes } from './paged.js';

const EMPTY = 0;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Strings to dense ids (insertion order) and back; no removal. */
export class StringIndex {
  private readonly bytes = new PagedBytes();
  // Key i is the lengths[i] bytes at addresses[i] of `bytes`.
  private readonly addresses = new PagedArray((n) => new Float64Array(n));
  private readonly lengths = new PagedArray((n) => new Uint32Array(n));
  private readonly hashes = new PagedArray((n) => new Uint32Array(n));
  // id + 1 per slot (0: empty).
  private slots = new Int32Array(2048);
  private count = 0;
  // The last key looked up, encoded: get() then add() of one key encodes it once.
  private scratch = new Uint8Array(256);
  private scratchKey: string | undefined;
  private scratchLength = 0;
  private scratchHash = 0;

  get size(): number {
    return this.count;
  }

  /** The id of key, or -1. */
  get(key: string): number {
    this.encode(key);
    return this.find();
  }

  /** The id of key, added at the end when new. */
  add(key: string): number {
    this.encode(key);
    const found = this.find();
    if (found >= 0) return found;
    const id = this.count++;
    if (this.count * 2 > this.slots.length) this.rehash();
    this.addresses.set(id, this.bytes.append(this.scratch, this.scratchLength));
    this.lengths.set(id, this.scratchLength);
    this.hashes.set(id, this.scratchHash);
    this.place(id, this.scratchHash);
    return id;
  }

  /** The key with this id (a new string each call). */
  keyAt(id: number): string {
    if (id < 0 || id >= this.count) throw new RangeError(`no key ${id} (size ${this.count})`);
    return this.bytes.text(this.addresses.get(id), this.lengths.get(id));
  }

  private find(): number {
    const mask = this.slots.length - 1;
    for (let s = this.scratchHash & mask; ; s = (s + 1) & mask) {
      const entry = this.slots[s]!;
      if (entry === EMPTY) return -1;
      const id = entry - 1;
      if (this.hashes.get(id) === this.scratchHash && this.equalsScratch(id)) return id;
    }
  }

  private equalsScratch(id: number): boolean {
    return this.lengths.get(id) === this.scratchLength && this.bytes.equals(this.addresses.get(id), this.scratch, this.scratchLength);
  }

  private place(id: number, hash: number): void {
    const mask = this.slots.length - 1;
    let s = hash & mask;
    while (this.slots[s] !== EMPTY) s = (s + 1) & mask;
    this.slots[s] = id + 1;
  }

  // UTF-8 bytes of key into scratch, with their FNV-1a hash; skipped when key was the last one.
  private encode(key: string): void {
    if (key === this.scratchKey) return;
    // Pure ASCII (every output path) is copied code unit by code unit: no encoder call.
    let ascii = key.length <= this.scratch.length;
    if (ascii) {
      const scratch = this.scratch;
      for (let k = 0; k < key.length; k++) {
        const c = key.charCodeAt(k);
        if (c >= 0x80) {
          ascii = false;
          break;
        }
        scratch[k] = c;
      }
    }
    let length = key.length;
    if (!ascii) {
      const needed = Buffer.byteLength(key, 'utf8');
      if (needed > this.scratch.length) this.scratch = new Uint8Array(Math.max(needed, this.scratch.length * 2));
      length = Buffer.from(this.scratch.buffer, this.scratch.byteOffset, this.scratch.length).write(key, 'utf8');
    }
    let hash = FNV_OFFSET;
    const scratch = this.scratch;
    for (let k = 0; k < length; k++) hash = Math.imul(hash ^ scratch[k]!, FNV_PRIME);
    this.scratchKey = key;
    this.scratchLength = length;
    this.scratchHash = hash >>> 0;
  }

  // The slot array stays at most half full: twice as many slots, every key placed again.
  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let id = 0; id < this.count - 1; id++) this.place(id, this.hashes.get(id));
  }
}
