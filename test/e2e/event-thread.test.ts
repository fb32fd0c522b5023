// The event thread (src/pipeline/event-thread.ts): event pages, VEVENTs and feed items rendered in a
// thread of their own are the very bytes the main thread renders, whether the thread starts at the
// first event (--threads 2) or part way through a crawl (by the cores, after 500 events), in a cold
// build and in a rebuild after changes; and a thread that fails fails the build, never hangs it.
// The thread runs only from compiled code, so these builds run dist/ in this process, at one "now".
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as BuildModule from '../../src/pipeline/build.js';
import type * as LoadModule from '../../src/config/load.js';
import type * as LogModule from '../../src/log.js';
import type * as ThreadModule from '../../src/pipeline/event-thread.js';
import type * as PageModule from '../../src/pipeline/page-render.js';
import type * as HtmlModule from '../../src/render/html/index.js';
import type * as ContextModule from '../../src/render/context.js';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { sampleCalendar, sampleEvent, sampleSite } from '../fixtures/sample.js';
import { snapshotTree } from '../support/tree.js';

const dist = (p: string): string => new URL(`../../dist/${p}`, import.meta.url).href;
const { runBuild } = (await import(dist('pipeline/build.js'))) as typeof BuildModule;
const { loadConfig } = (await import(dist('config/load.js'))) as typeof LoadModule;
const { createLogger } = (await import(dist('log.js'))) as typeof LogModule;
const { EventRendering } = (await import(dist('pipeline/event-thread.js'))) as typeof ThreadModule;
const { PageRenderer } = (await import(dist('pipeline/page-render.js'))) as typeof PageModule;
const { htmlRenderer, readTemplates } = (await import(dist('render/html/index.js'))) as typeof HtmlModule;
const { createRenderContext } = (await import(dist('render/context.js'))) as typeof ContextModule;

let work: string;
let portal: DemoPortal;
const now = Date.now();

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-event-thread-'));
  // 750 events: more than the 500 after which the cores start the thread.
  portal = await startDemoPortal({ now, calendars: 3, eventsPerCalendar: 250 });
});
afterAll(async () => {
  await portal.close();
  await rm(work, { recursive: true, force: true });
});

/** Build `name` from the portal at `now` with `threads` (undefined: by the cores); returns its log. */
async function build(name: string, threads: string | undefined): Promise<string> {
  let log = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      log += chunk.toString('utf8');
      done();
    },
  });
  const flags = { baseUrl: portal.url, out: join(work, name, 'site'), cacheDir: join(work, name, 'cache'), timeZone: portal.timeZone, siteUrl: 'https://events.example.edu/', ...(threads === undefined ? {} : { threads }) };
  const loaded = await loadConfig('build', flags, { CALFEED_TOKEN: portal.tokens.university }, work);
  await runBuild({ loaded, log: createLogger({ stream, quiet: false, verbose: true, secrets: [] }), now });
  return log;
}

const hashes = async (name: string): Promise<Array<[string, string]>> =>
  [...(await snapshotTree(join(work, name, 'site')))].map(([path, { sha256 }]): [string, string] => [path, sha256]).sort();

describe('the event thread', () => {
  it('renders the bytes the main thread renders, started at once or after 500 events, cold and after changes', async () => {
    const none = await build('none', '0');
    expect(none).not.toContain('in a thread of their own');
    const first = await build('first', '2');
    expect(first).toContain('threads: event files rendered in a thread of their own after 0 here');
    const cores = await build('cores', undefined);
    if (availableParallelism() > 1) expect(cores).toContain('threads: event files rendered in a thread of their own after 500 here');
    else expect(cores).not.toContain('in a thread of their own');
    const expected = await hashes('none');
    expect(expected.length).toBeGreaterThan(750 * 2);
    expect(await hashes('first')).toEqual(expected);
    expect(await hashes('cores')).toEqual(expected);

    // A rebuild renders the changed events only: in the thread from the first with --threads 2.
    portal.changeEvents(40);
    await build('none', '0');
    expect(await build('first', '2')).toContain('after 0 here');
    await build('cores', undefined);
    const changed = await hashes('none');
    expect(changed).not.toEqual(expected);
    expect(await hashes('first')).toEqual(changed);
    expect(await hashes('cores')).toEqual(changed);
  }, 120_000);

  it('fails what it was given when the thread fails, and lets the process go', async () => {
    const site = sampleSite();
    const templates = await readTemplates();
    const rendering = new EventRendering(new PageRenderer(createRenderContext(), htmlRenderer(templates), site), templates, site, 0);
    const cal = sampleCalendar();
    const event = sampleEvent();
    const good = await rendering.render(cal, event, JSON.stringify(event), { page: true, items: true });
    expect(Buffer.from(good.page as Uint8Array).toString('utf8')).toContain('</html>');
    // An event the renderer cannot take: the thread's uncaught error reaches every caller waiting.
    const bad = rendering.render(cal, event, 'null', { page: true, items: true });
    await expect(bad).rejects.toThrow(/The event rendering thread failed: .*null/);
    await expect(rendering.render(cal, event, JSON.stringify(event), { page: true, items: false })).rejects.toThrow(/event rendering thread/);
    await rendering.stop();
  });
});
