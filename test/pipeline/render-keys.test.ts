import { describe, expect, it } from 'vitest';
import { calendarKeys, eventFacts, renderEnvironment, upcomingOfRefs } from '../../src/pipeline/render-keys.js';
import type { EventRef } from '../../src/pipeline/spool.js';
import type { Calendar, FeedEvent, SiteContext } from '../../src/model.js';
import { sampleCalendar, sampleEvent, sampleModel, sampleSite } from '../fixtures/sample.js';
import { createRenderContext } from '../../src/render/context.js';
import { upcomingCount } from '../support/render.js';

const ctx = createRenderContext();

const HOUR = 3_600_000;

/** Refs as the build makes them (without a spool: `at` indexes `records`). */
function refsOf(cal: Calendar, events: FeedEvent[], site: SiteContext): { refs: EventRef[]; record: (ref: EventRef) => Buffer } {
  const records = events.map((e) => Buffer.from(JSON.stringify(e)));
  const refs = events.map((e, at) => ({ calendarId: e.calendarId, id: e.id, ...eventFacts(ctx, cal, e, site), at, jsonBytes: records[at]!.length, veventBytes: 0, itemsBytes: 0 }));
  return { refs, record: (ref) => records[ref.at]! };
}

/** Every instant an event of the sample starts or ends, and a millisecond either side. */
function boundaries(events: FeedEvent[], cal: Calendar, site: SiteContext): number[] {
  const times = new Set<number>();
  for (const e of events) {
    const f = eventFacts(ctx, cal, e, site);
    for (const t of [f.start, f.end, f.pageStart, f.pageEnd]) for (const d of [-1, 0, 1]) times.add(t + d);
  }
  return [...times].sort((a, b) => a - b);
}

describe('render keys', () => {
  it("counts a calendar's upcoming events from its refs exactly as index.html's upcomingCount does from its events, at every boundary", () => {
    const model = sampleModel();
    // An event with no end (upcoming until it starts) and one already over, besides the sample's.
    const cal = sampleCalendar();
    const events = [
      ...model.events.get(cal.id)!,
      sampleEvent({ id: 'e4', slug: 'e4', when: { kind: 'timed', start: Date.UTC(2026, 2, 21, 10, 0) } }),
      sampleEvent({ id: 'e5', slug: 'e5', when: { kind: 'allDay', startDate: '2026-03-01', endDate: '2026-03-02' } }),
    ];
    const nows = boundaries(events, cal, sampleSite());
    const seen = new Set<number>();
    for (const now of nows) {
      const site = sampleSite({ now });
      const { refs } = refsOf(cal, events, site);
      const count = upcomingCount(ctx, cal, events, site);
      expect(upcomingOfRefs(refs, site), new Date(now).toISOString()).toBe(count);
      seen.add(count);
    }
    // The boundaries took the count through every value: four events, the cancelled lab tour not counted.
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('keys do not depend on "now" (what renderers take from it is in their clock), only on the data, settings and templates', () => {
    const cal = sampleCalendar();
    const events = sampleModel().events.get(cal.id)!;
    const keysAt = (now: number, overrides: Partial<SiteContext> = {}) => {
      const site = sampleSite({ now, ...overrides });
      const { refs, record } = refsOf(cal, events, site);
      return calendarKeys({ environment: renderEnvironment(site, 'templates'), calendars: JSON.stringify([cal]), cal, refs, ics: [], record });
    };
    const noon = Date.UTC(2026, 2, 20, 12, 0);
    // An hour later; after the lecture of the 25th is over (17:00 UTC); after midnight in Vilnius.
    for (const later of [noon + HOUR, Date.UTC(2026, 2, 25, 17, 0), Date.UTC(2026, 2, 20, 22, 0)]) expect(keysAt(later)).toEqual(keysAt(noon));
    // Any site setting but "now", and the templates, are inputs.
    expect(keysAt(noon, { title: 'Other' }).files).not.toBe(keysAt(noon).files);
    expect(keysAt(noon, { refreshMinutes: 60 }).files).not.toBe(keysAt(noon).files);
  });
});
