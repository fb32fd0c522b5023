// sitemap.xml and robots.txt (sitemaps.org 0.9), from the files being published, so they list
// exactly what is there. Past 50,000 URLs, sitemap.xml is an index of sitemap-1.xml, sitemap-2.xml...

import { absoluteUrl, paths } from '../paths.js';
import { escapeHtml } from './text.js';

/** URLs one sitemap file may list (the protocol's limit). */
export const SITEMAP_MAX_URLS = 50_000;

const XMLNS = 'http://www.sitemaps.org/schemas/sitemap/0.9';

/** Pages worth indexing: HTML pages but a calendar's widget.html (a frame for other sites) and 404.html. */
export function isIndexablePage(relPath: string): boolean {
  return relPath.endsWith('.html') && !relPath.endsWith('/widget.html') && relPath !== paths.site('404.html');
}

/** The sitemap files for the given output paths (any order; others than pages are left out), by path. */
export function renderSitemaps(siteUrl: string, relPaths: Iterable<string>, maxUrls = SITEMAP_MAX_URLS): Map<string, string> {
  const pages = [...relPaths].filter(isIndexablePage).sort();
  const xml = (root: string, tag: string, list: readonly string[]): string =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="${XMLNS}">\n` +
    list.map((p) => `<${tag}><loc>${escapeHtml(absoluteUrl(siteUrl, p))}</loc></${tag}>\n`).join('') +
    `</${root}>\n`;
  if (pages.length <= maxUrls) return new Map([[paths.site('sitemap.xml'), xml('urlset', 'url', pages)]]);
  const files = Array.from({ length: Math.ceil(pages.length / maxUrls) }, (_, i): [string, string] => [
    paths.sitemapPart(i + 1),
    xml('urlset', 'url', pages.slice(i * maxUrls, (i + 1) * maxUrls)),
  ]);
  return new Map([[paths.site('sitemap.xml'), xml('sitemapindex', 'sitemap', files.map(([name]) => name))], ...files]);
}

/**
 * robots.txt: everything may be crawled, and where the sitemap is. Crawlers read it only at the
 * root of a host: for a site served under a path, copy its Sitemap line into the host's own.
 */
export function renderRobots(siteUrl: string): string {
  return `User-agent: *\nAllow: /\n\nSitemap: ${absoluteUrl(siteUrl, paths.site('sitemap.xml'))}\n`;
}
