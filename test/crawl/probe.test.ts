// probeLists over real HTTP: a small portal on loopback whose lists either honour validators
// (ETag, 304) or send none, and whose bodies the test changes between probes.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { probeLists, sha256, type ListRecord } from '../../src/crawl/index.js';
import { clientFor } from './helpers.js';

// path -> body; a path under /plain/ is served without validators.
const bodies = new Map<string, string>();
const requests: string[] = [];
let server: Server;
let base: string;

const etagOf = (body: string): string => `"${sha256(Buffer.from(body)).slice(0, 16)}"`;

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/api\//, '');
    requests.push(path);
    const body = bodies.get(path);
    if (body === undefined) {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}');
      return;
    }
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (!path.startsWith('plain/')) {
      headers['etag'] = etagOf(body);
      if (req.headers['if-none-match'] === headers['etag']) {
        res.writeHead(304, headers).end();
        return;
      }
    }
    res.writeHead(200, headers).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  bodies.clear();
  requests.length = 0;
});

/** A list as the last build recorded it: one entry per page, with the validators it was served with. */
function recorded(mirrorPath: string, pagePaths: string[]): ListRecord {
  const pages = pagePaths.map((p) => {
    const body = Buffer.from(bodies.get(p)!);
    return { url: p, sha256: sha256(body), ...(p.startsWith('plain/') ? {} : { etag: etagOf(body.toString()) }) };
  });
  return { mirrorPath, entry: { sha256: pages.length === 1 ? pages[0]!.sha256 : sha256(Buffer.from(pagePaths.join())), pages } };
}

async function probe(lists: ListRecord[], concurrency = 4): Promise<Awaited<ReturnType<typeof probeLists>>> {
  const client = clientFor(base, { concurrency, retries: 0 });
  try {
    return await probeLists(client, lists);
  } finally {
    await client.close();
  }
}

describe('probeLists', () => {
  it('confirms every list the portal answers with a 304, or with the same bytes when it sends no validators', async () => {
    bodies.set('cals', '[{"id":1},{"id":2}]');
    bodies.set('cal/1/events', '[{"id":"a"}]');
    bodies.set('plain/cal/2/events', '[{"id":"b"}]');
    const lists = [recorded('event-calendars', ['cals']), recorded('event-calendar/1/events', ['cal/1/events']), recorded('event-calendar/2/events', ['plain/cal/2/events'])];
    const result = await probe(lists);
    expect(result.changed).toBeUndefined();
    expect([...result.confirmed]).toEqual(expect.arrayContaining(lists.map((l) => [l.mirrorPath, l.entry.sha256])));
    expect(result.confirmed.size).toBe(3);
    expect(result.firstPages.size).toBe(0);
    expect(requests.sort()).toEqual(['cal/1/events', 'cals', 'plain/cal/2/events']);
  });

  it('stops at a changed calendar list without asking about any event list, and hands its response on', async () => {
    bodies.set('cals', '[{"id":1}]');
    bodies.set('cal/1/events', '[]');
    const lists = [recorded('event-calendars', ['cals']), recorded('event-calendar/1/events', ['cal/1/events'])];
    bodies.set('cals', '[{"id":1},{"id":3}]');
    const result = await probe(lists);
    expect(result.changed).toEqual({ mirrorPath: 'event-calendars', why: 'cals changed' });
    expect(requests).toEqual(['cals']);
    expect(result.confirmed.size).toBe(0);
    expect(result.firstPages.get('event-calendars')?.list?.full()).toEqual([{ id: 1 }, { id: 3 }]);
  });

  it('stops asking once an event list changed (one at a time: none after it)', async () => {
    bodies.set('cals', '[]');
    for (const n of [1, 2, 3, 4]) bodies.set(`plain/cal/${n}/events`, `[{"n":${n}}]`);
    const lists = [recorded('event-calendars', ['cals']), ...[1, 2, 3, 4].map((n) => recorded(`event-calendar/${n}/events`, [`plain/cal/${n}/events`]))];
    bodies.set('plain/cal/2/events', '[{"n":2,"changed":true}]');
    const result = await probe(lists, 1);
    expect(result.changed?.mirrorPath).toBe('event-calendar/2/events');
    expect(requests).toEqual(['cals', 'plain/cal/1/events', 'plain/cal/2/events']);
    expect([...result.confirmed.keys()]).toEqual(['event-calendars', 'event-calendar/1/events']);
    expect([...result.firstPages.keys()]).toEqual(['event-calendar/2/events']);
  });

  it('a later page that changed marks the list changed, with no first page to hand on', async () => {
    bodies.set('cals', '[]');
    bodies.set('cal/1/events', '[1]');
    bodies.set('plain/cal/1/events-2', '[2]');
    const lists = [recorded('event-calendars', ['cals']), recorded('event-calendar/1/events', ['cal/1/events', 'plain/cal/1/events-2'])];
    bodies.set('plain/cal/1/events-2', '[2,3]');
    const result = await probe(lists);
    expect(result.changed).toEqual({ mirrorPath: 'event-calendar/1/events', why: 'plain/cal/1/events-2 changed' });
    expect(result.firstPages.size).toBe(0);
    expect(requests).toEqual(['cals', 'cal/1/events', 'plain/cal/1/events-2']);
  });

  it('a list that cannot be checked counts as changed (the crawl then reports the failure itself)', async () => {
    bodies.set('cals', '[]');
    bodies.set('cal/1/events', '[]');
    const lists = [recorded('event-calendars', ['cals']), recorded('event-calendar/1/events', ['cal/1/events'])];
    bodies.delete('cal/1/events'); // now answers 500
    const result = await probe(lists);
    expect(result.changed?.mirrorPath).toBe('event-calendar/1/events');
    expect(result.changed?.why).toMatch(/^cal\/1\/events could not be checked \(.*500/);
    expect(result.firstPages.size).toBe(0);
  });
});
