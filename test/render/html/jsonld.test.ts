// The event pages' schema.org JSON-LD against what Google's Event rich results require
// (test/support/google-event.ts): every event with a location passes, whatever the portal gave.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventLocation } from '../../../src/model.js';
import { createRenderContext } from '../../../src/render/context.js';
import { eventSchema } from '../../../src/render/html/jsonld.js';
import { locationOf } from '../../../src/normalize/values.js';
import { sampleCalendar, sampleEvent } from '../../fixtures/sample.js';
import { googleEventProblems } from '../../support/google-event.js';

const ctx = createRenderContext();
const cal = sampleCalendar();
const SITE = 'https://events.example.edu/';
const schemaOf = (overrides: Parameters<typeof sampleEvent>[0]) => eventSchema(ctx, cal, sampleEvent(overrides), SITE, 'Europe/Vilnius');

describe('event JSON-LD', () => {
  it.each<[string, EventLocation, Record<string, unknown>]>([
    [
      'address in parts',
      { name: 'Nida Station', address: 'Taikos g. 4, 93121 Neringa', addressParts: { streetAddress: 'Taikos g. 4', postalCode: '93121', addressLocality: 'Neringa' }, text: 'Nida Station, Taikos g. 4, 93121 Neringa' },
      { '@type': 'Place', name: 'Nida Station', address: { '@type': 'PostalAddress', streetAddress: 'Taikos g. 4', postalCode: '93121', addressLocality: 'Neringa' } },
    ],
    ['address text', { name: 'Main Hall', address: 'Universiteto g. 3, Vilnius', text: 'Main Hall, Universiteto g. 3, Vilnius' }, { '@type': 'Place', name: 'Main Hall', address: 'Universiteto g. 3, Vilnius' }],
    // All the portal says of the place: it is the address too, rather than an event Google drops.
    ['a room only', { name: 'Room 204', text: 'Room 204' }, { '@type': 'Place', name: 'Room 204', address: 'Room 204' }],
    ['address only', { address: 'Katedros a. 1', text: 'Katedros a. 1' }, { '@type': 'Place', name: 'Katedros a. 1', address: 'Katedros a. 1' }],
  ])('%s: a Place with an address, attended in person', (_name, location, place) => {
    const ld = schemaOf({ location });
    expect(ld.location).toEqual(place);
    expect(ld.eventAttendanceMode).toBe('https://schema.org/OfflineEventAttendanceMode');
    expect(googleEventProblems(ld)).toEqual([]);
  });

  it('a web address as the location: a VirtualLocation, attended online', () => {
    const ld = schemaOf({ location: { name: 'https://meet.example.edu/seminar?id=7', text: 'https://meet.example.edu/seminar?id=7' } });
    expect(ld.location).toEqual({ '@type': 'VirtualLocation', url: 'https://meet.example.edu/seminar?id=7' });
    expect(ld.eventAttendanceMode).toBe('https://schema.org/OnlineEventAttendanceMode');
    expect(googleEventProblems(ld)).toEqual([]);
  });

  it('no location: none made up, no attendance mode, and the checker says why Google would drop it', () => {
    const ld = schemaOf({ location: undefined });
    expect(ld.location).toBeUndefined();
    expect(ld.eventAttendanceMode).toBeUndefined();
    expect(googleEventProblems(ld)).toEqual(['no location']);
  });

  it('a cancelled event says so; image, organizer and the portal page are carried', () => {
    const ld = schemaOf({ status: 'cancelled', image: 'https://portal.example.edu/media/1.jpg' });
    expect(ld.eventStatus).toBe('https://schema.org/EventCancelled');
    expect(ld.image).toEqual(['https://portal.example.edu/media/1.jpg']);
    expect(ld.organizer).toEqual({ '@type': 'Organization', name: 'Dr. Ada', email: 'ada@example.edu' });
    expect(ld.sameAs).toBe('https://portal.example.edu/events/e1');
    expect(googleEventProblems(ld)).toEqual([]);
  });

  it('passes for every location the normalizer can make from portal data', () => {
    const text = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('https://meet.example.edu/x', 'http://a.b', ' ', 'javascript:alert(1)'));
    const raw = fc.oneof(
      text,
      fc.record({ name: text, address: fc.oneof(text, fc.record({ street: text, city: text, zip: text, country: text }, { requiredKeys: [] })) }, { requiredKeys: [] }),
      fc.record({ venue: fc.record({ title: text, streetAddress: text, town: text }, { requiredKeys: [] }) }, { requiredKeys: [] }),
    );
    fc.assert(
      fc.property(raw, fc.boolean(), (value, allDay) => {
        const location = locationOf(value, ['en']);
        fc.pre(location !== undefined);
        const when = allDay ? ({ kind: 'allDay', startDate: '2026-04-06', endDate: '2026-04-06' } as const) : undefined;
        const ld = schemaOf({ location, ...(when ? { when } : {}) });
        expect(googleEventProblems(ld)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
