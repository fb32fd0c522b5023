// Differential test: calfeed's iCalendar serializer against the `ics` package as an independent
// implementation. Both outputs go through ical.js and must agree on every property both write.
// (calfeed does not ship `ics`: it folds by code points, hard-codes X-PUBLISHED-TTL, leaves
// CATEGORIES unescaped and rejects a whole calendar for one bad URL; see CONTRIBUTING.md.)
import ICAL from 'ical.js';
import { createEvent, type EventAttributes } from 'ics';
import { describe, expect, it } from 'vitest';
import type { FeedEvent } from '../../../src/model.js';
import { eventUid } from '../../../src/render/ical/event.js';
import { renderEventIcs } from '../../../src/render/ical/index.js';
import { sampleEvent, sampleSite } from '../../fixtures/sample.js';
import { createRenderContext } from '../../../src/render/context.js';

const ctx = createRenderContext();

const site = sampleSite();

function viaIcs(e: FeedEvent): string {
  const attrs: Record<string, unknown> = {
    uid: eventUid(ctx, e, site),
    title: e.title,
    description: e.description,
    location: e.location?.text,
    url: e.url,
    status: e.status.toUpperCase(),
    sequence: e.sequence,
    productId: 'oracle',
  };
  if (e.when.kind === 'timed') {
    attrs.start = e.when.start;
    attrs.startInputType = 'utc';
    attrs.startOutputType = 'utc';
    if (e.when.end !== undefined) Object.assign(attrs, { end: e.when.end, endInputType: 'utc', endOutputType: 'utc' });
  } else {
    const [y, m, d] = e.when.startDate.split('-').map(Number);
    const [ey, em, ed] = e.when.endDate.split('-').map(Number) as [number, number, number];
    const last = new Date(Date.UTC(ey, em - 1, ed) + 86_400_000);
    attrs.start = [y, m, d];
    attrs.end = [last.getUTCFullYear(), last.getUTCMonth() + 1, last.getUTCDate()];
  }
  const { error, value } = createEvent(attrs as EventAttributes);
  if (error || !value) throw error ?? new Error('ics returned nothing');
  return value;
}

function props(ics: string): Record<string, unknown> {
  const vevent = new ICAL.Component(ICAL.parse(ics)).getFirstSubcomponent('vevent')!;
  const get = (name: string) => {
    const v = vevent.getFirstPropertyValue(name);
    return v instanceof ICAL.Time ? v.toString() : v;
  };
  return {
    uid: get('uid'),
    summary: get('summary'),
    dtstart: get('dtstart'),
    dtend: get('dtend'),
    location: get('location'),
    url: get('url'),
    status: get('status'),
    sequence: get('sequence'),
  };
}

const cases: Array<[string, FeedEvent]> = [
  ['a timed event', sampleEvent()],
  ['text that needs escaping', sampleEvent({ id: 'esc', slug: 'esc', title: 'Talk: a, b; c \\ d', location: { text: 'Room 1; Building A, floor 2' } })],
  ['an all-day range', sampleEvent({ id: 'ad', slug: 'ad', when: { kind: 'allDay', startDate: '2026-12-24', endDate: '2026-12-26' } })],
  ['a cancelled event', sampleEvent({ id: 'cx', slug: 'cx', status: 'cancelled', sequence: 3 })],
  ['an emoji-heavy title', sampleEvent({ id: 'emo', slug: 'emo', title: 'Pavasario šventė 🌸🎉🎶 — Frühlingsfest 春祭り with a long tail of text' })],
];

describe('calfeed iCalendar agrees with the ics package', () => {
  it.each(cases)('%s', (_name, event) => {
    const ours = props(renderEventIcs(ctx, event, site));
    const theirs = props(viaIcs(event));
    expect(ours).toEqual(theirs);
  });
});
