// A calendar page's day list rendered a few days at a time must be the page rendered whole, byte
// for byte: the pieces are only a way not to hold a page of 100,000 events at once.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRenderContext } from '../../../src/render/context.js';
import { calendarDayViews } from '../../../src/render/html/view.js';
import { sampleCalendar, sampleSite } from '../../fixtures/sample.js';
import { dayEvents as events } from './day-events.js';
import { calendarViews, loadTemplates } from '../../support/render.js';

const ctx = createRenderContext();
const site = sampleSite();
const cal = sampleCalendar();

/** Events before and after "now" (timed, all-day, ongoing, cancelled, with control characters), in the order given. */
const eventsArb = fc.array(
  fc.record({ hours: fc.integer({ min: -24 * 40, max: 24 * 40 }), length: fc.integer({ min: 1, max: 24 * 5 }), allDay: fc.boolean(), cancelled: fc.boolean(), title: fc.string() }),
  { maxLength: 60 },
);


describe('calendar pages in pieces', () => {
  it('join to the page rendered whole, for any piece size', async () => {
    const templates = await loadTemplates();
    await fc.assert(
      fc.asyncProperty(eventsArb, fc.integer({ min: 1, max: 8 }), async (specs, size) => {
        const list = events(specs);
        const text = templates.catalogs.pick([site.locale]);
        const whole = calendarViews(ctx, cal, list, site, text);
        const pieces = calendarDayViews(ctx, cal, list, site, text);
        const index = [...templates.renderDays('calendar', pieces.index, pieces.index.days, size, text)];
        const past = [...templates.renderDays('past', pieces.past, pieces.past.days, size, text)];
        expect(index.join('')).toBe(templates.render('calendar', whole.index, text));
        expect(past.join('')).toBe(templates.render('past', whole.past, text));
        // Cut up indeed: the page around the list, and a piece per `size` events at least.
        if (whole.index.days.length > 0) expect(index.length).toBeGreaterThanOrEqual(3);
      }),
      { numRuns: 60 },
    );
  });

  // A calendar of 100,000 events held every ListEvent while its pages were written; its pages now
  // read them from the spool a part at a time.
  it('from a source read when asked: the same bytes, each day list part read as it is rendered, never the list whole', async () => {
    const templates = await loadTemplates();
    await fc.assert(
      fc.asyncProperty(eventsArb, fc.integer({ min: 1, max: 8 }), async (specs, size) => {
        const list = events(specs);
        const text = templates.catalogs.pick([site.locale]);
        const reads: number[] = [];
        const source = { length: list.length, read: (at: readonly number[]) => (reads.push(at.length), at.map((i) => list[i]!)), [Symbol.iterator]: () => list[Symbol.iterator]() };
        const fromSource = calendarDayViews(ctx, cal, source, site, text);
        const inMemory = calendarDayViews(ctx, cal, list, site, text);
        expect(fromSource.widget).toEqual(inMemory.widget);
        expect(reads).toEqual([Math.min(20, list.length - fromSource.index.pastCount)]);
        const pages = ['calendar', 'past'] as const;
        for (const [name, view, other] of [[pages[0], fromSource.index, inMemory.index], [pages[1], fromSource.past, inMemory.past]] as const) {
          reads.length = 0;
          const pieces: string[] = [];
          const before: number[] = [];
          for (const piece of templates.renderDays(name, view, view.days, size, text)) {
            pieces.push(piece);
            before.push(reads.length);
          }
          expect(pieces.join('')).toBe([...templates.renderDays(name, other, other.days, size, text)].join(''));
          // One read per piece of the list (not before it is rendered), each of whole days.
          expect(reads.length).toBe(Math.max(0, pieces.length - 2));
          expect(before).toEqual(pieces.map((_, i) => Math.max(0, Math.min(i, pieces.length - 2))));
        }
      }),
      { numRuns: 60 },
    );
  });
});
