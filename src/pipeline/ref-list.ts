// A calendar's spooled refs from the crawl to its render as a struct of typed arrays: an EventRef
// object cost about 200 bytes and every full collection traced it; here a ref costs about 57 bytes.

import { compareRefs, type EventRef } from './spool.js';

// Per ref: start, end, stamp, pageStart, pageEnd, at (numbers), jsonBytes, veventBytes, itemsBytes (sizes).
const NUMBERS = 6;
const SIZES = 3;
const CANCELLED = 1;
const PLACELESS = 2;

/** The refs of one calendar's spooled events, in the order they were pushed. */
export class RefList implements Iterable<EventRef> {
  private count = 0;
  private numbers = new Float64Array(NUMBERS * 16);
  private sizes = new Uint32Array(SIZES * 16);
  // Per ref: CANCELLED | PLACELESS.
  private flags = new Uint8Array(16);
  private readonly ids: string[] = [];
  // Each ref's categories: indices into `spellings`, ref i's from categoryEnds[i - 1] to categoryEnds[i].
  private categoryEnds = new Uint32Array(16);
  private categoryIds = new Uint32Array(16);
  private categoryCount = 0;
  private readonly spellings: string[] = [];
  private readonly spellingIds = new Map<string, number>();

  constructor(readonly calendarId: string) {}

  get length(): number {
    return this.count;
  }

  /** Keep a ref of this calendar (its fields are copied; the object is not kept). */
  push(ref: EventRef): void {
    if (ref.calendarId !== this.calendarId) throw new Error(`internal: a ref of calendar "${ref.calendarId}" pushed to "${this.calendarId}"`);
    // A spooled event is far smaller than 4 GB; a size that does not fit would silently wrap.
    if (!(ref.jsonBytes <= 0xffffffff && ref.veventBytes <= 0xffffffff && ref.itemsBytes <= 0xffffffff)) throw new RangeError(`internal: spooled event "${ref.id}" is too large`);
    const i = this.count++;
    if (i === this.flags.length) this.grow();
    const n = i * NUMBERS;
    const numbers = this.numbers;
    numbers[n] = ref.start;
    numbers[n + 1] = ref.end;
    numbers[n + 2] = ref.stamp;
    numbers[n + 3] = ref.pageStart;
    numbers[n + 4] = ref.pageEnd;
    numbers[n + 5] = ref.at;
    this.sizes[i * SIZES] = ref.jsonBytes;
    this.sizes[i * SIZES + 1] = ref.veventBytes;
    this.sizes[i * SIZES + 2] = ref.itemsBytes;
    this.flags[i] = (ref.cancelled ? CANCELLED : 0) | (ref.placeless ? PLACELESS : 0);
    this.ids.push(ref.id);
    for (const spelling of ref.categories) {
      let id = this.spellingIds.get(spelling);
      if (id === undefined) {
        id = this.spellings.push(spelling) - 1;
        this.spellingIds.set(spelling, id);
      }
      if (this.categoryCount === this.categoryIds.length) this.categoryIds = grown(this.categoryIds);
      this.categoryIds[this.categoryCount++] = id;
    }
    this.categoryEnds[i] = this.categoryCount;
  }

  /** The ref at index i, as a new object. */
  at(i: number): EventRef {
    if (!(i >= 0 && i < this.count)) throw new RangeError(`no ref ${i} (length ${this.count})`);
    const n = i * NUMBERS;
    const numbers = this.numbers;
    return {
      calendarId: this.calendarId,
      id: this.ids[i]!,
      start: numbers[n]!,
      end: numbers[n + 1]!,
      stamp: numbers[n + 2]!,
      pageStart: numbers[n + 3]!,
      pageEnd: numbers[n + 4]!,
      cancelled: (this.flags[i]! & CANCELLED) !== 0,
      placeless: (this.flags[i]! & PLACELESS) !== 0,
      categories: Array.from(this.categoryIds.subarray(i === 0 ? 0 : this.categoryEnds[i - 1]!, this.categoryEnds[i]!), (id) => this.spellings[id]!),
      at: numbers[n + 5]!,
      jsonBytes: this.sizes[i * SIZES]!,
      veventBytes: this.sizes[i * SIZES + 1]!,
      itemsBytes: this.sizes[i * SIZES + 2]!,
    };
  }

  /** compareRefs of the refs at positions a and b (one calendar's: by start, then id), ties by position. */
  readonly compare = (a: number, b: number): number => {
    const x = this.ids[a]!;
    const y = this.ids[b]!;
    return this.numbers[a * NUMBERS]! - this.numbers[b * NUMBERS]! || (x < y ? -1 : x > y ? 1 : a - b);
  };

  *[Symbol.iterator](): Iterator<EventRef> {
    for (let i = 0; i < this.count; i++) yield this.at(i);
  }

  private grow(): void {
    const cap = this.flags.length * 2;
    const numbers = new Float64Array(cap * NUMBERS);
    numbers.set(this.numbers);
    this.numbers = numbers;
    const sizes = new Uint32Array(cap * SIZES);
    sizes.set(this.sizes);
    this.sizes = sizes;
    const flags = new Uint8Array(cap);
    flags.set(this.flags);
    this.flags = flags;
    this.categoryEnds = grown(this.categoryEnds);
  }
}

/**
 * The positions of a calendar's refs in compareRefs order, ties by position (as a stable sort
 * orders them): a RefList's are compared in its arrays, without an object per ref.
 */
export function sortedPositions(refs: { readonly length: number; at(i: number): EventRef | undefined }): Uint32Array {
  const order = new Uint32Array(refs.length).map((_, i) => i);
  return order.sort(refs instanceof RefList ? refs.compare : (a, b) => compareRefs(refs.at(a)!, refs.at(b)!) || a - b);
}

/** A copy of `array` twice as long. */
function grown(array: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> {
  const bigger = new Uint32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}
