import { describe, expect, it } from 'vitest';
import { StringIndex } from '../src/string-index.js';

// A small deterministic generator, so a failure can be replayed.
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const ALPHABET = ['a', 'b', '/', '-', '.', '0', '9', 'é', 'ß', '日', '😀', '\u0000', 'Z'];

describe('StringIndex', () => {
  it('numbers keys in insertion order and gives them back, like a Map (random keys, ASCII and not, short and long)', () => {
    const next = random(7);
    const oracle = new Map<string, number>();
    const index = new StringIndex();
    for (let n = 0; n < 20_000; n++) {
      const length = next() < 0.01 ? 200 + Math.floor(next() * 600) : Math.floor(next() * 12);
      let key = '';
      for (let k = 0; k < length; k++) key += ALPHABET[Math.floor(next() * (next() < 0.8 ? 7 : ALPHABET.length))];
      const expected = oracle.get(key) ?? -1;
      expect(index.get(key)).toBe(expected);
      const id = index.add(key);
      if (expected < 0) oracle.set(key, id);
      expect(id).toBe(oracle.get(key));
    }
    expect(index.size).toBe(oracle.size);
    expect(Array.from({ length: index.size }, (_, id) => index.keyAt(id))).toEqual([...oracle.keys()]);
    for (const [key, id] of oracle) {
      expect(index.get(key)).toBe(id);
      expect(index.keyAt(id)).toBe(key);
    }
  });

  it('tells apart keys that share a prefix, differ in length, or differ only after 256 bytes', () => {
    const index = new StringIndex();
    const long = 'x'.repeat(300);
    const keys = ['', 'a', 'ab', 'a\u0000', 'A', long, long + 'y', long.slice(0, -1) + 'y', 'calendars/c/events/1.html', 'calendars/c/events/1.htm'];
    keys.forEach((key, id) => expect(index.add(key)).toBe(id));
    keys.forEach((key, id) => expect(index.get(key)).toBe(id));
    expect(index.get('b')).toBe(-1);
    expect(index.get(long + 'z')).toBe(-1);
  });

  it('keeps keys longer than its 64 KB pages, and the keys on both sides of them', () => {
    const index = new StringIndex();
    const keys = ['before', 'é'.repeat(40_000), 'between', 'z'.repeat(65_536), 'y'.repeat(65_535), 'after'];
    keys.forEach((key, id) => expect(index.add(key)).toBe(id));
    keys.forEach((key, id) => {
      expect(index.get(key)).toBe(id);
      expect(index.keyAt(id)).toBe(key);
    });
    expect(index.get('z'.repeat(65_535))).toBe(-1);
  });

  it('stores keys as UTF-8, so two lone surrogates are one key, as they are one file name on disk', () => {
    const index = new StringIndex();
    const a = index.add('\ud800');
    const b = index.add('\ud801');
    // Node writes file names as UTF-8, where every lone surrogate becomes U+FFFD: the table sees
    // the same collision the file system would.
    expect(b).toBe(a);
  });

  it('rejects an id it never gave', () => {
    const index = new StringIndex();
    index.add('a');
    expect(() => index.keyAt(1)).toThrow(RangeError);
    expect(() => index.keyAt(-1)).toThrow(RangeError);
  });
});
