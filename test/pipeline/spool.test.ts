import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareRefs, EventSpool, rowHead, type RefFacts } from '../../src/pipeline/spool.js';
import type { FeedEvent } from '../../src/model.js';
import { sampleEvent } from '../fixtures/sample.js';

/** Facts for a ref whose page span is its start and end. */
function facts(start: number, end: number, stamp: number): RefFacts {
  return { start, end, stamp, pageStart: start, pageEnd: end, cancelled: false, placeless: false, categories: [] };
}

describe('EventSpool', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'calfeed-spool-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives back each event, its VEVENT text and its feed items exactly, after a megabyte of appends is flushed to disk', async () => {
    const spool = EventSpool.create(dir);
    // Multi-byte text: offsets are in bytes, not characters.
    const long = 'Ąžuolas 🌳 '.repeat(2000);
    const refs = Array.from({ length: 80 }, (_, i) => {
      const event = sampleEvent({ id: `e${i}`, slug: `e${i}`, title: `Talk ${i} ${long}` });
      // Every third event has no items (it had ended when spooled).
      const items = i % 3 === 0 ? '' : `<item>${i} ${long}</item>\0<entry/>\0{"id": "e${i}"}`;
      return spool.add(event, { vevent: `BEGIN:VEVENT\r\nUID:e${i}\r\nSUMMARY:${long}\r\nEND:VEVENT\r\n`, items, record: `{"title":"${i} ${long}"}` }, facts(80 - i, 100, i));
    });
    expect((await stat(spool.file)).size).toBeGreaterThan(1 << 20);
    const back = spool.events([refs[79]!, refs[0]!, refs[40]!]);
    expect(back.map((e) => e.id)).toEqual(['e79', 'e0', 'e40']);
    expect(back[0]).toEqual(sampleEvent({ id: 'e79', slug: 'e79', title: `Talk 79 ${long}` }));
    expect(spool.vevent(refs[40]!).toString('utf8')).toBe(`BEGIN:VEVENT\r\nUID:e40\r\nSUMMARY:${long}\r\nEND:VEVENT\r\n`);
    // A record is the event's JSON and its VEVENT, as they were added.
    const event40 = sampleEvent({ id: 'e40', slug: 'e40', title: `Talk 40 ${long}` });
    expect(Buffer.from(spool.recordView(refs[40]!)).toString('utf8')).toBe(JSON.stringify(event40) + `BEGIN:VEVENT\r\nUID:e40\r\nSUMMARY:${long}\r\nEND:VEVENT\r\n`);
    // Feed items as spooled; those of an event spooled without them are rendered from its JSON.
    const render = (event: FeedEvent): string => `rendered ${event.id}`;
    expect(spool.items([refs[40]!, refs[39]!, refs[0]!], render)).toEqual([`<item>40 ${long}</item>\0<entry/>\0{"id": "e40"}`, 'rendered e39', 'rendered e0']);
    expect([spool.itemsOf(refs[40]!), spool.itemsOf(refs[39]!)]).toEqual([`<item>40 ${long}</item>\0<entry/>\0{"id": "e40"}`, '']);
    // Its row holds its history record, and is copied as it is (the first row, and one whose head
    // is longer than the first window read back, included).
    const items40 = `<item>40 ${long}</item>\0<entry/>\0{"id": "e40"}`;
    expect(spool.row(refs[40]!).toString('utf8')).toBe(`S\t${rowHead(refs[40]!, `{"title":"40 ${long}"}`).slice(2)}${Buffer.from(spool.recordView(refs[40]!)).toString('utf8')}${items40}\n`);
    await mkdir(path.join(dir, 'next'));
    const next = EventSpool.create(path.join(dir, 'next'), '{"header":1}\n');
    for (const ref of [refs[0]!, refs[40]!, refs[79]!]) {
      const copied = next.copy(spool, ref);
      expect(next.row(copied)).toEqual(spool.row(ref));
      expect(Buffer.from(next.recordView(copied))).toEqual(Buffer.from(spool.recordView(ref)));
    }
    next.dispose();
    spool.dispose();
    expect(existsSync(spool.file)).toBe(false);
    spool.dispose();
  });

  // Keys hashed 100,000 records each read into a new buffer, and left malloc's heap 30 MB bigger
  // for the rest of the build; they are read into one buffer now, which grows as needed.
  it('recordView and json read into a reused buffer: the bytes spooled, small and large, appending and reopened', async () => {
    const spool = EventSpool.create(dir);
    const sizes = [10, 70_000, 5, 200_000, 3];
    const refs = sizes.map((n, i) => spool.add(sampleEvent({ id: `e${i}`, slug: `e${i}`, title: 'é'.repeat(n) }), { vevent: `V${'🌳'.repeat(n)}`, items: 'ü'.repeat(n), record: '{}' }, facts(i, i + 1, i)));
    const read = (from: EventSpool) =>
      refs.map((ref, i) => {
        const copy = Buffer.from(from.recordView(ref));
        const json = JSON.stringify(sampleEvent({ id: `e${i}`, slug: `e${i}`, title: 'é'.repeat(sizes[i]!) }));
        // equals(): toEqual compares a megabyte a byte at a time, for seconds.
        expect(copy.equals(Buffer.from(`${json}V${'🌳'.repeat(sizes[i]!)}`))).toBe(true);
        expect(from.json(ref)).toBe(json);
        return copy;
      });
    const appending = read(spool);
    spool.persist(path.join(dir, 'kept'));
    const reopened = EventSpool.open(path.join(dir, 'kept'));
    expect(read(reopened).map((bytes, i) => bytes.equals(appending[i]!))).toEqual(sizes.map(() => true));
    reopened.dispose();
  });

  it('reads back events still waiting in its write buffer', () => {
    const spool = EventSpool.create(dir);
    const ref = spool.add(sampleEvent(), { vevent: 'V', items: 'I', record: '{}' }, facts(1, 2, 3));
    expect(spool.events([ref])).toEqual([sampleEvent()]);
    expect(spool.vevent(ref).toString()).toBe('V');
    expect(spool.items([ref], () => 'rendered')).toEqual(['I']);
    spool.dispose();
  });

  it('orders refs by start, then calendar id, then event id, as sortByStart orders events', () => {
    const spool = EventSpool.create(dir);
    const add = (calendarId: string, id: string, start: number) => spool.add(sampleEvent({ calendarId, id }), { vevent: '', items: '', record: '{}' }, facts(start, start, 0));
    const refs = [add('b', '1', 5), add('a', '2', 5), add('a', '10', 5), add('z', '0', 1)];
    expect(refs.sort(compareRefs).map((r) => `${r.calendarId}/${r.id}`)).toEqual(['z/0', 'a/10', 'a/2', 'b/1']);
    spool.dispose();
  });
});
