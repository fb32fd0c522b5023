import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PagedArray, PagedBytes } from '../src/paged.js';

// Pages hold 4,096 elements and 65,536 bytes: the generated indices and lengths cross both.
const ELEMENTS = 4096;
const BYTES = 65_536;

describe('PagedArray', () => {
  it('reads back what was set, 0 where nothing was, like a plain array (random writes over several pages)', () => {
    const index = fc.oneof(fc.nat(3 * ELEMENTS), fc.constantFrom(0, ELEMENTS - 1, ELEMENTS, 2 * ELEMENTS - 1, 2 * ELEMENTS));
    fc.assert(
      fc.property(fc.array(fc.tuple(index, fc.double({ noNaN: true })), { maxLength: 300 }), fc.array(index, { maxLength: 50 }), (writes, reads) => {
        const paged = new PagedArray((n) => new Float64Array(n));
        const oracle = new Map<number, number>();
        for (const [i, value] of writes) {
          paged.set(i, value);
          oracle.set(i, value);
        }
        for (const i of [...oracle.keys(), ...reads]) expect(paged.get(i)).toBe(oracle.get(i) ?? 0);
      }),
    );
  });

  it('keeps elements of 32 bytes apart, and a view shows later writes to its element', () => {
    const digests = new PagedArray((n) => new Uint8Array(n), 32);
    const first = digests.view(ELEMENTS - 1);
    for (const i of [0, 1, ELEMENTS - 1, ELEMENTS, 3 * ELEMENTS + 5]) digests.view(i).set(Buffer.alloc(32, i % 251));
    expect(first).toEqual(new Uint8Array(32).fill((ELEMENTS - 1) % 251));
    digests.set(ELEMENTS - 1, 7, 31);
    expect(first[31]).toBe(7);
    expect(digests.get(ELEMENTS - 1, 30)).toBe((ELEMENTS - 1) % 251);
    expect(digests.view(ELEMENTS)).toEqual(new Uint8Array(32).fill(ELEMENTS % 251));
    expect(digests.view(3 * ELEMENTS + 5)).toEqual(new Uint8Array(32).fill((3 * ELEMENTS + 5) % 251));
    // Between elements set, and in pages never written: zeros.
    expect(digests.get(2, 0)).toBe(0);
    expect(digests.get(2 * ELEMENTS, 0)).toBe(0);
    expect(digests.get(100 * ELEMENTS, 3)).toBe(0);
  });
});

describe('PagedBytes', () => {
  it('gives back every item whole, whatever their sizes (empty, filling a page exactly, longer than a page)', () => {
    const length = fc.oneof(fc.nat(200), fc.constantFrom(0, 1, BYTES - 1, BYTES, BYTES + 1), fc.integer({ min: 20_000, max: 70_000 }));
    fc.assert(
      fc.property(fc.array(fc.tuple(length, fc.nat(255)), { maxLength: 12 }), (items) => {
        const paged = new PagedBytes();
        const stored = items.map(([n, fill]) => {
          const bytes = Buffer.alloc(n, fill);
          // Only the first n bytes of a longer buffer are taken.
          const address = paged.append(Buffer.concat([bytes, Buffer.from('xyz')]), n);
          return { address, bytes };
        });
        for (const { address, bytes } of stored) {
          expect(paged.text(address, bytes.length)).toBe(bytes.toString('utf8'));
          expect(paged.equals(address, bytes, bytes.length)).toBe(true);
          if (bytes.length > 0) expect(paged.equals(address, Buffer.alloc(bytes.length, bytes[0]! ^ 1), bytes.length)).toBe(false);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('reads UTF-8 back as text, and an item never shares its bytes with the next', () => {
    const paged = new PagedBytes();
    const a = Buffer.from('calendars/ökonomie/events/日本.html');
    const at = paged.append(a);
    const b = paged.append(Buffer.from('x'.repeat(BYTES - a.length + 1)));
    expect(paged.text(at, a.length)).toBe('calendars/ökonomie/events/日本.html');
    expect(paged.text(b, BYTES - a.length + 1)).toBe('x'.repeat(BYTES - a.length + 1));
  });
});
