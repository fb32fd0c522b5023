// Issue 17, item 1: one commit point that never touches the live tree. The real CLI rebuilds a
// 1,000-event site after 1% of its events changed, --out a folder (two renames) or a symbolic link
// (one atomic link rename): a reader polling --out meanwhile never misses a file of the manifest
// (in folder mode, only while --out itself is swapped), and a SIGKILL at a random instant leaves a
// complete old or new site, checked file by file against its manifest.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { runCli, type CliResult } from '../support/cli.js';
import { siteProblem } from '../support/verify-out.js';

const CALENDARS = 4;
const EVENTS = 250;
const CHANGED = (CALENDARS * EVENTS) / 100;
type Mode = 'folder' | 'link';

let portal: DemoPortal;
let work: string;

beforeAll(async () => {
  portal = await startDemoPortal({ now: Date.now(), calendars: CALENDARS, eventsPerCalendar: EVENTS });
  work = await mkdtemp(join(tmpdir(), 'calfeed-commit-'));
}, 120_000);

afterAll(async () => {
  await portal?.close();
  await rm(work, { recursive: true, force: true });
});

/** A fresh site built once: --out a folder, or a link to one. */
async function firstBuild(mode: Mode): Promise<string> {
  const dir = join(work, mode);
  await mkdir(dir);
  if (mode === 'link') {
    await mkdir(join(dir, 'site.0'));
    await symlink('site.0', join(dir, 'site'));
  }
  const r = await build(dir);
  expect(r.code, r.stderr).toBe(0);
  return dir;
}

function build(dir: string, onSpawn?: (child: ChildProcess) => void): Promise<CliResult> {
  const args = ['build', '--base-url', portal.url, '--out', join(dir, 'site'), '--cache-dir', join(dir, 'cache'), '--time-zone', portal.timeZone, '--quiet'];
  return runCli(args, { env: { CALFEED_TOKEN: portal.tokens.university }, cwd: dir, timeoutMs: 240_000, onSpawn });
}

async function manifestPaths(out: string): Promise<string[]> {
  const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')) as { files: Array<{ path: string }> };
  return ['manifest.json', ...manifest.files.map((f) => f.path)];
}

interface ReaderReport {
  rounds: number;
  /** Outputs (inodes of --out) seen: 2 or more means the reader was polling across the commit. */
  outputs: number;
  /** Misses while --out itself was absent or swapped during the lookup (folder mode only). */
  inSwap: number;
  /** Runs of such misses with a found file between them: each is one swap of --out. */
  swaps: number;
  missing: string[];
}

// The reader, in a thread of its own so it polls while this thread serves the portal: every
// listed file, stat'ed through --out, round after round. --out's own inode is read before and
// after each stat: a miss counts as "in the swap" only when --out was absent or changed between.
const READER = `
const { lstatSync, statSync } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const { out, files, strict, stop } = workerData;
const flag = new Int32Array(stop);
const ino = () => { try { return lstatSync(out).ino; } catch { return -1; } };
const outputs = new Set();
let rounds = 0, inSwap = 0, swaps = 0, found = true;
const missing = [];
while (Atomics.load(flag, 0) === 0) {
  for (const file of files) {
    const before = ino();
    outputs.add(before);
    try { statSync(out + '/' + file); found = true; } catch (error) {
      const after = ino();
      if (!strict && (before === -1 || after === -1 || before !== after)) {
        if (found) swaps++;
        found = false;
        inSwap++;
      }
      else if (missing.length < 20 && missing.push(file + ' (' + error.code + ')') === 1) parentPort.postMessage({ miss: file });
    }
  }
  rounds++;
}
outputs.delete(-1);
parentPort.postMessage({ report: { rounds, outputs: outputs.size, inSwap, swaps, missing } });
`;

/** Run a build while the reader polls --out; onMiss is told of the first file it misses. */
async function whileReading(
  out: string,
  strict: boolean,
  run: () => Promise<CliResult>,
  onMiss?: () => void,
): Promise<{ result: CliResult; report: ReaderReport }> {
  const files = await manifestPaths(out);
  expect(files.length).toBeGreaterThan(3000);
  const stop = new SharedArrayBuffer(4);
  const reader = new Worker(READER, { eval: true, workerData: { out, files, strict, stop } });
  const report = new Promise<ReaderReport>((resolve, reject) => {
    reader.on('message', (m: { miss?: string; report?: ReaderReport }) => (m.report ? resolve(m.report) : onMiss?.()));
    reader.once('error', reject);
  });
  try {
    const result = await run();
    Atomics.store(new Int32Array(stop), 0, 1);
    return { result, report: await report };
  } finally {
    Atomics.store(new Int32Array(stop), 0, 1);
    await reader.terminate();
  }
}

/** An onSpawn hook calling `then` once the build has staged its new manifest (publishing starts). */
function onStaged(dir: string, then: (child: ChildProcess) => void): (child: ChildProcess) => void {
  return (child) => {
    const poll = setInterval(() => {
      const staging = readdirSync(dir).find((n) => n.startsWith('.site.calfeed-staging-'));
      if (staging === undefined || !existsSync(join(dir, staging, 'manifest.json'))) return;
      clearInterval(poll);
      then(child);
    }, 2);
    child.on('close', () => clearInterval(poll));
  };
}

/** An onSpawn hook: SIGKILL the build `delayMs` after it starts, or after it starts publishing. */
function killAfter(dir: string, delayMs: number, from: 'start' | 'publish'): (child: ChildProcess) => void {
  const kill = (child: ChildProcess): void => void setTimeout(() => child.kill('SIGKILL'), delayMs);
  return from === 'start' ? kill : onStaged(dir, kill);
}

/** Names beside --out that a finished build must not leave. */
async function leftovers(dir: string): Promise<string[]> {
  const names = await readdir(dir);
  const gens = names.filter((n) => n.startsWith('.site.calfeed-gen-'));
  return [...names.filter((n) => /calfeed-(staging|old|link|lock)/.test(n)), ...(gens.length > 2 ? gens : [])];
}

describe.each(['folder', 'link'] as const)('--out a %s', (mode) => {
  let dir: string;
  beforeAll(async () => {
    dir = await firstBuild(mode);
  }, 240_000);

  it('a reader polling --out during an incremental publish never misses a file of the manifest', async () => {
    const out = join(dir, 'site');
    portal.changeEvents(CHANGED);

    const { result, report } = await whileReading(out, mode === 'link', () => build(dir));

    expect(result.code, result.stderr).toBe(0);
    expect(report.outputs).toBeGreaterThanOrEqual(2); // polling before and after the commit
    expect(report.missing).toEqual([]);
    // Folder mode: lookups may span the two renames, and only those: every such miss falls in the
    // one stretch while --out is swapped (how many lookups fit in it depends on the machine's load).
    expect(report.swaps).toBeLessThanOrEqual(mode === 'link' ? 0 : 1);
    if (mode === 'link') expect(report.inSwap).toBe(0);
    expect(await siteProblem(out)).toBeUndefined();
  }, 240_000);

  it('a SIGKILL at a random instant of an incremental build leaves a complete old or new site', async () => {
    const out = join(dir, 'site');
    // First the worst instant a reader can see: killed as soon as a file is missing from --out
    // (never, here: the build runs to the end, and tells how long it takes, from its start and
    // from staging its new manifest).
    portal.changeEvents(CHANGED);
    const timing = { start: performance.now(), staged: 0 };
    let child: ChildProcess | undefined;
    const spawned = onStaged(dir, () => (timing.staged = performance.now()));
    const watched = await whileReading(out, mode === 'link', () => build(dir, (c) => spawned((child = c))), () => child?.kill('SIGKILL'));
    expect(await siteProblem(out), `killed when a reader missed ${watched.report.missing[0]}`).toBeUndefined();
    expect(watched.result.code, watched.result.stderr).toBe(0);
    const total = performance.now() - timing.start;
    const publishing = performance.now() - timing.staged;
    // Then at random instants: one in the whole build, three spread over publishing (one in each third).
    const instants: Array<[number, 'start' | 'publish']> = [
      [Math.random() * total, 'start'],
      ...[0, 1, 2].map((k): [number, 'publish'] => [((k + Math.random()) / 3) * publishing, 'publish']),
    ];
    const outcomes: string[] = [];
    for (const [delay, from] of instants) {
      portal.changeEvents(CHANGED);
      const before = await readFile(join(out, 'manifest.json'), 'utf8');
      const r = await build(dir, killAfter(dir, delay, from));
      const what = `killed ${Math.round(delay)} ms after ${from} (${r.signal ?? `exit ${r.code}`})`;
      if (!(await present(out))) {
        // Folder mode, killed between its two renames: the next build puts the old output back.
        expect(mode, what).toBe('folder');
        const next = await build(dir);
        expect(next.code, next.stderr).toBe(0);
      }
      expect(await siteProblem(out), what).toBeUndefined();
      outcomes.push(`${what}: ${(await readFile(join(out, 'manifest.json'), 'utf8')) === before ? 'old' : 'new'} site`);
    }
    const last = await build(dir);
    expect(last.code, last.stderr).toBe(0);
    expect(await siteProblem(out)).toBeUndefined();
    expect(await leftovers(dir), outcomes.join('\n')).toEqual([]);
  }, 600_000);
});

/** Whether p leads to something (a link leading nowhere does not). */
async function present(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}
