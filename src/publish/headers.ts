// _headers for Netlify and Cloudflare Pages. Both merge every rule whose pattern matches a request
// and join repeated header names with a comma, so each header name is set by at most one rule for
// any path: Cache-Control and nosniff once under /*, Content-Type and CORS only on exact paths.
// Patterns use only what both hosts support: literal segments, `:placeholder` segments (one path
// segment) and a lone trailing `*`. Files with a usual extension (.html, .ics, .js, .css) get their
// type from the host; the extensionless mirror files and the feed names need one here.

import { paths } from '../paths.js';
import { contentTypeFor } from './content-types.js';

interface HeaderRule {
  /** URL path pattern, e.g. `/event-calendar/:calendar/events`. */
  pattern: string;
  headers: Array<[name: string, value: string]>;
}

/** Feeds and mirror files change with every portal update; five minutes keeps CDNs and readers close. */
const CACHE_CONTROL = 'public, max-age=300';

// Example ids stand in for the placeholders; the content type comes from the same table as the manifest.
const CAL = ':calendar';
const EV = ':event';
const CATEGORY = ':category';

// Every exact-path rule allows CORS: feeds and mirrors are fetched cross-origin by web feed readers
// and the widget.
function rule(pattern: string): HeaderRule {
  const sample = pattern.slice(1).replaceAll(CAL, 'c').replaceAll(EV, 'e').replaceAll(CATEGORY, 'k');
  return { pattern, headers: [['Content-Type', contentTypeFor(sample)], ['Access-Control-Allow-Origin', '*']] };
}

/** The rules written to _headers, in order. */
function headerRules(): HeaderRule[] {
  const feeds = ['feed.json', 'rss.xml', 'atom.xml', 'calendar.ics'] as const;
  return [
    {
      pattern: '/*',
      headers: [
        ['Cache-Control', CACHE_CONTROL],
        ['X-Content-Type-Options', 'nosniff'],
      ],
    },
    rule('/' + paths.calendarsMirror()),
    rule('/' + paths.eventsMirror(CAL)),
    rule('/' + paths.detailsMirror(CAL, EV)),
    rule('/' + paths.manifest()),
    ...feeds.map((name) => rule('/' + paths.site(name))),
    ...feeds.map((name) => rule('/' + paths.calendar(CAL, name))),
    ...feeds.map((name) => rule('/' + paths.category(CATEGORY, name))),
  ];
}

/** The _headers file for Netlify and Cloudflare Pages. */
export function renderHeaders(): string {
  const lines = [HEADERS_FIRST_LINE];
  for (const r of headerRules()) {
    lines.push(r.pattern);
    for (const [name, value] of r.headers) lines.push(`  ${name}: ${value}`);
  }
  return lines.join('\n') + '\n';
}

/** The first line of every _headers calfeed writes: it also tells calfeed's output from somebody else's folder. */
export const HEADERS_FIRST_LINE = '# Response headers for Netlify and Cloudflare Pages. Written by calfeed; edits are overwritten.';
