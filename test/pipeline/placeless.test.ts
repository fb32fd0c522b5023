import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FeedEvent } from '../../src/model.js';
import { placelessWarning, siteWarnings } from '../../src/pipeline/placeless.js';
import { eventFacts } from '../../src/pipeline/render-keys.js';
import type { EventRef } from '../../src/pipeline/spool.js';
import { createRenderContext } from '../../src/render/context.js';
import { isUpcoming, pageSpan } from '../../src/render/html/index.js';
import { eventSchema } from '../../src/render/html/jsonld.js';
import { sampleCalendar, sampleEvent, sampleSite } from '../fixtures/sample.js';

const ctx = createRenderContext();
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 20, 12, 0);

const eventArb = fc.record({
  calendar: fc.constantFrom('science', 'arts', '42'),
  start: fc.integer({ min: -20, max: 20 }).map((d) => T0 + d * DAY),
  hours: fc.option(fc.integer({ min: 1, max: 72 })),
  // Mostly none, so that lists past the ten named come up often.
  location: fc.oneof({ arbitrary: fc.constant('none' as const), weight: 4 }, fc.constant('place' as const), fc.constant('online' as const)),
  cancelled: fc.boolean(),
});

type EventSpec = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

/** Refs as the build spools them, by calendar in list order, and the events they were made from. */
function spooled(specs: Array<EventSpec>, now: number): { events: FeedEvent[]; byCalendar: Map<string, EventRef[]> } {
  const site = sampleSite({ now });
  const events = specs.map((s, i): FeedEvent => {
    const location = s.location === 'none' ? undefined : s.location === 'online' ? { text: 'https://meet.example.edu/x' } : { name: 'Main Hall', text: 'Main Hall' };
    return sampleEvent({
      calendarId: s.calendar,
      calendarSlug: s.calendar,
      id: `e${i}`,
      slug: `e${i}`,
      when: { kind: 'timed', start: s.start, ...(s.hours === null ? {} : { end: s.start + s.hours * 3_600_000 }) },
      location,
      status: s.cancelled ? 'cancelled' : 'confirmed',
    });
  });
  const byCalendar = new Map<string, EventRef[]>();
  for (const e of events) {
    const cal = sampleCalendar({ id: e.calendarId, slug: e.calendarSlug });
    const refs = byCalendar.get(e.calendarId) ?? [];
    byCalendar.set(e.calendarId, [...refs, { calendarId: e.calendarId, id: e.id, ...eventFacts(ctx, cal, e, site), at: 0, jsonBytes: 0, veventBytes: 0, itemsBytes: 0 }]);
  }
  return { events, byCalendar };
}

/** The [calendar, event] pairs a warning names, in its order. */
function namedIn(warning: string): Array<[string, string]> {
  return [...warning.matchAll(/event "([^"]+)" of calendar "([^"]+)"/g)].map((m): [string, string] => [m[2]!, m[1]!]);
}

const byStart = (a: FeedEvent, b: FeedEvent): number => {
  const start = (e: FeedEvent) => (e.when.kind === 'timed' ? e.when.start : 0);
  return start(a) - start(b) || (a.calendarId < b.calendarId ? -1 : a.calendarId > b.calendarId ? 1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
};

describe('the warning for upcoming events without a location', () => {
  it("names exactly the upcoming events, cancelled ones aside, whose page's JSON-LD has no location, the ten soonest, and counts them", () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 50, size: 'max' }), fc.integer({ min: -25, max: 25 }), (specs, nowDay) => {
        const now = T0 + nowDay * DAY;
        const { events, byCalendar } = spooled(specs, now);
        const site = sampleSite({ now });
        // The oracle: what the event pages say, soonest first.
        const expected = events
          .filter((e) => {
            const cal = sampleCalendar({ id: e.calendarId, slug: e.calendarSlug });
            const schema = eventSchema(ctx, cal, e, site.siteUrl, cal.timeZone);
            const upcoming = isUpcoming(pageSpan(ctx, cal, e, site), site.clock);
            return schema.location === undefined && schema.eventStatus !== 'https://schema.org/EventCancelled' && upcoming;
          })
          .sort(byStart)
          .map((e): [string, string] => [e.calendarId, e.id]);
        const warning = placelessWarning(byCalendar, site);
        if (expected.length === 0) {
          expect(warning).toBeUndefined();
          return;
        }
        expect(namedIn(warning!)).toEqual(expected.slice(0, 10));
        expect(warning).toMatch(expected.length === 1 ? /^1 upcoming event has no location, so search engines will not list it as events/ : new RegExp(`^${expected.length} upcoming events have no location`));
        if (expected.length > 10) expect(warning).toMatch(new RegExp(` and ${expected.length - 10} more\\.$`));
        else expect(warning).toMatch(/"\.$/);
      }),
      { numRuns: 300 },
    );
  });

  it('regression: named the events in the order the crawl spooled them, so two builds of the same data warned differently', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 30, size: 'max' }), fc.func(fc.integer()), (specs, rank) => {
        const { byCalendar } = spooled(specs, T0);
        const site = sampleSite({ now: T0 });
        // The same refs, calendars and events within each in another order.
        const shuffled = new Map([...byCalendar].sort(([a], [b]) => rank(a) - rank(b)).map(([id, refs]) => [id, [...refs].sort((x, y) => rank(x.id) - rank(y.id))]));
        expect(placelessWarning(shuffled, site)).toBe(placelessWarning(byCalendar, site));
      }),
      { numRuns: 200 },
    );
  });

  it('holds until the instant it gives: the same warnings at every instant before, others at it', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 30, size: 'max' }), fc.integer({ min: -25, max: 25 }), fc.double({ min: 0, max: 1, noNaN: true }), (specs, nowDay, where) => {
        const now = T0 + nowDay * DAY;
        // Facts do not depend on "now" (page spans are instants): the refs made at `now` serve every instant.
        const { byCalendar } = spooled(specs, now);
        const at = (t: number) => siteWarnings(byCalendar, sampleSite({ now: t }));
        const { warnings, until } = at(now);
        expect(until).toBeGreaterThan(now);
        // For good: the same however late (every event has ended by then).
        if (!Number.isFinite(until)) {
          expect(at(now + 1000 * DAY).warnings).toEqual(warnings);
          return;
        }
        const before = now + Math.floor((until - 1 - now) * where);
        expect(at(before).warnings).toEqual(warnings);
        expect(at(until - 1).warnings).toEqual(warnings);
        expect(at(until).warnings).not.toEqual(warnings);
      }),
      { numRuns: 300 },
    );
  });
});
