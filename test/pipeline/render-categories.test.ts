import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareCodePoints, displayName } from '../../src/pipeline/render-categories.js';

const spelling = fc.constantFrom('Seminar', 'seminar', 'SEMINAR', 'Semi\u00adnar', 'Ąžuolynas', 'ąžuolynas', '\uffff', '😀', '');

describe('a category\'s name', () => {
  it('is the most used spelling, ties to the first by code point, whatever order the events came in', () => {
    fc.assert(
      fc.property(fc.array(spelling, { minLength: 1, maxLength: 30 }), fc.nat(), (events, seed) => {
        const count = (list: readonly string[]): Map<string, number> => {
          const m = new Map<string, number>();
          for (const s of list) m.set(s, (m.get(s) ?? 0) + 1);
          return m;
        };
        // The same events in another order (a rotation, then reversed): another crawl order.
        const k = seed % events.length;
        const other = [...events.slice(k), ...events.slice(0, k)].reverse();
        const name = displayName(count(events));
        expect(displayName(count(other))).toBe(name);
        const counts = count(events);
        const most = Math.max(...counts.values());
        const tied = [...counts].filter(([, n]) => n === most).map(([s]) => s);
        expect(name).toBe(tied.sort(compareCodePoints)[0]);
      }),
    );
  });

  it('orders by code point, not UTF-16 unit: U+FFFF before U+1F600', () => {
    expect(compareCodePoints('\uffff', '😀')).toBeLessThan(0);
    expect('\uffff' < '😀').toBe(false);
    expect(displayName(new Map([['😀', 2], ['\uffff', 2], ['z', 1]]))).toBe('\uffff');
    expect(displayName(new Map([['seminar', 1], ['Seminar', 1]]))).toBe('Seminar');
    expect(displayName(new Map([['seminar', 2], ['Seminar', 1]]))).toBe('seminar');
  });
});
