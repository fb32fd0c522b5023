import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RefList, sortedPositions } from '../../src/pipeline/ref-list.js';
import { compareRefs, type EventRef } from '../../src/pipeline/spool.js';

// Values a ref's numbers can take, and some they should never take but must survive all the same.
const NUMBERS = [0, -0, 1, -1, 1.5, 1_790_000_000_000, -62_135_596_800_000, 8.64e15, Number.MAX_SAFE_INTEGER, Number.MIN_VALUE, NaN, Infinity, -Infinity];

const CATEGORIES = ['Seminar', 'seminar', 'Ąžuolynas 🌳', 'lone \ud800', ''];

describe('RefList', () => {
  it('gives back exactly the refs pushed, in order, against an array of the objects as oracle', () => {
    let seed = 11;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const number = (): number => (random(3) === 0 ? NUMBERS[random(NUMBERS.length)]! : Date.UTC(2026, 0, 1) + random(1e9) * 1000 + random(1000) / 8);
    const oracle: EventRef[] = [];
    const list = new RefList('cal-\ud800é');
    // Past several doublings of the first allocation.
    for (let i = 0; i < 1500; i++) {
      const ref: EventRef = {
        calendarId: 'cal-\ud800é',
        id: i % 7 === 0 ? `lone \udc00 ${i}` : `${i}-Ąž🌳`,
        start: number(),
        end: number(),
        stamp: number(),
        pageStart: number(),
        pageEnd: number(),
        cancelled: random(2) === 1,
        placeless: random(3) === 0,
        // Spellings repeat across refs (each kept once), and a ref may have none.
        categories: Array.from({ length: random(4) }, () => CATEGORIES[random(CATEGORIES.length)]!),
        at: random(2) ? random(2 ** 31) * 4096 + random(4096) : random(1e6),
        jsonBytes: random(4) === 0 ? 0xffffffff : random(1e5),
        veventBytes: random(4) === 0 ? 0 : random(1e5),
        itemsBytes: random(3) === 0 ? 0 : random(4) === 0 ? 0xffffffff : random(1e4),
      };
      oracle.push(ref);
      list.push({ ...ref });
      expect(list.length).toBe(oracle.length);
    }
    // toEqual tells -0 from 0 and takes NaN as equal to NaN.
    expect([...list]).toEqual(oracle);
    for (const i of [0, 1, 15, 16, 17, 1023, 1024, 1499]) expect(list.at(i)).toEqual(oracle[i]);
    // The same keys in the same order as an EventRef made by the spool.
    expect(Object.keys(list.at(3))).toEqual(Object.keys(oracle[3]!));
  });

  it('refuses a ref of another calendar, a size past 4 GB, and an index out of range', () => {
    const list = new RefList('a');
    const ref: EventRef = { calendarId: 'a', id: 'x', start: 1, end: 2, stamp: 3, pageStart: 1, pageEnd: 2, cancelled: false, placeless: true, categories: ['Seminar'], at: 0, jsonBytes: 10, veventBytes: 20, itemsBytes: 30 };
    expect(() => list.push({ ...ref, calendarId: 'b' })).toThrow(/calendar "b"/);
    expect(() => list.push({ ...ref, jsonBytes: 2 ** 32 })).toThrow(RangeError);
    expect(() => list.push({ ...ref, itemsBytes: 2 ** 32 })).toThrow(RangeError);
    expect(list.length).toBe(0);
    list.push(ref);
    expect(() => list.at(1)).toThrow(RangeError);
    expect(() => list.at(-1)).toThrow(RangeError);
    expect([...list]).toEqual([ref]);
    expect([...new RefList('empty')]).toEqual([]);
  });

  // A calendar's refs were all made as objects to sort them (30 MB at 100,000 events); their order
  // is now taken from the list's arrays. It must be the order a stable sort by compareRefs gives.
  it('sortedPositions: the order of a stable sort by compareRefs, of a RefList and of an array, ties included', () => {
    const refArb = fc.record({
      // Starts are finite instants (a spooled ref's are checked so): compareRefs is no order over NaN.
      start: fc.oneof(fc.constantFrom(0, -0, -1.5, 8.64e15), fc.integer({ min: 0, max: 5 })),
      id: fc.constantFrom('a', 'b', 'B', 'é', '\ud800', '\udc00', '🌳', 'a\u0000', ''),
    });
    fc.assert(
      fc.property(fc.array(refArb, { maxLength: 60 }), (specs) => {
        const refs: EventRef[] = specs.map(({ start, id }, i) => ({
          calendarId: 'c', id, start, end: start, stamp: i, pageStart: start, pageEnd: start,
          cancelled: false, placeless: false, categories: [], at: i, jsonBytes: 1, veventBytes: 1, itemsBytes: 1,
        }));
        const list = new RefList('c');
        for (const ref of refs) list.push(ref);
        const expected = [...refs].sort(compareRefs).map((ref) => ref.at);
        expect([...sortedPositions(list)]).toEqual(expected);
        expect([...sortedPositions(refs)]).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});
