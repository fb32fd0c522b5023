import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ListEntries } from '../../src/http/list-entries.js';
import { readJsonList } from '../../src/http/json-list.js';

// Entries of a body as the crawl gets them: an event list read in shape.
function bodyEntries(values: readonly unknown[]): ListEntries {
  const list = readJsonList(Buffer.from(JSON.stringify({ events: values }, null, 1)));
  return list.entriesAt(['events'])!;
}

// A list longer than one group of 1,024 entries, so the generated orders empty some groups and not others.
const event = (i: number): unknown => ({ id: `e${i}`, title: `Talk ${i} \u00e9\u{1f389}`, tags: [i % 7, { n: i }] });

describe('ListEntries.take', () => {
  it('gives each entry as at() does, in any order, from a body spanning several groups', () => {
    const values = Array.from({ length: 2_200 }, (_, i) => event(i));
    fc.assert(
      fc.property(fc.shuffledSubarray(Array.from(values.keys()), { minLength: 1 }), (order) => {
        const entries = bodyEntries(values);
        // Read before anything is taken, as listing the events does.
        expect(entries.at(order[0]!)).toEqual(values[order[0]!]);
        expect(order.map((i) => entries.take(i))).toEqual(order.map((i) => values[i]));
        // Entries not taken are still there.
        const taken = new Set(order);
        const rest = [...values.keys()].filter((i) => !taken.has(i));
        expect(rest.map((i) => entries.at(i))).toEqual(rest.map((i) => values[i]));
      }),
      { numRuns: 10 },
    );
  });

  it('refuses an entry taken already, whether its group is still held or let go', () => {
    const values = Array.from({ length: 1_100 }, (_, i) => event(i));
    const entries = bodyEntries(values);
    entries.take(1_050);
    // Group 1 (entries 1,024 to 1,099) is still held for the others.
    expect(() => entries.take(1_050)).toThrow(/taken already/);
    expect(() => entries.at(1_050)).toThrow(/taken already/);
    expect(entries.at(1_051)).toEqual(values[1_051]);
    for (let i = 0; i < 1_024; i++) entries.take(i);
    // Group 0 is let go.
    expect(() => entries.at(3)).toThrow(/taken already/);
    expect(entries.take(1_099)).toEqual(values[1_099]);
  });

  it('takes entries parsed already and those of a merged (paged) list alike', () => {
    const merged = bodyEntries([event(0), event(1)]).concat(ListEntries.of([event(2)])).concat(bodyEntries([event(3)]));
    expect([3, 0, 2, 1].map((i) => merged.take(i))).toEqual([event(3), event(0), event(2), event(1)]);
    expect(() => merged.take(4)).toThrow(RangeError);
  });
});
