import { describe, expect, it } from 'vitest';
import { paths } from '../../src/paths.js';
import { contentTypeFor, kindOf } from '../../src/publish/content-types.js';
import { renderHeaders } from '../../src/publish/headers.js';
import { headersFor, parseHeadersFile } from '../../src/serve/headers.js';

const CAL = 'arts';
const EV = '_mfrgg';

describe('contentTypeFor and kindOf', () => {
  it.each([
    [paths.calendarsMirror(), 'mirror', 'application/json; charset=utf-8'],
    [paths.eventsMirror(CAL), 'mirror', 'application/json; charset=utf-8'],
    [paths.detailsMirror(CAL, EV), 'mirror', 'application/json; charset=utf-8'],
    [paths.site('rss.xml'), 'rss', 'application/rss+xml; charset=utf-8'],
    [paths.calendar(CAL, 'atom.xml'), 'atom', 'application/atom+xml; charset=utf-8'],
    [paths.calendar(CAL, 'feed.json'), 'jsonfeed', 'application/feed+json; charset=utf-8'],
    [paths.site('calendar.ics'), 'ical', 'text/calendar; charset=utf-8'],
    [paths.eventIcs(CAL, EV), 'ical', 'text/calendar; charset=utf-8'],
    [paths.eventPage(CAL, EV), 'html', 'text/html; charset=utf-8'],
    [paths.site('widget.js'), 'asset', 'text/javascript; charset=utf-8'],
    [paths.site('style.css'), 'asset', 'text/css; charset=utf-8'],
    [paths.manifest(), 'manifest', 'application/json; charset=utf-8'],
    [paths.headers(), 'asset', 'text/plain; charset=utf-8'],
    ['event-calendar/x/other', 'asset', 'application/octet-stream'],
  ])('%s is %s served as %s', (rel, kind, type) => {
    expect(kindOf(rel)).toBe(kind);
    expect(contentTypeFor(rel)).toBe(type);
  });
});

describe('_headers', () => {
  const text = renderHeaders();
  const rules = parseHeadersFile(text);
  // What a host applying the file sends for a URL path, repeated names comma-joined as the hosts do.
  const headersForPath = (urlPath: string): Map<string, string> => new Map(headersFor(rules, urlPath).headers.values());

  it('is in the Netlify / Cloudflare Pages format: a path line, then indented "Name: value" lines', () => {
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^# /);
    for (const line of lines.slice(1)) expect(line).toMatch(/^(\/\S*|  [A-Za-z-]+: \S.*)$/);
    expect(text.endsWith('\n')).toBe(true);
    expect(rules.length).toBeLessThanOrEqual(100); // Cloudflare's limit
  });

  const samples = [
    paths.calendarsMirror(),
    paths.eventsMirror(CAL),
    paths.detailsMirror(CAL, EV),
    paths.manifest(),
    paths.site('rss.xml'),
    paths.site('atom.xml'),
    paths.site('feed.json'),
    paths.site('calendar.ics'),
    paths.calendar(CAL, 'rss.xml'),
    paths.calendar(CAL, 'atom.xml'),
    paths.calendar(CAL, 'feed.json'),
    paths.calendar(CAL, 'calendar.ics'),
  ];
  it.each(samples)('gives /%s its content type, CORS, caching and nosniff, each exactly once', (rel) => {
    const headers = headersForPath('/' + rel);
    expect(headers.get('Content-Type')).toBe(contentTypeFor(rel));
    expect(headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(headers.get('Cache-Control')).toBe('public, max-age=300');
    expect(headers.get('X-Content-Type-Options')).toBe('nosniff');
    // Hosts join a header set by two matching rules with a comma; none may be doubled.
    for (const value of headers.values()) expect(value).not.toMatch(/, (\*|nosniff|public|application|text)/);
  });

  it('leaves files with a usual extension to the host, but still caches and sets nosniff', () => {
    for (const rel of [paths.site('index.html'), paths.eventPage(CAL, EV), paths.eventIcs(CAL, EV), paths.site('widget.js')]) {
      const headers = headersForPath('/' + rel);
      expect(headers.has('Content-Type')).toBe(false);
      expect(headers.get('Cache-Control')).toBe('public, max-age=300');
      expect(headers.get('X-Content-Type-Options')).toBe('nosniff');
    }
  });

  it('does not give a mirror pattern to deeper paths', () => {
    expect(headersForPath('/event-calendar/a/b/events').has('Content-Type')).toBe(false);
  });
});
