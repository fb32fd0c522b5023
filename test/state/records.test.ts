import { describe, expect, it } from 'vitest';
import { HistoryRecords, type EventRecord } from '../../src/state/records.js';
import { recordEntries, recordOf } from '../support/records.js';

const record = (title: string, extra: Partial<EventRecord> = {}): EventRecord => ({
  firstSeen: 1_772_000_000_000,
  changedAt: 1_772_000_000_123,
  sequence: 2,
  hash: 'h',
  calendarSlug: 'cal',
  slug: 's',
  title,
  when: { kind: 'timed', start: 1_772_100_000_000, end: 1_772_103_600_000 },
  ...extra,
});

describe('HistoryRecords', () => {
  it('gives back what was stored, as fresh copies, with the render fingerprint set later', () => {
    const records = new HistoryRecords();
    records.set('["a","1"]', record('Ąžuolas \u2028 "quoted" 😀'));
    records.set('["a","2"]', record('Two', { rendered: 'fp-2', removedAt: 5 }));
    expect(records.size).toBe(2);
    expect(records.setRendered('["a","1"]', 'fp-1')).toBe(true);
    expect(records.setRendered('["a","3"]', 'fp-3')).toBe(false);
    const first = recordOf(records, '["a","1"]')!;
    expect(first).toEqual({ ...record('Ąžuolas \u2028 "quoted" 😀'), rendered: 'fp-1' });
    first.title = 'changed';
    expect(recordOf(records, '["a","1"]')!.title).toBe('Ąžuolas \u2028 "quoted" 😀');
    expect(records.rendered('["a","2"]')).toBe('fp-2');
    expect(recordOf(records, '["a","3"]')).toBeUndefined();
    expect(recordEntries(records).map(([key]) => key)).toEqual(['["a","1"]', '["a","2"]']);
  });

  it('writes each record as the JSON the history file holds, without parsing it back', () => {
    const records = new HistoryRecords();
    records.set('["a","1"]', record('One'));
    records.set('["b","2"]', record('Two', { rendered: 'fp' }));
    const texts = [...records.texts()];
    expect(texts.map(([key]) => JSON.parse(key))).toEqual(['["a","1"]', '["b","2"]']);
    expect(texts.map(([, json]) => JSON.parse(json))).toEqual([record('One'), { ...record('Two'), rendered: 'fp' }]);
  });

  it('replaces a record set again under the same key, keeping its place', () => {
    const records = new HistoryRecords();
    records.set('x', record('Old', { rendered: 'old' }));
    records.set('y', record('Y'));
    records.set('x', record('New'));
    expect(recordEntries(records)).toEqual([
      ['x', record('New')],
      ['y', record('Y')],
    ]);
  });

  it('reads a record set where it stays (setAt) from the source only when asked, as set() would give it', () => {
    const row = `head\t${JSON.stringify({ ...record('Kept ą'), rendered: 'fp-row' })}\nmore`;
    const bytes = Buffer.from(row);
    const reads: number[] = [];
    const records = new HistoryRecords();
    const start = bytes.indexOf(9) + 1;
    records.setAt('["a","1"]', 'fp-row', start, bytes.indexOf(10) - start);
    records.set('["a","2"]', record('Two'));
    records.readFrom((at, length) => (reads.push(at), bytes.toString('utf8', at, at + length)));
    expect(records.rendered('["a","1"]')).toBe('fp-row');
    expect(reads).toEqual([]);
    expect(recordOf(records, '["a","1"]')).toEqual({ ...record('Kept ą'), rendered: 'fp-row' });
    records.setRendered('["a","1"]', undefined);
    expect(recordOf(records, '["a","1"]')).toEqual(record('Kept ą'));
    records.setRendered('["a","1"]', 'fp-new');
    const same = new HistoryRecords();
    same.set('["a","1"]', { ...record('Kept ą'), rendered: 'fp-new' });
    same.set('["a","2"]', record('Two'));
    expect([...records.texts()]).toEqual([...same.texts()]);
    records.set('["a","1"]', record('Replaced'));
    expect(recordOf(records, '["a","1"]')).toEqual(record('Replaced'));
  });

  it('holds 50,000 records (arena growth) and finds each', () => {
    const records = new HistoryRecords();
    for (let i = 0; i < 50_000; i++) records.set(`k${i}`, record(`Title ${i} ${'x'.repeat(i % 50)}`));
    for (let i = 0; i < 50_000; i += 997) expect(recordOf(records, `k${i}`)!.title).toBe(`Title ${i} ${'x'.repeat(i % 50)}`);
    expect(records.size).toBe(50_000);
  });
});
