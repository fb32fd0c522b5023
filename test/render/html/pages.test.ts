import { beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import type { FeedEvent } from '../../../src/model.js';
import { loadHtmlRenderer, type HtmlRenderer } from '../../../src/render/html/index.js';
import { SAMPLE_NOW, sampleCalendar, sampleEvent, sampleModel, sampleSite } from '../../fixtures/sample.js';
import { byClass, one, parse, select, text } from './dom.js';
import { renderHtmlSite } from './site.js';
import { createRenderContext } from '../../../src/render/context.js';
import { calendarPages, homeEvents, upcomingCounts } from '../../support/render.js';

const ctx = createRenderContext();

let html: HtmlRenderer;
beforeAll(async () => {
  html = await loadHtmlRenderer();
});

const site = sampleSite();
const HOUR = 3_600_000;

/** Scripts that did not come from our templates: anything but page.js and the JSON-LD block. */
function foreignScripts(page: string) {
  return select(parse(page), 'script').filter(
    (s) => !(s.attribs.type === 'application/ld+json') && !/^(\.\.\/)*page\.js$/.test(s.attribs.src ?? ''),
  );
}

function jsonLd(page: string): Record<string, unknown> {
  const script = one(select(parse(page), 'script', { type: 'application/ld+json' }), 'JSON-LD script');
  return JSON.parse(text(script)) as Record<string, unknown>;
}

describe('hostile data', () => {
  it('shows the sample hostile title as text on every page it appears on, with no script of its own', () => {
    const model = sampleModel();
    const arts = model.calendars[1]!;
    const event = model.events.get(arts.id)![0]!;
    const pages = calendarPages(html, ctx, arts, model.events.get(arts.id)!, site);
    const eventPage = html.event(ctx, arts, event, site);
    for (const page of [pages.index, pages.widget, eventPage]) {
      expect(page).not.toContain('<script>alert(1)');
      expect(foreignScripts(page)).toEqual([]);
      const titles = select(parse(page), 'a').map(text).concat(select(parse(page), 'h1').map(text));
      expect(titles).toContain('Choir concert <script>alert(1)</script>');
    }
    expect(jsonLd(eventPage).name).toBe('Choir concert <script>alert(1)</script>');
  });

  it('keeps JSON-LD inside its <script> whatever the title holds', () => {
    const title = 'Talk </script><script>alert(2)</script> <!-- \u2028\u2029 & </SCRIPT >';
    const event = sampleEvent({ title, description: '</script><img src=x onerror=alert(3)>' });
    const page = html.event(ctx, sampleCalendar(), event, site);
    const scripts = select(parse(page), 'script');
    // page.js and the JSON-LD block: nothing else was opened by the data.
    expect(scripts).toHaveLength(2);
    const ld = jsonLd(page);
    expect(ld.name).toBe(title);
    expect(ld['@type']).toBe('Event');
    const raw = page.slice(page.indexOf('application/ld+json'));
    expect(raw.slice(0, raw.indexOf('</script>'))).not.toMatch(/[<&\u2028\u2029]/);
  });

  it('drops script, event handlers and javascript: URLs from descriptions and portal links', () => {
    const event = sampleEvent({
      description: '<p onclick="alert(1)">Hi <img src="https://x.example/a.png" onerror="alert(2)"><script>alert(3)</script><a href="javascript:alert(4)">x</a><iframe src="https://evil.example"></iframe></p>',
      url: 'javascript:alert(5)',
      organizer: { name: 'Eve', email: '"><script>alert(6)</script>@x.y' },
    });
    const page = html.event(ctx, sampleCalendar(), event, site);
    const doc = parse(page);
    expect(foreignScripts(page)).toEqual([]);
    expect(select(doc, 'iframe')).toEqual([]);
    const attrs = select(doc, '*').flatMap((el) => Object.entries(el.attribs));
    expect(attrs.filter(([name]) => name.startsWith('on'))).toEqual([]);
    expect(attrs.filter(([, value]) => /^\s*javascript:/i.test(value))).toEqual([]);
    expect(text(one(byClass(doc, 'description'), 'description'))).toContain('Hi');
    expect(select(doc, 'a').map(text)).not.toContain('See this event on the portal');
  });
});

describe('subscribe links', () => {
  it('are the exact absolute URLs for webcal, Google, Outlook and the feeds', () => {
    const model = sampleModel();
    const cal = model.calendars[0]!;
    const doc = parse(calendarPages(html, ctx, cal, model.events.get(cal.id)!, site).index);
    const hrefs = select(doc, 'a').map((a) => a.attribs.href);
    const ics = 'https://events.example.edu/feeds/calendars/science/calendar.ics';
    expect(hrefs).toContain('webcal://events.example.edu/feeds/calendars/science/calendar.ics');
    expect(hrefs).toContain('https://calendar.google.com/calendar/r?cid=webcal%3A%2F%2Fevents.example.edu%2Ffeeds%2Fcalendars%2Fscience%2Fcalendar.ics');
    expect(hrefs).toContain('https://outlook.live.com/calendar/0/addfromweb?url=https%3A%2F%2Fevents.example.edu%2Ffeeds%2Fcalendars%2Fscience%2Fcalendar.ics&name=Faculty%20of%20Science');
    for (const feed of ['rss.xml', 'atom.xml', 'feed.json']) expect(hrefs).toContain(`https://events.example.edu/feeds/calendars/science/${feed}`);
    expect(one(select(doc, 'input', { readonly: true })).attribs.value).toBe(ics);
    const alternates = select(doc, 'link', { rel: 'alternate' }).map((l) => [l.attribs.type, l.attribs.href]);
    expect(alternates).toEqual([
      ['application/rss+xml', 'https://events.example.edu/feeds/calendars/science/rss.xml'],
      ['application/atom+xml', 'https://events.example.edu/feeds/calendars/science/atom.xml'],
      ['application/feed+json', 'https://events.example.edu/feeds/calendars/science/feed.json'],
    ]);
  });

  it('on the index page: the combined feeds and each calendar with its own', () => {
    const doc = parse(html.index(ctx, sampleModel().calendars, upcomingCounts(ctx, sampleModel(), site), homeEvents(ctx, sampleModel(), site), [], site));
    const hrefs = select(doc, 'a').map((a) => a.attribs.href);
    expect(hrefs).toContain('webcal://events.example.edu/feeds/calendar.ics');
    expect(hrefs).toContain('https://events.example.edu/feeds/rss.xml');
    expect(hrefs).toContain('webcal://events.example.edu/feeds/calendars/_ifzhi4zaeyqeg5lmor2xezi/calendar.ics');
    expect(hrefs).toContain('calendars/science/index.html');
    // Science has two upcoming events that are not cancelled; Arts has only a removed one.
    expect(byClass(doc, 'count').map(text)).toEqual(['2 upcoming events', '0 upcoming events']);
  });
});

describe('dates and grouping', () => {
  const cal = sampleCalendar();
  const at = (iso: string): number => Date.parse(iso);
  const timed = (id: string, start: string, end?: string): FeedEvent =>
    sampleEvent({ id, slug: id, title: `Event ${id}`, when: { kind: 'timed', start: at(start), ...(end ? { end: at(end) } : {}) } });

  function days(page: string): Array<[string, string[], string[]]> {
    return byClass(parse(page), 'day').map((day) => [
      one(select(one(select(day, 'h3')), 'time')).attribs.datetime!,
      byClass(day, 'event-title').map(text),
      byClass(day, 'event-time').map((t) => text(t).trim()),
    ]);
  }

  it("groups by day in the calendar's zone, across the DST change", () => {
    const events = [
      timed('late', '2026-03-24T22:30:00Z'), // 00:30 on March 25 in Vilnius (UTC+2)
      timed('dst', '2026-03-30T08:00:00Z', '2026-03-30T09:00:00Z'), // 11:00 in Vilnius (UTC+3 after March 29)
      timed('early', '2026-03-24T10:00:00Z'),
    ];
    const result = days(calendarPages(html, ctx, cal, events, site).index);
    expect(result.map(([key, titles]) => [key, titles])).toEqual([
      ['2026-03-24', ['Event early']],
      ['2026-03-25', ['Event late']],
      ['2026-03-30', ['Event dst']],
    ]);
    expect(result[1]![2][0]).toMatch(/^12:30\sAM$/);
    expect(result[2]![2][0]).toMatch(/^11:00\sAM\s–\s12:00\sPM$/);
    // The same instants in New York fall on other days and hours.
    const ny = days(calendarPages(html, ctx, { ...cal, timeZone: 'America/New_York' }, events, site).index);
    expect(ny.map(([key, titles]) => [key, titles])).toEqual([
      ['2026-03-24', ['Event early', 'Event late']],
      ['2026-03-30', ['Event dst']],
    ]);
    expect(ny[0]![2][1]).toMatch(/^6:30\sPM$/);
  });

  it('lists past events on past.html, newest first, and ongoing ones under today', () => {
    const events = [
      timed('old', '2026-03-01T10:00:00Z', '2026-03-01T11:00:00Z'),
      timed('older', '2026-02-01T10:00:00Z', '2026-02-01T11:00:00Z'),
      sampleEvent({ id: 'fair', slug: 'fair', title: 'Book fair', when: { kind: 'allDay', startDate: '2026-03-18', endDate: '2026-03-22' } }),
      timed('soon', new Date(SAMPLE_NOW + 2 * HOUR).toISOString()),
    ];
    const pages = calendarPages(html, ctx, cal, events, site);
    expect(days(pages.index).map(([key, titles]) => [key, titles])).toEqual([['2026-03-20', ['Book fair', 'Event soon']]]);
    expect(text(one(byClass(parse(pages.index), 'badge')))).toBe('Ongoing');
    expect(days(pages.past).map(([key, titles]) => [key, titles])).toEqual([
      ['2026-03-01', ['Event old']],
      ['2026-02-01', ['Event older']],
    ]);
    expect(select(parse(pages.index), 'a').map((a) => a.attribs.href)).toContain('past.html');
  });

  it('marks cancelled events and formats all-day ranges', () => {
    const model = sampleModel();
    const doc = parse(calendarPages(html, ctx, cal, model.events.get(cal.id)!, site).index);
    const cancelled = byClass(doc, 'is-cancelled');
    expect(cancelled.map((li) => text(one(byClass(li, 'event-title'))))).toEqual(['Cancelled Lab tour']);
    const spring = byClass(doc, 'event').find((li) => text(li).includes('Spring break'))!;
    expect(text(one(byClass(spring, 'event-time'))).trim()).toMatch(/^April 6\s–\s8, 2026$/);
  });

  it('offers no "add to calendar" button on a cancelled event page, only the portal link', () => {
    const model = sampleModel();
    const [live, , cancelled] = model.events.get(cal.id)!;
    const actions = (e: FeedEvent) => byClass(parse(html.event(ctx, cal, e, site)), 'actions').flatMap((p) => select(p, 'a').map((a) => a.attribs.href));
    expect(actions(live!)).toEqual(['e1.ics', 'https://portal.example.edu/events/e1']);
    expect(cancelled!.status).toBe('cancelled');
    expect(actions(cancelled!)).toEqual(['https://portal.example.edu/events/e1']);
  });

  it('says the date once in the iframe widget: a day and a time, or an all-day range alone', () => {
    const model = sampleModel();
    const doc = parse(calendarPages(html, ctx, cal, model.events.get(cal.id)!, site).widget);
    const times = byClass(doc, 'event-time').map((p) => text(p).trim());
    expect(times).toContainEqual(expect.stringMatching(/^Wednesday, March 25, 2026 · 5:00\s–\s7:00\sPM$/));
    expect(times).toContainEqual(expect.stringMatching(/^April 6\s–\s8, 2026$/));
  });

  it("shows an event page's time in the calendar's zone, with the instants for the visitor's zone", () => {
    const model = sampleModel();
    const doc = parse(html.event(ctx, cal, model.events.get(cal.id)![0]!, site));
    const when = one(select(doc, 'time', { datetime: '2026-03-25T17:00:00+02:00' }));
    expect(text(when)).toMatch(/^Wednesday, March 25, 2026, 5:00\s–\s7:00\sPM$/);
    const local = one(select(doc, 'p', { 'data-calfeed-local': true }));
    expect([local.attribs['data-start'], local.attribs['data-end']]).toEqual(['2026-03-25T15:00:00.000Z', '2026-03-25T17:00:00.000Z']);
    const ld = jsonLd(html.event(ctx, cal, model.events.get(cal.id)![1]!, site));
    expect([ld.startDate, ld.endDate]).toEqual(['2026-04-06', '2026-04-08']);
  });

  it('uses the site locale for the lang attribute and the dates', () => {
    const model = sampleModel();
    const lt = calendarPages(html, ctx, cal, model.events.get(cal.id)!, sampleSite({ locale: 'lt' })).index;
    expect(one(select(parse(lt), 'html')).attribs.lang).toBe('lt');
    expect(text(select(parse(lt), 'h3')[0]!)).toContain('kovo');
  });
});

describe('the site as a whole', () => {
  it('renders byte-identical output twice', () => {
    const a = renderHtmlSite(html, sampleModel(), site);
    const b = renderHtmlSite(html, sampleModel(), site);
    expect([...a.entries()]).toEqual([...b.entries()]);
  });

  it('has working relative links, no external assets, one h1 and landmarks on every page', () => {
    const files = renderHtmlSite(html, sampleModel(), site);
    const produced = new Set(files.keys());
    let checked = 0;
    for (const [path, content] of files) {
      if (!path.endsWith('.html')) continue;
      const doc = parse(content);
      expect(select(doc, 'h1'), path).toHaveLength(1);
      expect(select(doc, 'main'), path).toHaveLength(1);
      expect(one(select(doc, 'html')).attribs.lang).toBe('en');
      for (const el of [...select(doc, 'link', { rel: 'stylesheet' }), ...select(doc, 'script', { src: true })]) {
        const ref = el.attribs.href ?? el.attribs.src!;
        expect(ref, `${path}: ${ref}`).not.toMatch(/^[a-z]+:|^\/\//i);
      }
      for (const a of [...select(doc, 'a', { href: true }), ...select(doc, 'link', { rel: 'stylesheet' }), ...select(doc, 'script', { src: true })]) {
        const ref = a.attribs.href ?? a.attribs.src!;
        if (/^[a-z]+:/i.test(ref) || ref.startsWith('#')) continue;
        const target = new URL(ref, site.siteUrl + path).href.slice(site.siteUrl.length);
        // .ics files come from the iCalendar renderer; everything else must be a page or asset of ours.
        if (target.endsWith('.ics')) continue;
        expect(produced.has(target), `${path} links to ${ref} (${target})`).toBe(true);
        checked++;
      }
      if (!path.endsWith('widget.html')) {
        expect(select(doc, 'header'), path).toHaveLength(1);
        expect(select(doc, 'footer'), path).toHaveLength(1);
        expect(select(doc, 'nav'), path).toHaveLength(1);
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('ships style.css, page.js and a widget.js under 10 KB, 4 KB gzipped (and its messages), that never writes HTML from data', async () => {
    const assets = html.assets(site);
    expect(Object.keys(assets).sort()).toEqual(['page.js', 'style.css', 'widget.js']);
    const source = await readFile(new URL('../../../templates/assets/widget.js', import.meta.url), 'utf8');
    expect(Buffer.byteLength(source)).toBeLessThan(10 * 1024);
    expect(gzipSync(source).length).toBeLessThan(4 * 1024);
    // Its four messages in each shipped language (en, lt) are what the build adds.
    expect(Buffer.byteLength(assets['widget.js']!) - Buffer.byteLength(source)).toBeLessThan(2 * 256);
    expect(assets['widget.js']).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    // --primary-color is the default of the widget's --calfeed-primary; without it, the script's own.
    expect(assets['widget.js']).not.toContain('"primary"');
    expect(html.assets({ ...site, primaryColor: '#7a0019' })['widget.js']).toContain('"primary":"#7a0019"}');
    expect(assets['style.css']).toMatch(/prefers-color-scheme:\s*dark/);
    expect(assets['style.css']).not.toMatch(/@import|url\(/);
  });
});
