// The home page: featured events first, then today (in progress included), this week and later,
// each event with its calendar; and how long that arrangement holds.
import { beforeAll, describe, expect, it } from 'vitest';
import type { FeedEvent } from '../../../src/model.js';
import { createRenderContext } from '../../../src/render/context.js';
import { loadHtmlRenderer, type HtmlRenderer } from '../../../src/render/html/index.js';
import { HOME_EVENTS } from '../../../src/render/html/home.js';
import { sampleCalendar, sampleEvent, sampleModel, sampleSite } from '../../fixtures/sample.js';
import { byClass, parse, select, text } from './dom.js';
import { homeEvents, upcomingCounts } from '../../support/render.js';

const ctx = createRenderContext();
let html: HtmlRenderer;
beforeAll(async () => {
  html = await loadHtmlRenderer();
});

// 2026-03-20 12:00 UTC is 14:00 in Vilnius, a Friday.
const NOW = Date.UTC(2026, 2, 20, 12, 0);
const HOUR = 3_600_000;
const at = (hours: number) => ({ kind: 'timed' as const, start: NOW + hours * HOUR, end: NOW + (hours + 1) * HOUR });

function homeOf(events: FeedEvent[], site = sampleSite({ now: NOW })) {
  const model = sampleModel();
  model.events.set(sampleCalendar().id, events);
  // The events are chosen with a clock of their own, as the build chooses them with each calendar's.
  const choosing = sampleSite({ now: NOW });
  const page = html.index(ctx, model.calendars, upcomingCounts(ctx, model, choosing), homeEvents(ctx, model, choosing), [], site);
  const doc = parse(page);
  const section = (id: string) => {
    const heading = select(doc, 'h2', { id });
    if (heading.length === 0) return undefined;
    const section = select(doc, 'section', { 'aria-labelledby': id });
    return byClass(section[0]!, 'event-title').map(text);
  };
  return { doc, site, featured: section('featured-heading'), today: section('today-heading'), week: section('week-heading'), later: section('later-heading') };
}

describe('the home page', () => {
  it('lists the soonest events under today, this week and later, featured ones first, each with its calendar', () => {
    const home = homeOf([
      sampleEvent({ id: 'now', slug: 'now', title: 'Seminar today', when: at(2) }),
      sampleEvent({ id: 'running', slug: 'running', title: 'Exhibition', when: { kind: 'allDay', startDate: '2026-03-18', endDate: '2026-03-25' } }),
      sampleEvent({ id: 'tue', slug: 'tue', title: 'Tuesday talk', when: at(4 * 24), featured: true }),
      sampleEvent({ id: 'far', slug: 'far', title: 'Summer school', when: at(60 * 24) }),
      sampleEvent({ id: 'gone', slug: 'gone', title: 'Cancelled gala', when: at(5 * 24), featured: true, status: 'cancelled' }),
      sampleEvent({ id: 'past', slug: 'past', title: 'Last week', when: at(-7 * 24) }),
    ]);
    expect(home.featured).toEqual(['Tuesday talk']);
    expect(home.today).toEqual(['Exhibition', 'Seminar today']);
    expect(home.week).toEqual(['Tuesday talk', 'Cancelled Cancelled gala']);
    expect(home.later).toEqual(['Summer school']);
    // Each item links to its event and its calendar, relative to the site root.
    const links = select(home.doc, 'a').map((a) => a.attribs.href);
    expect(links).toContain('calendars/science/events/tue.html');
    expect(byClass(home.doc, 'event-calendar').map(text)[0]).toBe(sampleCalendar().title);
    // The exhibition started before today: it is in progress.
    expect(text(byClass(home.doc, 'event').find((li) => text(li).includes('Exhibition'))!)).toContain('Ongoing');
    // Today and this week end at the next midnight in the site's zone (Vilnius, UTC+2 in March).
    expect(home.site.clock.changesAt).toBe(Date.UTC(2026, 2, 20, 22, 0));
  });

  it(`lists at most ${HOME_EVENTS} events, and says so when there are none`, () => {
    const many = Array.from({ length: HOME_EVENTS + 5 }, (_, i) => sampleEvent({ id: `e${i}`, slug: `e${i}`, title: `Event ${i}`, when: at(24 * 10 + i) }));
    const home = homeOf(many);
    expect(home.later).toHaveLength(HOME_EVENTS);
    const none = homeOf([]);
    expect([none.today, none.week, none.later, none.featured]).toEqual([undefined, undefined, undefined, undefined]);
    expect(select(none.doc, 'main').map(text).join('')).toContain('No upcoming events.');
  });
});
