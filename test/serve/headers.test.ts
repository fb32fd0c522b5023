import { describe, expect, it } from 'vitest';
import { headersFor, parseHeadersFile } from '../../src/serve/headers.js';
import { parseRequestPath } from '../../src/serve/request-path.js';

const rules = parseHeadersFile(
  [
    '# comment',
    '/*',
    '  Cache-Control: public, max-age=300',
    '/event-calendar/:calendar/event/:event/details',
    '  Content-Type: application/json',
    '  not a header line',
    '  Bad Name: x',
    'https://events.example.edu/calendars/*',
    '  Access-Control-Allow-Origin: *',
    '/calendars/:c/index.html',
    '  ! Cache-Control',
    '',
  ].join('\r\n'),
);

const names = (path: string): Record<string, string> =>
  Object.fromEntries([...headersFor(rules, path).headers.values()]);

describe('_headers rules', () => {
  it('match literal paths, :placeholders (one segment) and * splats', () => {
    expect(names('/event-calendar/a/event/b/details')).toEqual({ 'Cache-Control': 'public, max-age=300', 'Content-Type': 'application/json' });
    expect(names('/event-calendar/a/x/event/b/details')).toEqual({ 'Cache-Control': 'public, max-age=300' });
    expect(names('/calendars/x/feed.json')).toEqual({ 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' });
    expect(names('/')).toEqual({ 'Cache-Control': 'public, max-age=300' });
  });

  it('detach a header with "! Name" and report it removed', () => {
    const result = headersFor(rules, '/calendars/x/index.html');
    expect([...result.headers.keys()]).toEqual(['access-control-allow-origin']);
    expect([...result.removed]).toEqual(['cache-control']);
  });

  it('ignore lines that are not headers', () => {
    expect(rules.map((r) => r.set.length)).toEqual([1, 1, 1, 0]);
  });
});

describe('request paths', () => {
  it('decode segments and keep the folder slash', () => {
    expect(parseRequestPath('/calendars/x/?a=b')).toEqual({ ok: true, segments: ['calendars', 'x'], urlPath: '/calendars/x/', folder: true });
    expect(parseRequestPath('/a%20b/c.html')).toEqual({ ok: true, segments: ['a b', 'c.html'], urlPath: '/a b/c.html', folder: false });
    expect(parseRequestPath('/')).toEqual({ ok: true, segments: [], urlPath: '/', folder: true });
  });

  it('refuse dot segments, encoded separators, NUL and bad encoding', () => {
    for (const target of ['/../x', '/a/./b', '/%2e%2e/x', '/a%2fb', '/a%5Cb', '/a\\b', '/a%00', '/%E0%A4%A', 'x/y']) {
      expect(parseRequestPath(target).ok, target).toBe(false);
    }
  });
});
