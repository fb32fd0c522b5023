// A small bounded memo for pure string conversions. One description is converted by the event page,
// its JSON-LD, its .ics, the calendar's .ics and the feeds: remembering the last few thousand
// answers turns those repeats into map lookups. Bounded by entries and by characters held, as the
// keys come from untrusted portal data; least recently used entries go first.

export class StringMemo {
  private readonly map = new Map<string, string>();
  private chars = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
  ) {}

  /** The answer for `key`, computing and remembering it on a miss. */
  get(key: string, compute: (key: string) => string): string {
    const known = this.map.get(key);
    if (known !== undefined) {
      // Refresh: a Map iterates in insertion order, so the first key is the least recently used.
      this.map.delete(key);
      this.map.set(key, known);
      return known;
    }
    const value = compute(key);
    const size = key.length + value.length;
    // An entry bigger than a quarter of the budget would evict everything else for one answer.
    if (size * 4 > this.maxChars) return value;
    this.map.set(key, value);
    this.chars += size;
    while (this.map.size > this.maxEntries || this.chars > this.maxChars) {
      const oldest = this.map.keys().next().value as string;
      this.chars -= oldest.length + this.map.get(oldest)!.length;
      this.map.delete(oldest);
    }
    return value;
  }

  get size(): number {
    return this.map.size;
  }
}
