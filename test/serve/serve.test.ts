import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CalfeedError } from '../../src/errors.js';
import { startPreviewServer } from '../../src/serve/index.js';

const SECRET = 'top-secret-outside-the-folder';

const HEADERS_FILE = `# test rules
/*
  X-Content-Type-Options: nosniff
  X-Test: all
/event-calendars
  Content-Type: application/json; charset=utf-8
  Access-Control-Allow-Origin: *
/event-calendar/:calendar/events
  Content-Type: application/json; charset=utf-8
/calendars/*
  X-Test: calendars
/calendars/:calendar/feed.json
  Access-Control-Allow-Origin: *
/index.html
  ! X-Test
`;

let base: string;
let dir: string;
let server: { url: string; close(): Promise<void> };

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'calfeed-serve-'));
  dir = join(base, 'site');
  const files: Record<string, string> = {
    'index.html': '<!doctype html><title>home</title>',
    'calendars/science/index.html': '<!doctype html><title>science</title>',
    'calendars/science/feed.json': '{"version":"https://jsonfeed.org/version/1.1","items":[]}',
    'calendars/science/calendar.ics': 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n',
    'event-calendars': '[{"id":"science"}]',
    'event-calendar/science/events': '[]',
    'style.css': 'body{}',
    'widget.js': '(function(){})();',
    'space name/file.txt': 'spaced',
    _headers: HEADERS_FILE,
  };
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, rel)), { recursive: true });
    await writeFile(join(dir, rel), content);
  }
  await writeFile(join(base, 'secret.txt'), SECRET);
  await symlink(join(base, 'secret.txt'), join(dir, 'leak.txt'));
  server = await startPreviewServer({ dir, port: 0 });
});

afterAll(async () => {
  await server?.close();
  await rm(base, { recursive: true, force: true });
});

/** A raw request: Node's client sends the path exactly as given (no normalization of .. or %2e). */
function get(path: string, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('calfeed serve', () => {
  it('serves files with the content types _headers declares, and defaults for the rest', async () => {
    const mirror = await get('/event-calendars');
    expect(mirror.status).toBe(200);
    expect(mirror.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(mirror.headers['access-control-allow-origin']).toBe('*');
    expect(mirror.body).toBe('[{"id":"science"}]');
    expect((await get('/event-calendar/science/events')).headers['content-type']).toBe('application/json; charset=utf-8');
    const feed = await get('/calendars/science/feed.json');
    expect(feed.headers['content-type']).toBe('application/feed+json; charset=utf-8');
    expect(feed.headers['access-control-allow-origin']).toBe('*');
    expect((await get('/calendars/science/calendar.ics')).headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect((await get('/style.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await get('/widget.js')).headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await get('/space%20name/file.txt')).body).toBe('spaced');
  });

  it('merges every matching rule, joins repeated headers and honors "! Name"', async () => {
    const cal = await get('/calendars/science/feed.json');
    expect(cal.headers['x-test']).toBe('all, calendars');
    expect(cal.headers['x-content-type-options']).toBe('nosniff');
    const home = await get('/index.html');
    expect(home.headers['x-test']).toBeUndefined();
    expect(home.headers['x-content-type-options']).toBe('nosniff');
  });

  it('serves index.html for folders and redirects a folder URL without its slash', async () => {
    const root = await get('/');
    expect([root.status, root.body, root.headers['content-type']]).toEqual([200, '<!doctype html><title>home</title>', 'text/html; charset=utf-8']);
    expect((await get('/calendars/science/')).body).toBe('<!doctype html><title>science</title>');
    const redirect = await get('/calendars/science?x=1');
    expect([redirect.status, redirect.headers.location]).toEqual([301, '/calendars/science/?x=1']);
  });

  it('answers 404 with a page for missing files, _headers and folders without index.html', async () => {
    for (const path of ['/nope.html', '/_headers', '/event-calendar/', '/calendars/science/events/x.html']) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers['content-type'], path).toBe('text/html; charset=utf-8');
      expect(res.body, path).toContain('Not found');
    }
  });

  it('never serves anything outside the folder', async () => {
    const attempts = [
      '/../secret.txt',
      '/calendars/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/%2E%2E/secret.txt',
      '/.%2e/secret.txt',
      '/calendars%2f..%2f..%2fsecret.txt',
      '/%2e%2e%2fsecret.txt',
      '/..%5csecret.txt',
      '/..\\secret.txt',
      '/calendars/%2e%2e/%2e%2e/secret.txt',
      '/secret.txt%00.html',
      '/%252e%252e/secret.txt',
      '/leak.txt',
    ];
    for (const path of attempts) {
      const res = await get(path);
      expect([400, 404], path).toContain(res.status);
      expect(res.body, path).not.toContain(SECRET);
    }
    expect((await get('/../secret.txt')).status).toBe(400);
    expect((await get('/%2e%2e/secret.txt')).status).toBe(400);
    expect((await get('/calendars%2f..%2f..%2fsecret.txt')).status).toBe(400);
  });

  it('answers HEAD without a body and refuses other methods', async () => {
    const head = await get('/event-calendars', 'HEAD');
    expect([head.status, head.body, head.headers['content-length']]).toEqual([200, '', String('[{"id":"science"}]'.length)]);
    const post = await get('/index.html', 'POST');
    expect([post.status, post.headers.allow]).toEqual([405, 'GET, HEAD']);
  });

  it('refuses a folder that does not exist with a configuration error', async () => {
    const error = await startPreviewServer({ dir: join(base, 'missing'), port: 0 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CalfeedError);
    expect((error as CalfeedError).code).toBe('CONFIG');
    expect((error as CalfeedError).message).toContain('calfeed build');
  });
});
