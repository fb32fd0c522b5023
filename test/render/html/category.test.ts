import { describe, expect, it } from 'vitest';
import { listEvent, type Category } from '../../../src/model.js';
import { createRenderContext } from '../../../src/render/context.js';
import { loadHtmlRenderer } from '../../../src/render/html/index.js';
import type { EventSource } from '../../../src/render/html/view.js';
import { eventCategoryLinks } from '../../../src/render/html/category.js';
import { sampleCalendar, sampleEvent, sampleSite } from '../../fixtures/sample.js';
import { byClass, parse, select, text } from './dom.js';
import { userDir } from './user-dir.js';

const ctx = createRenderContext();
const site = sampleSite();
const science = sampleCalendar();
const arts = sampleCalendar({ id: 'arts', slug: 'arts', title: 'Arts', timeZone: 'America/New_York' });
const lecture: Category = { key: 'lecture', slug: 'lecture', name: 'Lecture' };
// Upcoming at SAMPLE_NOW (2026-03-20 12:00 UTC), by start, of two calendars in two zones.
const events = [
  sampleEvent({ id: 'a', slug: 'a', when: { kind: 'timed', start: Date.UTC(2026, 2, 25, 15, 0) } }),
  sampleEvent({ calendarId: 'arts', calendarSlug: 'arts', id: 'b', slug: 'b', title: 'Evening talk', when: { kind: 'timed', start: Date.UTC(2026, 2, 26, 1, 0) } }),
  sampleEvent({ id: 'c', slug: 'c', title: 'Late lecture', when: { kind: 'timed', start: Date.UTC(2026, 3, 2, 9, 0) } }),
].map(listEvent);

describe('a category page', () => {
  it("lists the events of every calendar by day in the site's zone, each with its calendar's time and link", async () => {
    const html = await loadHtmlRenderer();
    const doc = parse([...html.categoryPieces(ctx, lecture, [science, arts], events, 3, site)].join(''));
    expect(text(select(doc, 'h1')[0]!)).toBe('Lecture');
    // 01:00 UTC on the 26th is the 26th in Vilnius (the site's zone), 21:00 on the 25th in New York.
    expect(byClass(doc, 'day').map((day) => select(day, 'time')[0]!.attribs.datetime)).toEqual(['2026-03-25', '2026-03-26', '2026-04-02']);
    expect(byClass(doc, 'event-time').map(text)).toContain('9:00 PM');
    expect(byClass(doc, 'event-calendar').map(text)).toEqual(['Faculty of Science', 'Arts', 'Faculty of Science']);
    expect(byClass(doc, 'event-title').flatMap((p) => select(p, 'a')).map((a) => a.attribs.href)).toEqual([
      '../../calendars/science/events/a.html',
      '../../calendars/arts/events/b.html',
      '../../calendars/science/events/c.html',
    ]);
    expect(select(doc, 'input')[0]!.attribs.value).toBe(site.siteUrl + 'categories/lecture/calendar.ics');
  });

  it('a --templates override of it is used, given the days, and leaves the built-in page as it was', async () => {
    const builtin = await loadHtmlRenderer();
    const pieces = [...builtin.categoryPieces(ctx, lecture, [science, arts], events, 3, site)];
    const dir = await userDir({ 'pages/category.hbs': '{{category.name}} ({{upcomingCount}}):{{#each days}} {{key}}={{events.length}}{{/each}}' });
    const own = await loadHtmlRenderer(dir);
    expect([...own.categoryPieces(ctx, lecture, [science, arts], events, 3, site)]).toEqual(['Lecture (3): 2026-03-25=1 2026-03-26=1 2026-04-02=1']);
    // The override does not change the built-in page.
    expect([...builtin.categoryPieces(ctx, lecture, [science, arts], events, 3, site)]).toEqual(pieces);
  });
});

describe('a category page from a source that reads its events when asked', () => {
  it('is the page its events in memory make, and asks for each piece of the list alone, never all at once', async () => {
    const html = await loadHtmlRenderer();
    // 1,200 events over 40 days: more than one piece of the day list (500 events, whole days).
    const many = Array.from({ length: 1200 }, (_, i) =>
      listEvent(sampleEvent({ id: `e${i}`, slug: `e${i}`, title: `Talk ${i}`, when: { kind: 'timed', start: Date.UTC(2026, 2, 21) + Math.floor(i / 30) * 86_400_000 + (i % 30) * 60_000 } })),
    );
    const asked: number[] = [];
    const source: EventSource = {
      length: many.length,
      read: (at) => {
        asked.push(at.length);
        return at.map((i) => many[i]!);
      },
      [Symbol.iterator]: () => many[Symbol.iterator](),
    };
    const fromSource = [...html.categoryPieces(ctx, lecture, [science, arts], source, many.length, site)];
    expect(fromSource.join('')).toBe([...html.categoryPieces(ctx, lecture, [science, arts], many, many.length, site)].join(''));
    expect(fromSource.length).toBeGreaterThan(3);
    expect(asked.reduce((a, b) => a + b, 0)).toBe(many.length);
    expect(Math.max(...asked)).toBeLessThanOrEqual(510);
  });
});

describe("an event's category links", () => {
  it('link each category once, in the event\'s spelling, skipping names with no letters or digits', () => {
    expect(eventCategoryLinks(['Seminar', 'seminar', ' -- ', 'PhD Defence', '日本語'], 'calendars/x/events/e.html')).toEqual([
      { name: 'Seminar', href: '../../../categories/seminar/index.html' },
      { name: 'PhD Defence', href: '../../../categories/phd-defence/index.html' },
      { name: '日本語', href: expect.stringMatching(/^\.\.\/\.\.\/\.\.\/categories\/_[a-z2-7]{10}\/index\.html$/) as unknown as string },
    ]);
  });
});
