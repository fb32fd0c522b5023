// A set of strings numbered 0, 1, 2... in insertion order, for the big per-file and per-event
// tables of a build (300,000 output paths at 100,000 events). A Map<string, number> costs its
// entry plus the key string (a 55-character path held as a cons string and its flattened copy, or
// as a slice that keeps a whole megabyte read buffer alive): about 140 bytes a path. Here a key
// costs its UTF-8 bytes in one shared arena plus 16 bytes of typed arrays, and no JavaScript
// object at all, so the garbage collector has nothing per key to trace.
//
// Open addressing with linear probing over a power-of-two slot array; keys are never removed.

const EMPTY = 0;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Strings to dense ids (insertion order) and back; no removal. */
export class StringIndex {
  private arena = new Uint8Array(1 << 16);
  private used = 0;
  // Key i is arena[starts[i], starts[i + 1]).
  private starts = new Float64Array(1025);
  private hashes = new Uint32Array(1024);
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
    this.reserve(this.count, this.scratchLength);
    this.arena.set(this.scratch.subarray(0, this.scratchLength), this.used);
    this.used += this.scratchLength;
    this.starts[id + 1] = this.used;
    this.hashes[id] = this.scratchHash;
    this.place(id, this.scratchHash);
    return id;
  }

  /** The key with this id (a new string each call). */
  keyAt(id: number): string {
    if (id < 0 || id >= this.count) throw new RangeError(`no key ${id} (size ${this.count})`);
    return Buffer.from(this.arena.buffer, this.arena.byteOffset, this.used).toString('utf8', this.starts[id]!, this.starts[id + 1]!);
  }

  /** Keys in id order. */
  *keys(): Generator<string> {
    for (let id = 0; id < this.count; id++) yield this.keyAt(id);
  }

  private find(): number {
    const mask = this.slots.length - 1;
    for (let s = this.scratchHash & mask; ; s = (s + 1) & mask) {
      const entry = this.slots[s]!;
      if (entry === EMPTY) return -1;
      const id = entry - 1;
      if (this.hashes[id] === this.scratchHash && this.equalsScratch(id)) return id;
    }
  }

  private equalsScratch(id: number): boolean {
    const start = this.starts[id]!;
    if (this.starts[id + 1]! - start !== this.scratchLength) return false;
    const arena = this.arena;
    const scratch = this.scratch;
    for (let k = 0; k < this.scratchLength; k++) if (arena[start + k] !== scratch[k]) return false;
    return true;
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

  // Room for `count` keys and `bytes` more arena bytes; the slot array stays at most half full.
  private reserve(count: number, bytes: number): void {
    if (this.used + bytes > this.arena.length) {
      const arena = new Uint8Array(Math.max(this.used + bytes, this.arena.length * 2));
      arena.set(this.arena.subarray(0, this.used));
      this.arena = arena;
    }
    if (count > this.hashes.length) {
      const starts = new Float64Array(this.hashes.length * 2 + 1);
      starts.set(this.starts);
      this.starts = starts;
      const hashes = new Uint32Array(this.hashes.length * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
    }
    if (count * 2 > this.slots.length) {
      this.slots = new Int32Array(this.slots.length * 2);
      for (let id = 0; id < count - 1; id++) this.place(id, this.hashes[id]!);
    }
  }
}
