// Every demo-portal dialect normalizes to the same events as the portal's own model (issue 8):
// same titles, UTC instants, all-day ranges, locations and cancellations. Uses the demo's pure
// serializers (no server): the HTTP path is covered by the end-to-end tests.
import { describe, expect, it } from 'vitest';
import { curatedSource } from '../../src/demo/curated.js';
import type { DemoEvent } from '../../src/demo/data.js';
import { calendarsBody, detailsBody, DIALECTS, eventsBody } from '../../src/demo/dialects.js';
import { assignSegments } from '../../src/paths.js';
import { findList, normalizeCalendars, normalizeEvent, rawId, type NormalizeOptions } from '../../src/normalize/index.js';

const NOW = Date.UTC(2026, 2, 20, 12); // a week before the EU spring DST change
const source = curatedSource(NOW);

function expected(e: DemoEvent) {
  const loc = e.location;
  return {
    id: String(e.id),
    title: e.title,
    when: e.when.kind === 'timed' ? { kind: 'timed', start: e.when.start, ...(e.when.end !== undefined && { end: e.when.end }) } : e.when,
    location: loc === undefined ? undefined : typeof loc === 'string' ? loc : `${loc.name}, ${loc.address}`,
    status: e.cancelled ? 'cancelled' : 'confirmed',
    updated: e.updatedAt,
    categories: e.categories,
  };
}

describe.each(DIALECTS)('dialect %s', (dialect) => {
  // `--time-zone` left at UTC on purpose: the multilingual dialect's wall times must be read in the calendar's own zone.
  const opts: NormalizeOptions = { timeZone: 'UTC', locales: ['en'], ...(dialect === 'custom' && { fields: { event: { start: 'kickoff.at' } } }) };

  it('normalizes every calendar and event like the portal model', () => {
    const { calendars, warnings } = normalizeCalendars(findList(JSON.parse(calendarsBody(dialect, source.calendars())), 'calendars').items, opts);
    expect(warnings).toEqual([]);
    expect(calendars.map((c) => [c.id, c.title, c.timeZone])).toEqual(source.calendars().map((c) => [String(c.id), c.title, c.timeZone]));

    for (const calendar of calendars) {
      const demoEvents = source.events(calendar.id)!;
      const list = findList(JSON.parse(eventsBody(dialect, demoEvents)), 'events');
      const ids = list.items.map((entry) => rawId(entry, 'event', opts.fields)!);
      expect(ids).toEqual(demoEvents.map((e) => String(e.id)));
      const slugs = assignSegments(ids);
      list.items.forEach((entry, i) => {
        const details = JSON.parse(detailsBody(dialect, demoEvents[i]!));
        const { event, warnings: w } = normalizeEvent(entry, details, calendar, slugs.get(ids[i]!)!, opts);
        expect(w).toEqual([]);
        expect({
          id: event?.id,
          title: event?.title,
          when: event?.when,
          location: event?.location?.text,
          status: event?.status,
          updated: event?.updated,
          categories: event?.categories,
        }).toEqual(expected(demoEvents[i]!));
        expect(event?.url).toBe(demoEvents[i]!.url);
        expect(event?.organizer).toEqual(demoEvents[i]!.organizer);
      });
    }
  });
});
