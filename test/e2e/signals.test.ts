// Issue 17, item 2: the exit tells the truth about what was published. The real CLI, a real portal
// (400 events) and real signals: stopped before the commit point, a build exits 130 (SIGINT) or
// 143 (SIGTERM) with "published": false and --out as it was; a second signal exits at once, with
// the --json object too; once the new site is current, a signal or a failure to save the state no
// longer fails anything: exit 0, "published": true, and the log says so.
import type { ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, writeFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { runCli, type CliResult } from '../support/cli.js';
import { snapshotTree } from '../support/tree.js';
import { siteProblem } from '../support/verify-out.js';

let portal: DemoPortal;
let work: string;
/** A site and its cache built once, kept aside; each test starts from a copy of it. */
let template: string;

beforeAll(async () => {
  // Big enough that publishing (linking the kept files, checking and flushing them: 0.15 s and
  // more on a busy 2-core machine) outlasts the 1 ms polls below by far; the size itself is not
  // what is tested.
  portal = await startDemoPortal({ now: Date.now(), calendars: 2, eventsPerCalendar: 200 });
  work = await mkdtemp(join(tmpdir(), 'calfeed-signals-'));
  // Built where the tests build (the record of the last build names --out), so that each
  // test's build is the incremental one a scheduled rebuild is, without a cold build of its own.
  const dir = join(work, 'case');
  await mkdir(dir);
  const r = await build(dir);
  expect(r.code, r.stderr).toBe(0);
  template = join(work, 'template');
  await cp(dir, template, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
}, 120_000);

afterAll(async () => {
  await portal?.close();
  await rm(work, { recursive: true, force: true });
});

/** The folder with the site built once in `site` and its cache, as that build left them. */
async function builtSite(): Promise<string> {
  const dir = join(work, 'case');
  await rm(dir, { recursive: true, force: true });
  await cp(template, dir, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  return dir;
}

function build(dir: string, onSpawn?: (child: ChildProcess) => void): Promise<CliResult> {
  const args = ['build', '--base-url', portal.url, '--out', join(dir, 'site'), '--cache-dir', join(dir, 'cache'), '--time-zone', portal.timeZone, '--json'];
  return runCli(args, { env: { CALFEED_TOKEN: portal.tokens.university }, cwd: dir, timeoutMs: 120_000, onSpawn });
}

/** An onSpawn hook calling `then` once the build has staged its new manifest: it is publishing, not yet committed. */
function whenPublishing(dir: string, then: (child: ChildProcess) => void): (child: ChildProcess) => void {
  return (child) => {
    const poll = setInterval(() => {
      const staging = readdirSync(dir).find((n) => n.startsWith('.site.calfeed-staging-'));
      if (staging === undefined || !existsSync(join(dir, staging, 'manifest.json'))) return;
      clearInterval(poll);
      then(child);
    }, 1);
    child.on('close', () => clearInterval(poll));
  };
}

/** An onSpawn hook calling `then` as soon as --out is another folder: the commit has happened. */
function whenCommitted(dir: string, then: (child: ChildProcess) => void): (child: ChildProcess) => void {
  const before = lstatSync(join(dir, 'site')).ino;
  return (child) => {
    const poll = setInterval(() => {
      const now = existsSync(join(dir, 'site')) ? lstatSync(join(dir, 'site')).ino : before;
      if (now === before) return;
      clearInterval(poll);
      then(child);
    }, 1);
    child.on('close', () => clearInterval(poll));
  };
}

/** The one JSON object on stdout (a second one, or none, fails to parse). */
const json = (r: CliResult): Record<string, any> => JSON.parse(r.stdout) as Record<string, any>;

describe('a signal before the commit point', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s while publishing: exit %i, "published": false, --out as it was', async (signal, status) => {
    const dir = await builtSite();
    const before = await snapshotTree(join(dir, 'site'));
    portal.changeEvents(10);

    const r = await build(dir, whenPublishing(dir, (child) => child.kill(signal)));

    expect(r.code, r.stderr).toBe(status);
    expect(json(r)).toEqual({ ok: false, published: false, error: { code: 'INTERRUPTED', exitCode: status, message: expect.stringMatching(/nothing was published/) } });
    expect(r.stderr).toContain(`${signal} received: stopping; ${join(dir, 'site')} stays as it was.`);
    expect(await snapshotTree(join(dir, 'site'))).toEqual(before);
    expect((await readdir(dir)).sort()).toEqual(['cache', 'site']);
  });

  it('a second signal exits at once, with the --json object, and --out as it was', async () => {
    const dir = await builtSite();
    const before = await snapshotTree(join(dir, 'site'));
    portal.changeEvents(10);

    // Two different signals, so that both are delivered (a second SIGTERM pending could merge).
    // Pending together, the kernel hands them over in its own order (SIGINT first on Linux): the
    // exit status is the second one's.
    const r = await build(
      dir,
      whenPublishing(dir, (child) => {
        child.kill('SIGTERM');
        child.kill('SIGINT');
      }),
    );

    const second = /(SIGINT|SIGTERM) received again: exiting now/.exec(r.stderr)?.[1];
    expect(second, r.stderr).toBeDefined();
    const status = second === 'SIGINT' ? 130 : 143;
    expect(r.code, r.stderr).toBe(status);
    expect(json(r)).toMatchObject({ ok: false, published: false, error: { code: 'INTERRUPTED', exitCode: status } });
    expect(await snapshotTree(join(dir, 'site'))).toEqual(before);
    // What it left beside --out, the next build removes; that build publishes the change, and keeps
    // the output before it as its spare (src/publish/spare.ts).
    const next = await build(dir);
    expect(next.code, next.stderr).toBe(0);
    expect((await readdir(dir)).sort()).toEqual(['.site.calfeed-spare', '.site.calfeed-spare.json', 'cache', 'site']);
  });
});

describe('after the commit point', () => {
  it('a SIGTERM once the new site is current cancels nothing: exit 0, "published": true, and the log says so', async () => {
    const dir = await builtSite();
    // Files of the user's in the old output make removing it (after the commit) take a while.
    await mkdir(join(dir, 'site', 'strays'));
    for (let i = 0; i < 20_000; i++) writeFileSync(join(dir, 'site', 'strays', String(i)), '');
    portal.changeEvents(10);

    const r = await build(dir, whenCommitted(dir, (child) => child.kill('SIGTERM')));

    expect(r.code, r.stderr).toBe(0);
    const summary = json(r);
    expect(summary).toMatchObject({ ok: true, published: true });
    expect(summary.files.written).toBeGreaterThan(0);
    expect(r.stderr).toContain(`SIGTERM received: the new site is already published at ${join(dir, 'site')}`);
    expect(r.stderr).not.toContain('stays as it was');
    expect(summary.warnings).toEqual([expect.stringContaining('SIGTERM received: the new site is already published')]);
    expect(await siteProblem(join(dir, 'site'))).toBeUndefined();
    expect((await readdir(dir)).sort()).toEqual(['cache', 'site']);
  });

  it('a state file that cannot be saved after the commit is a warning: exit 0, "published": true', async () => {
    const dir = await builtSite();
    // A folder where the build store goes: reading it is a note, writing it fails.
    await rm(join(dir, 'cache', 'build-store'));
    await mkdir(join(dir, 'cache', 'build-store'));
    await writeFile(join(dir, 'cache', 'build-store', 'x'), '');
    portal.changeEvents(10);

    const r = await build(dir);

    expect(r.code, r.stderr).toBe(0);
    const summary = json(r);
    expect(summary).toMatchObject({ ok: true, published: true });
    expect(summary.warnings).toEqual([expect.stringMatching(/^The new site is published, but saving the build state in .* failed \(.*EISDIR/)]);
    expect(r.stderr).not.toMatch(/unexpected failure|INTERNAL/);
    expect(await siteProblem(join(dir, 'site'))).toBeUndefined();
  });
});
