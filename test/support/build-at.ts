// A build run in the test's own process against a demo portal, at a "now" the test chooses, with
// what it logged captured: how the e2e tests that depend on exact instants drive calfeed.

import { Writable } from 'node:stream';
import { runBuild } from '../../src/pipeline/build.js';
import type { BuildSummary } from '../../src/pipeline/summary.js';
import { loadConfig } from '../../src/config/load.js';
import type { DemoPortal } from '../../src/demo/server.js';
import { createLogger } from '../../src/log.js';

export interface BuildAt {
  /** A demo portal, or any portal given the same way. */
  portal: Pick<DemoPortal, 'url' | 'timeZone'> & { tokens: { university: string } };
  /** Working folder (config files are looked up there). */
  work: string;
  site: string;
  cache: string;
  now: number;
  /** Config values as flags give them (e.g. { title: 'Campus Events' }). */
  flags?: Record<string, string>;
}

/** Build `site` from the portal at `now`; returns the summary and what the build logged. */
export async function buildAt(run: BuildAt): Promise<{ summary: BuildSummary; log: string }> {
  let log = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      log += chunk.toString('utf8');
      done();
    },
  });
  const { portal } = run;
  const loaded = await loadConfig(
    'build',
    { baseUrl: portal.url, out: run.site, cacheDir: run.cache, timeZone: portal.timeZone, siteUrl: 'https://events.example.edu/', ...run.flags },
    { CALFEED_TOKEN: portal.tokens.university },
    run.work,
  );
  // Verbose: tests that drive the build this way check its workings, state files included.
  const summary = await runBuild({ loaded, log: createLogger({ stream, quiet: false, verbose: true, secrets: [] }), now: run.now });
  return { summary, log };
}
