// Bodies that are not JSON text a crawler can use: bytes that are not UTF-8, JSON nested 100,000
// levels deep. Each is the portal's fault, reported as such (the URL, what is wrong), never as "a
// bug in calfeed": an event list fails the build with --out untouched, one event's details only
// cost that event its details. The real CLI against a real HTTP server on 127.0.0.1.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startServer, type TestServer } from '../http/test-server.js';

const DEEP = '['.repeat(100_000) + ']'.repeat(100_000);
const NOT_UTF8 = Buffer.concat([Buffer.from('{"data":[{"id":"1","title":"Caf'), Buffer.from([0xe9]), Buffer.from('","start":"2026-03-02T10:00:00Z"}]}')]);
const EVENTS = JSON.stringify({ data: [{ id: '1', title: 'One', start: '2026-03-02T10:00:00Z' }, { id: '2', title: 'Two', start: '2026-03-03T10:00:00Z' }] });

let server: TestServer;
let work: string;
let eventsBody: Buffer | string = EVENTS;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-bad-bodies-'));
  const json = (body: Buffer | string) => (_req: unknown, res: import('node:http').ServerResponse) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  server = await startServer({
    '/event-calendars': json('{"data":[{"id":"c","title":"Calendar"}]}'),
    '/event-calendar/c/events': (req, res) => json(eventsBody)(req, res),
    '/event-calendar/c/event/1/details': json('{"data":{"id":"1","description":"Fine"}}'),
    '/event-calendar/c/event/2/details': json(DEEP),
  });
});

afterAll(async () => {
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

const build = (name: string) =>
  runCli(['build', '--base-url', server.url, '--out', join(work, name), '--cache-dir', join(work, `${name}-cache`), '--json', '--max-failed-details', '50%'], {
    env: { CALFEED_TOKEN: 'token' },
    cwd: work,
  });

describe('bodies a crawler cannot use', () => {
  it('details nested 100,000 levels deep cost that event its details, with a warning that says why', async () => {
    eventsBody = EVENTS;
    const r = await build('deep-details');
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.details.failed).toBe(1);
    expect(summary.warnings.join('\n')).toContain('the JSON is nested more than 256 levels deep');
    expect(r.stderr).not.toContain('a bug in calfeed');
  });

  it('an event list nested 100,000 levels deep fails the build naming the URL, not as a bug', async () => {
    eventsBody = `{"data":${DEEP}}`;
    const r = await build('deep-list');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('/event-calendar/c/events');
    expect(r.stderr).toContain('nested more than 256 levels deep');
    expect(r.stderr).not.toContain('a bug in calfeed');
    expect(JSON.parse(r.stdout).error.code).toBe('RESPONSE');
  });

  it('an event list that is not UTF-8 fails the build naming the URL and the byte, not as a bug', async () => {
    eventsBody = NOT_UTF8;
    const r = await build('not-utf8');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('/event-calendar/c/events');
    expect(r.stderr).toContain(`the body is not valid UTF-8 (the first bad byte is at offset ${NOT_UTF8.indexOf(0xe9)})`);
    expect(r.stderr).not.toContain('a bug in calfeed');
  });
});
