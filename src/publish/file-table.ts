// A compact table of files: path -> size, SHA-256 and flags, for the 300,000+ files of a large
// build: paths in a StringIndex, the rest in paged typed arrays (paged.ts), no object per file.

import { hexOf, PagedArray } from '../paged.js';
import { StringIndex } from '../string-index.js';
import type { StagedFile } from './staging.js';

const DIGEST = 32;
const CHANGED = 1;
const PENDING = 4;
// Kept unchanged, with nothing on disk in staging yet: publish links it from the published copy.
const DEFERRED = 8;
const HEX = /^[0-9a-f]{64}$/;

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  return -1; // upper case is not what set() stores as a digest (HEX is lower case only)
}

/** Files by path with their size, SHA-256 (raw 32 bytes) and flags; insertion order is kept. */
export class FileTable implements ReadonlyMap<string, StagedFile> {
  private readonly index = new StringIndex();
  private readonly digests = new PagedArray((n) => new Uint8Array(n), DIGEST);
  private readonly sizes = new PagedArray((n) => new Float64Array(n));
  private readonly flags = new PagedArray((n) => new Uint8Array(n));
  // Hashes that are not 64 lower-case hex digits (hand-edited manifests, tests) are kept as given.
  private readonly odd = new Map<number, string>();
  private pending = 0;
  private changedFiles = 0;
  // Content problems found when files were staged (see content-check.ts), reported by verify.
  private readonly problemsByPath = new Map<string, string>();

  /**
   * Reserves a path (staging claims it before its bytes are written): false when it is already
   * reserved or set. A reserved path is not listed (has, get, size, iteration) until set().
   */
  reserve(relPath: string): boolean {
    if (this.index.get(relPath) >= 0) return false;
    const i = this.index.add(relPath);
    this.flags.set(i, PENDING);
    this.pending++;
    return true;
  }

  /** Whether a path is reserved or set. */
  claimed(relPath: string): boolean {
    return this.index.get(relPath) >= 0;
  }

  /**
   * Adds or replaces a file; sha256 is a hex string or a raw 32-byte digest. `deferred` (only for
   * unchanged files) records that the file is the published copy, not yet linked into staging.
   */
  set(relPath: string, bytes: number, sha256: string | Uint8Array, changed = false, deferred = false): this {
    const i = this.index.add(relPath);
    if (this.flags.get(i) & PENDING) this.pending--;
    else if (this.flags.get(i) & CHANGED) this.changedFiles--;
    if (changed) this.changedFiles++;
    this.sizes.set(i, bytes);
    this.flags.set(i, changed ? CHANGED : deferred ? DEFERRED : 0);
    this.odd.delete(i);
    if (typeof sha256 !== 'string') this.digests.view(i).set(sha256.subarray(0, DIGEST));
    else if (HEX.test(sha256)) this.digests.view(i).set(Buffer.from(sha256, 'hex'));
    else this.odd.set(i, sha256);
    return this;
  }

  /** Whether relPath is listed with exactly this size and hash (hex or raw digest). */
  matches(relPath: string, bytes: number, sha256: string | Uint8Array): boolean {
    const i = this.slot(relPath);
    if (i === undefined || this.sizes.get(i) !== bytes) return false;
    const odd = this.odd.get(i);
    if (odd !== undefined) return typeof sha256 === 'string' && sha256 === odd;
    const d = this.digests;
    if (typeof sha256 === 'string') {
      // Compared digit by digit: no hex string is made for the stored digest.
      if (sha256.length !== DIGEST * 2) return false;
      for (let k = 0; k < DIGEST; k++) {
        const hi = hexValue(sha256.charCodeAt(2 * k));
        const lo = hexValue(sha256.charCodeAt(2 * k + 1));
        if (hi < 0 || lo < 0 || d.get(i, k) !== hi * 16 + lo) return false;
      }
      return true;
    }
    if (sha256.length !== DIGEST) return false;
    for (let k = 0; k < DIGEST; k++) if (d.get(i, k) !== sha256[k]) return false;
    return true;
  }

  /** Size of a listed file; undefined when it is not listed. */
  sizeOf(relPath: string): number | undefined {
    const i = this.slot(relPath);
    return i === undefined ? undefined : this.sizes.get(i);
  }

  /**
   * The hash of a listed file as set() takes it, without a hex string: a view of the raw digest
   * (it shows what a later set() of the path stores) or the odd hash as given; undefined when not listed.
   */
  hashOf(relPath: string): Uint8Array | string | undefined {
    const i = this.slot(relPath);
    if (i === undefined) return undefined;
    return this.odd.get(i) ?? this.digests.view(i);
  }

  /** How many listed files are changed (written) rather than kept. */
  changedCount(): number {
    return this.changedFiles;
  }

  /** Records why a staged file's bytes are wrong for its kind; verify reports the first one. */
  addProblem(relPath: string, problem: string): void {
    if (!this.problemsByPath.has(relPath)) this.problemsByPath.set(relPath, problem);
  }

  /** Problems recorded by addProblem, in the order they were found. */
  problems(): IterableIterator<[string, string]> {
    return this.problemsByPath.entries();
  }

  /** A dense number for each listed file, below slotCount(), or -1: an index for per-file bits. */
  slotOf(relPath: string): number {
    return this.slot(relPath) ?? -1;
  }

  /** Upper bound (exclusive) of slotOf(); includes reserved paths, which are never listed. */
  slotCount(): number {
    return this.count;
  }

  /** The path in a slot, reserved or listed (a new string each call). */
  pathAt(slot: number): string {
    return this.index.keyAt(slot);
  }

  /** Size of a listed file by its slotOf() number. */
  sizeAt(slot: number): number {
    return this.sizes.get(slot);
  }

  /** The listed paths whose slot is not set in `seen`, in insertion order. */
  *unseen(seen: Uint8Array): IterableIterator<string> {
    for (let i = 0; i < this.count; i++) if ((this.flags.get(i) & PENDING) === 0 && seen[i] === 0) yield this.index.keyAt(i);
  }

  /** Whether the file in this slot is deferred: kept unchanged, and not (yet) on disk in staging. */
  deferredAt(slot: number): boolean {
    return (this.flags.get(slot) & (DEFERRED | PENDING)) === DEFERRED;
  }

  /** changed() by slotOf() number: the file was written to staging (new bytes), not linked. */
  changedAt(slot: number): boolean {
    return (this.flags.get(slot) & (CHANGED | PENDING)) === CHANGED;
  }

  /** Every path with its slot, reserved (listed: false) as well as listed ones, in insertion order. */
  *slots(): IterableIterator<{ relPath: string; slot: number; listed: boolean }> {
    for (let i = 0; i < this.count; i++) yield { relPath: this.index.keyAt(i), slot: i, listed: (this.flags.get(i) & PENDING) === 0 };
  }

  get size(): number {
    return this.count - this.pending;
  }

  has(relPath: string): boolean {
    return this.slot(relPath) !== undefined;
  }

  /** A fresh { bytes, sha256 (hex), changed } record; undefined when not listed. */
  get(relPath: string): StagedFile | undefined {
    const i = this.slot(relPath);
    return i === undefined ? undefined : this.record(i);
  }

  *entries(): MapIterator<[string, StagedFile]> {
    for (let i = 0; i < this.count; i++) if ((this.flags.get(i) & PENDING) === 0) yield [this.index.keyAt(i), this.record(i)];
  }

  *keys(): MapIterator<string> {
    for (let i = 0; i < this.count; i++) if ((this.flags.get(i) & PENDING) === 0) yield this.index.keyAt(i);
  }

  *values(): MapIterator<StagedFile> {
    for (let i = 0; i < this.count; i++) if ((this.flags.get(i) & PENDING) === 0) yield this.record(i);
  }

  [Symbol.iterator](): MapIterator<[string, StagedFile]> {
    return this.entries();
  }

  forEach(fn: (value: StagedFile, key: string, map: ReadonlyMap<string, StagedFile>) => void, thisArg?: unknown): void {
    for (const [relPath, record] of this.entries()) fn.call(thisArg, record, relPath, this);
  }

  // Paths reserved or set: slots are the index's ids.
  private get count(): number {
    return this.index.size;
  }

  /** The slot of a listed (set, not only reserved) path. */
  private slot(relPath: string): number | undefined {
    const i = this.index.get(relPath);
    return i < 0 || this.flags.get(i) & PENDING ? undefined : i;
  }

  private record(i: number): StagedFile {
    return { bytes: this.sizes.get(i), sha256: this.odd.get(i) ?? hexOf(this.digests.view(i)), changed: (this.flags.get(i) & CHANGED) === CHANGED };
  }
}
