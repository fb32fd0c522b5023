// Claims on lower-cased paths, for staging's case-insensitive collision checks: each claimed key
// names the claiming file by its slot in the staging FileTable. There is a claim per folder (every
// event has one), so keys live in a StringIndex and slots in paged typed arrays, no object each.

import { PagedArray } from '../paged.js';
import { StringIndex } from '../string-index.js';

/** Lower-cased keys (no removal) -> slot of the claiming file, and a few bits per key. */
export class PathClaims {
  private readonly keys = new StringIndex();
  private readonly claimers = new PagedArray((n) => new Int32Array(n));
  private readonly flags = new PagedArray((n) => new Uint8Array(n));

  /** The id of a claimed key, or -1. */
  find(key: string): number {
    return this.keys.get(key);
  }

  /** Claim a key (not claimed yet) for the file in `slot`, with flag bits; returns its id. */
  add(key: string, slot: number, flags = 0): number {
    const id = this.keys.add(key);
    this.claimers.set(id, slot);
    this.flags.set(id, flags);
    return id;
  }

  /** Slot of the file that claimed the key with this id. */
  claimer(id: number): number {
    return this.claimers.get(id);
  }

  has(id: number, flag: number): boolean {
    return (this.flags.get(id) & flag) === flag;
  }

  set(id: number, flag: number): void {
    this.flags.set(id, this.flags.get(id) | flag);
  }

  clear(id: number, flag: number): void {
    this.flags.set(id, this.flags.get(id) & ~flag);
  }
}
