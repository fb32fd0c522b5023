// The crawler owns each calendar's group of events: generated portals (empty calendars, details
// that fail, events changed between crawls, rows that stand or not, the clock moved past
// --details-max-age or not) must give every listed event exactly one call and every listed
// calendar exactly one CalendarResult, after the last of its events.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CrawlCache } from '../../src/crawl/index.js';
import { loadCache, saveCache } from '../support/store.js';
import { MemorySink, runCrawl, TOKEN } from './helpers.js';
import { makeEvents, startPortal } from './portal.js';

const HOUR = 3600_000;
const NOW = Date.parse('2024-10-01T12:00:00Z');

interface GenCalendar {
  events: number;
  /** Indexes of events whose details answer 404. */
  failing: number[];
  /** Indexes of events retitled before the second crawl. */
  changed: number[];
}

const calendar: fc.Arbitrary<GenCalendar> = fc.record({
  events: fc.integer({ min: 0, max: 5 }),
  failing: fc.uniqueArray(fc.integer({ min: 0, max: 4 }), { maxLength: 2 }),
  changed: fc.uniqueArray(fc.integer({ min: 0, max: 4 }), { maxLength: 2 }),
});

/** Every listed event got exactly one call, and its calendar one result after them; the result's counts are the calls'. */
function checkResults(sink: MemorySink, listed: Map<string, number>): void {
  expect(sink.results.map((r) => r.calendarId).sort()).toEqual([...listed.keys()].sort());
  for (const result of sink.results) {
    const id = result.calendarId;
    const calls = sink.calls.filter((c) => c.split(' ')[1] === id && /^(stored|details|failed) /.test(c));
    const events = calls.map((c) => c.split(' ')[2]);
    expect(new Set(events).size, id).toBe(events.length);
    expect(result.events, id).toBe(listed.get(id));
    expect(events, id).toHaveLength(result.events);
    expect(calls.filter((c) => c.startsWith('stored ')), id).toHaveLength(result.stored);
    expect(sink.calls.indexOf(`done ${id}`), id).toBeGreaterThan(Math.max(sink.calls.indexOf(`events ${id}`), ...calls.map((c) => sink.calls.indexOf(c))));
  }
}

describe('CalendarResult', () => {
  it("is given exactly once per listed calendar, after all of its events, whatever each event's reuse decision", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(calendar, { maxLength: 4 }), fc.func(fc.boolean()), fc.constantFrom(HOUR, 30 * HOUR), async (gen, rows, advance) => {
        const dir = await mkdtemp(join(tmpdir(), 'calfeed-result-'));
        const ids = gen.map((_, i) => `c${i}`);
        const portal = await startPortal({
          token: TOKEN,
          calendars: ids.map((id) => ({ id, title: `Calendar ${id}` })),
          events: new Map(gen.map((c, i) => [ids[i]!, makeEvents(ids[i]!, c.events)])),
          detailsStatus: (calendarId, eventId) => (gen[ids.indexOf(calendarId)]?.failing.includes(Number(eventId.slice(1)) - 1) ? 404 : undefined),
        });
        try {
          const listed = new Map(gen.map((c, i) => [ids[i]!, c.events]));
          const sink = new MemorySink();
          const cache = CrawlCache.empty();
          await runCrawl(portal.url, cache, sink, { now: NOW, maxFailedDetails: 1 });
          checkResults(sink, listed);
          expect(sink.results.every((r) => r.stored === 0)).toBe(true);
          await saveCache(cache, dir);
          sink.publish();

          for (const [i, c] of gen.entries()) for (const at of c.changed) if (at < c.events) portal.opts.events.get(ids[i]!)![at]!.title = 'Changed';
          sink.rows = (calendarId, eventId) => rows(calendarId, eventId);
          await runCrawl(portal.url, await loadCache(dir), sink, { now: NOW + advance, maxFailedDetails: 1 });
          checkResults(sink, listed);
          // A row is taken only where the sink has one, the entry is unchanged and its details are fresh.
          for (const call of sink.calls.filter((c) => c.startsWith('stored '))) {
            const [, calendarId, eventId] = call.split(' ') as [string, string, string];
            const index = Number(eventId.slice(1)) - 1;
            expect(rows(calendarId, eventId)).toBe(true);
            expect(advance).toBeLessThan(24 * HOUR);
            expect(gen[ids.indexOf(calendarId)]!.changed.includes(index) || gen[ids.indexOf(calendarId)]!.failing.includes(index)).toBe(false);
          }
        } finally {
          await portal.close();
          await rm(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
