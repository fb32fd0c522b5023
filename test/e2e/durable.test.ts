// Issue 17, item 1: the new output is on disk before it becomes current. The real CLI under strace:
// the file system is synced (syncfs, or without `sync -f` an fsync per written file and folder)
// before the rename that publishes, and the parent folder is flushed after it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { CLI, runCli } from '../support/cli.js';

const STRACE = '/usr/bin/strace';
let portal: DemoPortal;
let work: string;

beforeAll(async () => {
  portal = await startDemoPortal({ now: Date.now() });
  work = await mkdtemp(join(tmpdir(), 'calfeed-durable-'));
});

afterAll(async () => {
  await portal?.close();
  await rm(work, { recursive: true, force: true });
});

const args = (name: string): string[] => ['build', '--base-url', portal.url, '--out', join(work, name, 'site'), '--cache-dir', join(work, name, 'cache'), '--time-zone', portal.timeZone];

/** Build under strace (following `sync -f`); returns the traced calls, one per line, in order. */
async function tracedBuild(name: string, path: string, more: { calls?: string; paths?: boolean } = {}): Promise<string[]> {
  const trace = join(work, `${name}.trace`);
  const env = { ...process.env, CALFEED_TOKEN: portal.tokens.university, PATH: path };
  const calls = `trace=syncfs,fsync,fdatasync,rename,renameat,renameat2${more.calls ?? ''}`;
  // -y: each file descriptor shown with its path.
  const child = spawn(STRACE, ['-f', ...(more.paths ? ['-y'] : []), '-e', calls, '-o', trace, process.execPath, CLI, ...args(name)], { env, cwd: work, stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code).toBe(0);
  return (await readFile(trace, 'utf8')).split('\n');
}

describe.skipIf(!existsSync(STRACE))('flushing to disk before the commit', () => {
  it.each([
    ['with sync -f: one syncfs', 'syncfs', process.env.PATH ?? '/usr/bin:/bin'],
    ['without it: an fsync per file and folder', 'fsync', '/nonexistent'],
  ])('%s before the rename into --out, and the parent flushed after it', async (_how, flushCall, path) => {
    const name = flushCall;
    const first = await runCli(args(name), { env: { CALFEED_TOKEN: portal.tokens.university }, cwd: work });
    expect(first.code, first.stderr).toBe(0);
    portal.changeEvents(2);

    const lines = await tracedBuild(name, path);

    // Calls run in the thread pool show as "call(... <unfinished ...>" then "<... call resumed>) = 0".
    const site = JSON.stringify(join(work, name, 'site'));
    const commit = lines.findIndex((l) => /\brename(at2?)?\(/.test(l) && l.includes('.site.calfeed-staging-') && l.includes(site));
    expect(commit, 'the rename of the staging folder into --out').toBeGreaterThan(0);
    const done = (call: string) => (l: string) => new RegExp(`(\\b${call}\\(\\d+\\)|<\\.\\.\\. ${call} resumed>\\))\\s+= 0$`).test(l);
    const flushes = lines.slice(0, commit).filter(done(flushCall));
    // syncfs once; else at least the site's folders (about 80) and its written files.
    expect(flushes.length).toBeGreaterThanOrEqual(flushCall === 'syncfs' ? 1 : 80);
    expect(lines.slice(commit + 1).some(done('fsync'))).toBe(true);
  });

  // The flush begins while verify reads the folder; the user's dot files, linked in after verify,
  // are flushed on their own before the commit.
  it.each([
    ['with sync -f', 'syncfs', process.env.PATH ?? '/usr/bin:/bin'],
    ['without it', 'fsync', '/nonexistent'],
  ])('a dot file of --out carried into the new output is flushed before the commit (%s)', async (_how, flushCall, path) => {
    const name = `dotfile-${flushCall}`;
    const first = await runCli(args(name), { env: { CALFEED_TOKEN: portal.tokens.university }, cwd: work });
    expect(first.code, first.stderr).toBe(0);
    await writeFile(join(work, name, 'site', '.nojekyll'), '');
    portal.changeEvents(2);

    const lines = await tracedBuild(name, path, { calls: ',link,linkat', paths: true });

    const carried = lines.findIndex((l) => /\blink(at)?\(/.test(l) && /\.site\.calfeed-staging-[^/"]*\/\.nojekyll"/.test(l));
    expect(carried, 'the link of .nojekyll into the staging folder').toBeGreaterThan(0);
    const commit = lines.findIndex((l) => /\brename(at2?)?\(/.test(l) && l.includes('.site.calfeed-staging-') && l.includes(JSON.stringify(join(work, name, 'site'))));
    expect(commit).toBeGreaterThan(carried);
    const before = lines.slice(0, commit);
    if (flushCall === 'syncfs') {
      // The flush begun before verify, and one more for what was carried in after it.
      expect(before.filter((l) => /\bsyncfs\(\d+</.test(l)).length).toBe(2);
    } else {
      // The carried file, and the staging folder (its new entry) after the link.
      expect(before.some((l) => /\bfsync\(\d+<[^>]*\/\.site\.calfeed-staging-[^/>]*\/\.nojekyll>/.test(l))).toBe(true);
      expect(lines.slice(carried + 1, commit).some((l) => /\bfsync\(\d+<[^>]*\/\.site\.calfeed-staging-[^/>]*>/.test(l))).toBe(true);
    }
    expect(existsSync(join(work, name, 'site', '.nojekyll'))).toBe(true);
  });
});
