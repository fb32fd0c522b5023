// search.json's renderer on generated portal text: whatever a portal sends (control characters,
// lone surrogates, quotes, markup, very long strings), the pieces join into one JSON document whose
// values are the text as pages show it, capped; and the same events in batches of any size give
// the same bytes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FeedEvent } from '../../../src/model.js';
import { categoryKey, categorySlug } from '../../../src/paths.js';
import { createRenderContext } from '../../../src/render/context.js';
import { SEARCH_TEXT_MAX, searchIndexChunks } from '../../../src/render/html/search.js';
import { cutText, stripControl } from '../../../src/render/text.js';
import { sampleCalendar, sampleEvent, sampleSite } from '../../fixtures/sample.js';

const ctx = createRenderContext();
const site = sampleSite();
const calendars = [sampleCalendar(), sampleCalendar({ id: 'arts', slug: 'arts', title: 'Arts "&" <Culture>' })];

// Strings of any UTF-16 code units (lone surrogates and controls included), now and then long.
const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: fc.constantFrom('a', ' ', '\u0001', '\uD800', '"', '<', 'é', '😀'), maxLength: 700 }));
const eventArb = fc.record({
  title: text,
  place: fc.option(text, { nil: undefined }),
  description: fc.option(text, { nil: undefined }),
  categories: fc.array(fc.oneof(text, fc.constantFrom('PhD Defence', 'phd-defence', 'Lecture')), { maxLength: 4 }),
  calendar: fc.integer({ min: 0, max: 1 }),
  cancelled: fc.boolean(),
});

type Spec = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

function events(specs: Spec[]): FeedEvent[] {
  return specs.map((s, i) =>
    sampleEvent({
      calendarId: calendars[s.calendar]!.id,
      calendarSlug: calendars[s.calendar]!.slug,
      id: `e${i}`,
      slug: `e${i}`,
      title: s.title,
      description: s.description,
      location: s.place === undefined ? undefined : { text: s.place },
      categories: s.categories,
      status: s.cancelled ? 'cancelled' : 'confirmed',
    }),
  );
}

function render(list: readonly FeedEvent[], batch: number): string {
  const batches: FeedEvent[][] = [];
  for (let i = 0; i < list.length; i += batch) batches.push(list.slice(i, i + batch));
  return [...searchIndexChunks(ctx, calendars, batches, site, new Map())].join('');
}

describe('searchIndexChunks', () => {
  it('gives one JSON document of the text as pages show it, capped, whatever the portal sends, in batches of any size', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 12 }), fc.integer({ min: 1, max: 5 }), (specs, batch) => {
        const list = events(specs);
        const json = render(list, batch);
        expect(render(list, 500)).toBe(json);
        const index = JSON.parse(json) as {
          calendars: Array<{ slug: string; title: string }>;
          events: Array<{ url: string; title: string; place: string | null; description: string | null; calendar: number; categories: number[]; cancelled: boolean }>;
          categories: Array<{ key: string; slug: string; name: string }>;
        };
        expect(index.calendars.map((c) => c.title)).toEqual(calendars.map((c) => c.title));
        expect(index.events).toHaveLength(list.length);
        for (const [i, e] of index.events.entries()) {
          const s = specs[i]!;
          expect(e.url).toBe(`calendars/${calendars[s.calendar]!.slug}/events/e${i}.html`);
          expect(e.title).toBe(cutText(stripControl(s.title), SEARCH_TEXT_MAX));
          expect(e.place).toBe(s.place ? cutText(stripControl(s.place), SEARCH_TEXT_MAX) : null);
          expect([...(e.description ?? '')].length).toBeLessThanOrEqual(200);
          expect(e.calendar).toBe(s.calendar);
          expect(e.cancelled).toBe(s.cancelled);
          const keys = new Set(s.categories.map(categoryKey).filter((k) => k !== ''));
          expect(new Set(e.categories.map((n) => index.categories[n]!.key))).toEqual(keys);
        }
        for (const c of index.categories) expect(c.slug).toBe(categorySlug(c.key));
        // Nothing the portal sent can end the document early or leave a character JSON readers refuse.
        expect(json.endsWith('}\n')).toBe(true);
        expect(json.slice(0, -1)).not.toMatch(/[\u0000-\u001F]/);
        expect(json).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
      }),
      { numRuns: 150 },
    );
  });
});
