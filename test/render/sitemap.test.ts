import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { isIndexablePage, renderRobots, renderSitemaps } from '../../src/render/sitemap.js';

const SITE = 'https://events.example.edu/feeds&more/';
const xml = new XMLParser({ isArray: (name) => name === 'url' || name === 'sitemap' });
const locs = (doc: string): string[] => ((xml.parse(doc) as { urlset: { url?: Array<{ loc: string }> } }).urlset.url ?? []).map((u) => u.loc);

const FILES = [
  'index.html',
  'calendars/b/index.html',
  'calendars/b/past.html',
  'calendars/b/widget.html',
  'calendars/b/events/2.html',
  'calendars/b/events/2.ics',
  'calendars/a/events/1.html',
  'calendars/a/rss.xml',
  'event-calendar/a/events',
  '404.html',
  'style.css',
];

describe('sitemap.xml', () => {
  it('lists every page but widget frames and 404.html, absolute, escaped and in path order', () => {
    const files = renderSitemaps(SITE, FILES);
    expect([...files.keys()]).toEqual(['sitemap.xml']);
    const doc = files.get('sitemap.xml')!;
    expect(XMLValidator.validate(doc)).toBe(true);
    expect(doc).toContain('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    expect(locs(doc)).toEqual(['calendars/a/events/1.html', 'calendars/b/events/2.html', 'calendars/b/index.html', 'calendars/b/past.html', 'index.html'].map((p) => SITE + p));
    expect(doc).toContain('feeds&amp;more');
  });

  it('past the limit of URLs per file, is an index of parts that together list every page once', () => {
    const pages = Array.from({ length: 7 }, (_, i) => `calendars/c/events/${i}.html`);
    const files = renderSitemaps(SITE, pages, 3);
    expect([...files.keys()]).toEqual(['sitemap.xml', 'sitemap-1.xml', 'sitemap-2.xml', 'sitemap-3.xml']);
    const index = xml.parse(files.get('sitemap.xml')!) as { sitemapindex: { sitemap: Array<{ loc: string }> } };
    expect(index.sitemapindex.sitemap.map((s) => s.loc)).toEqual(['sitemap-1.xml', 'sitemap-2.xml', 'sitemap-3.xml'].map((n) => SITE + n));
    const listed = ['sitemap-1.xml', 'sitemap-2.xml', 'sitemap-3.xml'].flatMap((n) => locs(files.get(n)!));
    expect(listed).toEqual(pages.sort().map((p) => SITE + p));
    expect(locs(files.get('sitemap-1.xml')!)).toHaveLength(3);
  });

  it('an empty site has an empty, valid sitemap', () => {
    const doc = renderSitemaps(SITE, []).get('sitemap.xml')!;
    expect(XMLValidator.validate(doc)).toBe(true);
    expect(locs(doc)).toEqual([]);
  });

  it('robots.txt allows everything and names the sitemap', () => {
    expect(renderRobots('https://events.example.edu/')).toBe('User-agent: *\nAllow: /\n\nSitemap: https://events.example.edu/sitemap.xml\n');
    expect(isIndexablePage('calendars/x/widget.html')).toBe(false);
  });
});
