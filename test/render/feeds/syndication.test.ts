import { XMLParser, XMLValidator } from 'fast-xml-parser';
import Parser from 'rss-parser';
import { describe, expect, it } from 'vitest';
import { eventStamp, type FeedEvent } from '../../../src/model.js';
import { eventUid } from '../../../src/render/ical/event.js';
import { SAMPLE_NOW, sampleCalendar, sampleEvent, sampleModel, sampleSite } from '../../fixtures/sample.js';
import { allEvents } from './helpers.js';
import { createRenderContext } from '../../../src/render/context.js';
import { loadHtmlRenderer } from '../../../src/render/html/index.js';
import { renderSyndication } from '../../support/render.js';

const ctx = createRenderContext();
const html = await loadHtmlRenderer();
// The page text of the built-in catalogs: English, or Lithuanian for a site whose --locale is lt.
const words = (locale = 'en') => html.text(sampleSite({ locale }));

const site = sampleSite();
const science = sampleCalendar();
const rssParser = new Parser();
const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  isArray: (name, jpath) =>
    name === 'category' || ['rss.channel.item', 'rss.channel.atom:link', 'feed.entry', 'feed.link', 'feed.entry.link'].includes(String(jpath)),
});

type Node = Record<string, unknown>;
const text = (node: unknown): string => (typeof node === 'object' && node !== null ? String((node as Node)['#text'] ?? '') : String(node));

function combined(overrides = {}) {
  const model = sampleModel();
  return renderSyndication(ctx, null, model.calendars, allEvents(model), sampleSite(overrides), words());
}

function rssItems(rss: string): Node[] {
  return ((xml.parse(rss) as Node).rss as { channel: { item?: Node[] } }).channel.item ?? [];
}

function atomEntries(atom: string): Node[] {
  return ((xml.parse(atom) as Node).feed as { entry?: Node[] }).entry ?? [];
}

const hostile = (): FeedEvent =>
  sampleEvent({
    id: 'evil',
    slug: 'evil',
    title: 'Evil ]]> <script>alert(1)</script> ]]> & "quotes" \u0007bell',
    description:
      '<p>x ]]> y ]]> z</p><script>alert(2)</script><img src=x onerror="alert(3)"><a href="javascript:alert(4)">j</a>' +
      '<iframe src="https://evil.example/"></iframe><p style="color:red" onclick="alert(5)">styled</p>',
    location: { text: 'Room <b>1</b> ]]>' },
    categories: ['<script>', 'a&b', 'x]]>y'],
  });

describe('RSS 2.0', () => {
  it('is well-formed, readable by rss-parser, with one item per upcoming event', async () => {
    const { rss } = combined();
    expect(XMLValidator.validate(rss)).toBe(true);
    const feed = await rssParser.parseString(rss);
    // e1, e3 (cancelled, still upcoming) and e2; a1 was removed from the portal.
    expect(feed.items.map((i) => i.link)).toEqual([
      'https://events.example.edu/feeds/calendars/science/events/e1.html',
      'https://events.example.edu/feeds/calendars/science/events/e3.html',
      'https://events.example.edu/feeds/calendars/science/events/e2.html',
    ]);
    expect(feed.title).toBe('University Events');
    expect(feed.link).toBe('https://events.example.edu/feeds/');
  });

  it('has a stable guid with isPermaLink="false" equal to the iCalendar UID', () => {
    const items = rssItems(combined().rss);
    const events = allEvents(sampleModel());
    for (const item of items) {
      const guid = item.guid as Node;
      expect(guid['@isPermaLink']).toBe('false');
      expect(events.map((e) => eventUid(ctx, e, site))).toContain(text(guid));
    }
    expect(rssItems(combined().rss).map((i) => text(i.guid))).toEqual(items.map((i) => text(i.guid)));
  });

  it('links to itself with atom:link rel="self" and uses absolute links from siteUrl', () => {
    const calendar = (xml.parse(renderSyndication(ctx, science, [science], [sampleEvent()], site, words()).rss) as Node).rss as { channel: Node };
    const self = (calendar.channel['atom:link'] as Node[])[0]!;
    expect(self['@rel']).toBe('self');
    expect(self['@href']).toBe('https://events.example.edu/feeds/calendars/science/rss.xml');
    expect(self['@type']).toBe('application/rss+xml');
    expect(text(calendar.channel.link)).toBe('https://events.example.edu/feeds/calendars/science/');
    for (const item of rssItems(combined().rss)) expect(text(item.link).startsWith(site.siteUrl)).toBe(true);
  });

  it('dates items by eventStamp in RFC 822, never by the event start', () => {
    const events = [sampleEvent({ updated: Date.UTC(2026, 1, 14, 8, 15, 30) }), sampleEvent({ id: 'e9', slug: 'e9', updated: undefined, changedAt: Date.UTC(2026, 1, 2, 3, 4, 5) })];
    const { rss } = renderSyndication(ctx, science, [science], events, site, words());
    const items = rssItems(rss);
    expect(items.map((i) => text(i.pubDate))).toEqual(['Sat, 14 Feb 2026 08:15:30 GMT', 'Mon, 02 Feb 2026 03:04:05 GMT']);
    expect(items.map((i) => Date.parse(text(i.pubDate)))).toEqual(events.map(eventStamp));
    const channel = ((xml.parse(rss) as Node).rss as { channel: Node }).channel;
    expect(text(channel.lastBuildDate)).toBe('Sat, 14 Feb 2026 08:15:30 GMT');
  });

  it('leads titles with the event date in the calendar zone and marks cancelled events', async () => {
    const feed = await rssParser.parseString(combined().rss);
    const titles = feed.items.map((i) => i.title ?? '');
    expect(titles[0]).toMatch(/^Wed, Mar 25, 2026, 5:00\sPM — Open lecture: Quantum computing$/);
    expect(titles[1]).toMatch(/^Cancelled: Mon, Mar 30, 2026, 11:00\sAM — Lab tour$/);
    expect(titles[2]).toMatch(/^Mon, Apr 6\s–\sWed, Apr 8, 2026 — Spring break 🌸$/);
    const lt = await rssParser.parseString(renderSyndication(ctx, science, [science], [sampleEvent()], sampleSite({ locale: 'lt' }), words('lt')).rss);
    expect(lt.items[0]!.title).toMatch(/^2026-03-25.* 17:00 — Open lecture/);
  });

  it('writes a body with when (and zone), where, the cleaned description and links', async () => {
    const feed = await rssParser.parseString(renderSyndication(ctx, science, [science], [sampleEvent()], site, words()).rss);
    const body = feed.items[0]!.content ?? '';
    expect(body).toContain('(Europe/Vilnius)');
    expect(body).toContain('Main Hall, Universiteto g. 3, Vilnius');
    expect(body).toContain('<a href="https://example.edu/q" rel="noopener nofollow ugc">More</a>');
    expect(body).toContain('href="https://portal.example.edu/events/e1"');
    expect(body).toContain('href="https://events.example.edu/feeds/calendars/science/events/e1.html"');
    expect(body).toContain('href="https://events.example.edu/feeds/calendars/science/events/e1.ics"');
  });

  it("words its items and channel in the site's page language: Lithuanian for --locale lt, none of the English left", async () => {
    const lt = sampleSite({ locale: 'lt' });
    const cancelled = sampleEvent({ id: 'e2', slug: 'e2', status: 'cancelled' });
    const { rss, json } = renderSyndication(ctx, null, [science], [sampleEvent(), cancelled], lt, words('lt'));
    const feed = await rssParser.parseString(rss);
    expect(feed.description).toBe(`Artėjantys renginiai: ${science.title}`);
    const bodies = feed.items.map((i) => i.content ?? '').join('\n');
    for (const word of ['<strong>Kada:</strong>', '<strong>Kur:</strong>', '>Renginio puslapis</a>', '>Pridėti į kalendorių</a>', '>Portale</a>', 'Šis renginys atšauktas.']) expect(bodies).toContain(word);
    expect(feed.items.some((i) => i.title?.startsWith('Atšaukta: '))).toBe(true);
    for (const english of ['When:', 'Where:', 'Event page', 'Add to calendar', 'On the portal', 'Cancelled', 'Upcoming events']) {
      expect(rss).not.toContain(english);
      expect(json).not.toContain(english);
    }
  });

  it('keeps "]]>" and <script> in titles and bodies from breaking XML or surviving as markup', async () => {
    const { rss, atom, json } = renderSyndication(ctx, science, [science], [hostile()], site, words());
    for (const doc of [rss, atom]) {
      expect(XMLValidator.validate(doc)).toBe(true);
      expect(doc).not.toMatch(/<script|onerror|onclick|javascript:|<iframe|style=|\u0007/i);
    }
    expect(json).not.toMatch(/<script|onerror|onclick|javascript:|<iframe|style=/i);
    const item = (await rssParser.parseString(rss)).items[0]!;
    // The title is HTML-escaped text: shown as HTML, it reads as the original characters.
    expect(item.title).toContain('Evil ]]&gt; &lt;script&gt;alert(1)&lt;/script&gt; ]]&gt; &amp; "quotes" bell');
    expect(item.content).toContain('x ]]&gt; y ]]&gt; z');
    expect(item.content).toContain('<p>styled</p>');
    expect(item.content).toContain('Room &lt;b&gt;1&lt;/b&gt; ]]&gt;');
    const entry = atomEntries(atom)[0]!;
    expect(text(entry.title)).not.toContain('<');
    expect(JSON.parse(json).items[0].title).toMatch(/— Evil \]\]> <script>alert\(1\)<\/script> \]\]> & "quotes" bell$/);
  });

  it('keeps hostile and look-alike ids distinct and the XML valid', () => {
    const ids = ['a/b', 'a%2Fb', 'A', 'a', '..', 'NUL', 'x'.repeat(300), 'a\u0000b', '<script>', ']]>', '"q"&'];
    const events = ids.map((id, i) => sampleEvent({ id, slug: `s${i}`, title: `${id} <b>t</b>` }));
    const { rss, atom, json } = renderSyndication(ctx, science, [science], events, site, words());
    expect(XMLValidator.validate(rss)).toBe(true);
    expect(XMLValidator.validate(atom)).toBe(true);
    expect(new Set(rssItems(rss).map((i) => text(i.guid))).size).toBe(ids.length);
    expect(new Set(atomEntries(atom).map((e) => text(e.id))).size).toBe(ids.length);
    expect(new Set(JSON.parse(json).items.map((i: { id: string }) => i.id)).size).toBe(ids.length);
    expect(JSON.parse(json).items.map((i: { _calfeed: { eventId: string } }) => i._calfeed.eventId).sort()).toEqual([...ids].sort());
  });

  it('stops at feedLimit, keeping the earliest events', () => {
    const items = rssItems(combined({ feedLimit: 2 }).rss);
    expect(items.map((i) => text(i.link).split('/').pop())).toEqual(['e1.html', 'e3.html']);
    expect(rssItems(combined({ feedLimit: 0 }).rss)).toHaveLength(0);
  });

  it('leaves out ended and removed events but keeps cancelled upcoming ones', () => {
    const events = [
      sampleEvent({ id: 'past', slug: 'past', when: { kind: 'timed', start: SAMPLE_NOW - 7_200_000, end: SAMPLE_NOW - 3_600_000 } }),
      sampleEvent({ id: 'now', slug: 'now', when: { kind: 'timed', start: SAMPLE_NOW - 3_600_000, end: SAMPLE_NOW + 3_600_000 } }),
      sampleEvent({ id: 'today', slug: 'today', when: { kind: 'allDay', startDate: '2026-03-20', endDate: '2026-03-20' } }),
      sampleEvent({ id: 'gone', slug: 'gone', removedAt: SAMPLE_NOW - 1000 }),
      sampleEvent({ id: 'off', slug: 'off', status: 'cancelled' }),
    ];
    const links = rssItems(renderSyndication(ctx, science, [science], events, site, words()).rss).map((i) => text(i.link).split('/').pop());
    expect(links).toEqual(['today.html', 'now.html', 'off.html']);
  });
});

describe('Atom 1.0', () => {
  it('is well-formed and readable, with self link, author, unique ids and RFC 3339 dates', async () => {
    const { atom } = combined();
    expect(XMLValidator.validate(atom)).toBe(true);
    const parsed = await rssParser.parseString(atom);
    expect(parsed.items).toHaveLength(3);
    const feed = (xml.parse(atom) as Node).feed as Node;
    const links = feed.link as Node[];
    expect(links.find((l) => l['@rel'] === 'self')?.['@href']).toBe('https://events.example.edu/feeds/atom.xml');
    expect(links.find((l) => l['@rel'] === 'alternate')?.['@href']).toBe('https://events.example.edu/feeds/');
    expect(text((feed.author as Node).name)).toBe('University Events');
    expect(text(feed.updated)).toBe('2026-03-01T09:30:00.000Z');
    const entries = atomEntries(atom);
    const ids = entries.map((e) => text(e.id));
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(atomEntries(combined().atom).map((e) => text(e.id))).toEqual(ids);
    for (const e of entries) {
      expect(text(e.updated)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      expect(text(e.published)).toBe('2026-02-01T00:00:00.000Z');
      expect(((e.link as Node[])[0]!['@href'] as string).startsWith(site.siteUrl)).toBe(true);
    }
  });
});

describe('JSON Feed 1.1', () => {
  it('parses, declares version 1.1 and carries the _calfeed extension for the widget', () => {
    const doc = JSON.parse(combined().json);
    expect(doc.version).toBe('https://jsonfeed.org/version/1.1');
    expect(doc.feed_url).toBe('https://events.example.edu/feeds/feed.json');
    expect(doc.home_page_url).toBe('https://events.example.edu/feeds/');
    expect(doc.items).toHaveLength(3);
    expect(Object.keys(doc)).toEqual(['version', 'title', 'home_page_url', 'feed_url', 'description', 'language', 'authors', 'items']);
    expect(doc.authors).toEqual([{ name: site.title }]);
    const [e1, e3, e2] = doc.items;
    expect(e1.id).toBe('science/e1@events.example.edu');
    expect(e1.url).toBe('https://events.example.edu/feeds/calendars/science/events/e1.html');
    expect(e1.date_modified).toBe('2026-03-01T09:30:00.000Z');
    expect(e1._calfeed).toEqual({
      calendarId: 'science',
      eventId: 'e1',
      title: 'Open lecture: Quantum computing',
      start: '2026-03-25T15:00:00.000Z',
      end: '2026-03-25T17:00:00.000Z',
      allDay: false,
      startDate: null,
      endDate: null,
      timeZone: 'Europe/Vilnius',
      location: 'Main Hall, Universiteto g. 3, Vilnius',
      status: 'confirmed',
      url: 'https://portal.example.edu/events/e1',
      ics: 'https://events.example.edu/feeds/calendars/science/events/e1.ics',
    });
    expect(e3._calfeed).toMatchObject({ status: 'cancelled', end: null });
    // All-day: midnight to midnight in the calendar's zone (UTC+3 in April).
    expect(e2._calfeed).toMatchObject({ allDay: true, startDate: '2026-04-06', endDate: '2026-04-08', start: '2026-04-05T21:00:00.000Z', end: '2026-04-08T21:00:00.000Z' });
  });
});

describe('determinism', () => {
  it('renders byte-identical feeds twice and for another now on the same day with the same events', () => {
    const a = combined();
    expect(combined()).toEqual(a);
    expect(combined({ now: SAMPLE_NOW + 3 * 3_600_000 })).toEqual(a);
    // Once e1 has ended the item set differs, and so do the feeds.
    expect(combined({ now: Date.UTC(2026, 2, 26) }).rss).not.toBe(a.rss);
  });

  it('does not depend on the input order of events', () => {
    const model = sampleModel();
    const events = allEvents(model);
    expect(renderSyndication(ctx, null, model.calendars, [...events].reverse(), site, words())).toEqual(renderSyndication(ctx, null, model.calendars, events, site, words()));
  });

  it('takes feed dates from the data: from all events when none is upcoming, the epoch when there are none', () => {
    const late = sampleSite({ now: Date.UTC(2027, 0, 1) });
    const stale = renderSyndication(ctx, science, [science], [sampleEvent({ updated: Date.UTC(2026, 0, 9) })], late, words());
    expect(rssItems(stale.rss)).toHaveLength(0);
    expect(XMLValidator.validate(stale.rss)).toBe(true);
    expect(stale.rss).toContain('<lastBuildDate>Fri, 09 Jan 2026 00:00:00 GMT</lastBuildDate>');
    const empty = renderSyndication(ctx, science, [science], [], late, words());
    expect(empty.rss).toContain('<lastBuildDate>Thu, 01 Jan 1970 00:00:00 GMT</lastBuildDate>');
    expect(empty.atom).toContain('<updated>1970-01-01T00:00:00.000Z</updated>');
    expect(JSON.parse(empty.json).items).toEqual([]);
  });
});

describe('event images', () => {
  // Each case: the portal's image URL, then what RSS, Atom and JSON Feed should carry.
  const cases: Array<[string, { rss?: string; atom?: string; json?: string; url?: string }]> = [
    ['https://portal.example.edu/media/1.jpg', { rss: 'image/jpeg', atom: 'image/jpeg', url: 'https://portal.example.edu/media/1.jpg' }],
    ['https://portal.example.edu/media/Poster.PNG?v=2&size=l', { rss: 'image/png', atom: 'image/png', url: 'https://portal.example.edu/media/Poster.PNG?v=2&size=l' }],
    // No extension: no media type to state, so no enclosure; JSON Feed and the body still show it.
    ['https://portal.example.edu/media/image?id=7', { url: 'https://portal.example.edu/media/image?id=7' }],
    ['https://portal.example.edu/a.b/photo', { url: 'https://portal.example.edu/a.b/photo' }],
    ['javascript:alert(1)//x.png', {}],
    ['data:image/png;base64,AAAA', {}],
  ];
  it.each(cases)('%s: an enclosure of the right type where one can be stated, JSON Feed image and an <img> in the body', async (image, want) => {
    const model = sampleModel();
    const events = allEvents(model).map((e) => (e.id === 'e1' ? { ...e, image } : e));
    const { rss, atom, json } = renderSyndication(ctx, null, model.calendars, events, site, words());
    expect(XMLValidator.validate(rss)).toBe(true);
    expect(XMLValidator.validate(atom)).toBe(true);
    const rssItem = rssItems(rss).find((i) => String(i.link).endsWith('/e1.html'))!;
    const enclosure = rssItem.enclosure as Node | undefined;
    expect(enclosure?.['@type']).toBe(want.rss);
    if (want.rss) {
      expect(enclosure!['@url']).toBe(want.url);
      expect(enclosure!['@length']).toBe('0');
      // And as a feed reader sees it.
      const parsed = await rssParser.parseString(rss);
      expect(parsed.items.find((i) => i.link?.endsWith('/e1.html'))?.enclosure).toEqual({ url: want.url, type: want.rss, length: '0' });
    }
    const entry = atomEntries(atom).find((e) => (e.link as Node[]).some((l) => String(l['@href']).endsWith('/e1.html')))!;
    const links = (entry.link as Node[]).filter((l) => l['@rel'] === 'enclosure');
    expect(links.map((l) => [l['@href'], l['@type']])).toEqual(want.atom ? [[want.url, want.atom]] : []);
    const item = (JSON.parse(json) as { items: Array<{ url: string; image?: string; content_html: string }> }).items.find((i) => i.url.endsWith('/e1.html'))!;
    expect(item.image).toBe(want.url);
    // Members in the order feed 6's version-1 output had them when the JSON was made from it: an
    // image of a known type where feed puts one, any other after the tags (the bytes stay the same).
    expect(Object.keys(item)).toEqual(['id', 'content_html', 'url', 'title', ...(want.rss ? ['image'] : []), 'date_modified', 'date_published', 'tags', ...(want.url && !want.rss ? ['image'] : []), '_calfeed']);
    const body = String(text(rssItem.description));
    if (want.url) expect(body).toContain(`<img src="${want.url.replace(/&/g, '&amp;')}" alt="">`);
    else expect(body).not.toContain('<img');
    // The other items have no image anywhere.
    expect(rssItems(rss).filter((i) => i.enclosure !== undefined)).toHaveLength(want.rss ? 1 : 0);
  });
});
