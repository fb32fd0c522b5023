// A list's entries as byte ranges of its body (see json-list.ts), parsed when asked for, and let go
// as the crawl takes them.

/** A list's entries, each kept as its JSON text and parsed when asked for (a fresh value each time). */
export class ListEntries {
  private constructor(
    /** Entries of a body, or values parsed already; `starts` says where each part begins. */
    private readonly parts: ReadonlyArray<BodyEntries | readonly unknown[]>,
    private readonly starts: readonly number[],
    readonly length: number,
  ) {}

  /** Entries that are the byte ranges [bounds[2i], bounds[2i+1]) of `bytes`. */
  static inBody(bytes: Buffer, bounds: Float64Array): ListEntries {
    return new ListEntries([new BodyEntries(bytes, bounds)], [0], bounds.length / 2);
  }

  /** Entries parsed already (returned as they are). */
  static of(values: readonly unknown[]): ListEntries {
    return new ListEntries([values], [0], values.length);
  }

  /** These entries, then `more`'s. */
  concat(more: ListEntries): ListEntries {
    return new ListEntries([...this.parts, ...more.parts], [...this.starts, ...more.starts.map((s) => s + this.length)], this.length + more.length);
  }

  /** Entry `i`, parsed. */
  at(i: number): unknown {
    const [part, k] = this.part(i);
    return Array.isArray(part) ? part[k] : JSON.parse((part as BodyEntries).text(k));
  }

  /** Entry `i`, parsed for the last time (a group's bytes go once all are taken); a second take throws. */
  take(i: number): unknown {
    const [part, k] = this.part(i);
    return Array.isArray(part) ? part[k] : JSON.parse((part as BodyEntries).take(k));
  }

  /** Every entry, parsed (for short lists, such as the calendars). */
  toArray(): unknown[] {
    return Array.from({ length: this.length }, (_, i) => this.at(i));
  }

  private part(i: number): [BodyEntries | readonly unknown[], number] {
    if (!(i >= 0 && i < this.length)) throw new RangeError(`internal: list entry ${i} of ${this.length}`);
    let p = this.parts.length - 1;
    while (this.starts[p]! > i) p--;
    return [this.parts[p]!, i - this.starts[p]!];
  }
}

const GROUP_SHIFT = 10;

/** A body's entries: the first take() copies each group of 2^GROUP_SHIFT out and lets the body go. */
class BodyEntries {
  private body: Buffer | undefined;
  private groups: Array<Buffer | undefined> = [];
  private left: Uint16Array = new Uint16Array(0);
  private taken: Uint8Array = new Uint8Array(0);

  constructor(
    body: Buffer,
    private readonly bounds: Float64Array,
  ) {
    this.body = body;
  }

  /** Entry k's JSON text. */
  text(k: number): string {
    const from = this.bounds[2 * k]!;
    const to = this.bounds[2 * k + 1]!;
    if (this.body !== undefined) return this.body.toString('utf8', from, to);
    const group = this.groups[k >> GROUP_SHIFT];
    if (group === undefined || this.taken[k] === 1) throw new Error(`internal: list entry ${k} was taken already`);
    const base = this.bounds[2 * ((k >> GROUP_SHIFT) << GROUP_SHIFT)]!;
    return group.toString('utf8', from - base, to - base);
  }

  /** Entry k's JSON text, for the last time. */
  take(k: number): string {
    if (this.body !== undefined) this.split(this.body);
    const text = this.text(k);
    this.taken[k] = 1;
    const g = k >> GROUP_SHIFT;
    if (--this.left[g]! === 0) this.groups[g] = undefined;
    return text;
  }

  private split(body: Buffer): void {
    const count = this.bounds.length / 2;
    const groups = (count + (1 << GROUP_SHIFT) - 1) >> GROUP_SHIFT;
    this.left = new Uint16Array(groups);
    this.taken = new Uint8Array(count);
    for (let g = 0; g < groups; g++) {
      const first = g << GROUP_SHIFT;
      const last = Math.min(count, first + (1 << GROUP_SHIFT)) - 1;
      const from = this.bounds[2 * first]!;
      const to = this.bounds[2 * last + 1]!;
      // Not from Buffer's shared pool: a small group must not keep a pool slab alive, nor be kept by one.
      const group = Buffer.allocUnsafeSlow(to - from);
      body.copy(group, 0, from, to);
      this.groups.push(group);
      this.left[g] = last - first + 1;
    }
    this.body = undefined;
  }
}
