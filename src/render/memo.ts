// A small bounded memo for pure string conversions that a build repeats (one description feeds the
// page, its JSON-LD, the .ics files and the feeds). Bounded by entries and by characters held, as
// keys come from untrusted portal data; least recently used entries go first.
//
// Recency is a linked list beside the Map, not its insertion order: V8 leaves deleted entries as
// holes at the front of the table, so evicting via map.keys().next() re-walks them on every miss.

interface Entry {
  key: string;
  value: string;
  /** Toward the least recently used end. */
  older: Entry | undefined;
  /** Toward the most recently used end. */
  newer: Entry | undefined;
}

export class StringMemo {
  private readonly map = new Map<string, Entry>();
  private oldest: Entry | undefined;
  private newest: Entry | undefined;
  private chars = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
  ) {}

  /** The answer for `key`, computing and remembering it on a miss. */
  get(key: string, compute: (key: string) => string): string {
    const known = this.map.get(key);
    if (known !== undefined) {
      if (known !== this.newest) {
        this.unlink(known);
        this.append(known);
      }
      return known.value;
    }
    const value = compute(key);
    const size = key.length + value.length;
    // An entry bigger than a quarter of the budget would evict everything else for one answer.
    if (size * 4 > this.maxChars) return value;
    const entry: Entry = { key, value, older: undefined, newer: undefined };
    this.map.set(key, entry);
    this.append(entry);
    this.chars += size;
    while (this.map.size > this.maxEntries || this.chars > this.maxChars) {
      const oldest = this.oldest!;
      this.unlink(oldest);
      this.map.delete(oldest.key);
      this.chars -= oldest.key.length + oldest.value.length;
    }
    return value;
  }

  get size(): number {
    return this.map.size;
  }

  private append(entry: Entry): void {
    entry.older = this.newest;
    entry.newer = undefined;
    if (this.newest) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
  }

  private unlink(entry: Entry): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.newest = entry.older;
    entry.older = entry.newer = undefined;
  }
}
