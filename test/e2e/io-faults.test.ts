// Issue 17, item 8: faults of the machine (a full disk, a read-only mount, a folder calfeed may not
// write) were reported as "unexpected failure (a bug in calfeed; please report it)" with a stack
// trace. Now each is an IO error (exit 1, code "IO" in --json) that names the path, says why in
// plain words and what to do, and that --out was left as it was. Real processes, real file systems:
// small tmpfs mounts in a private mount namespace (`unshare -rm`: the mount goes when the process
// exits, so whatever is checked on it is checked, or copied out, in the same shell script), and an
// unprivileged user (as root, through setpriv) for "permission denied".
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { CLI, runCli, runCommand, type CliResult } from '../support/cli.js';
import { snapshotTree } from '../support/tree.js';

const NOW = Date.now();
const ROOT = process.getuid?.() === 0;
const NOBODY = 65534;

let portal: DemoPortal;
let work: string;
/** A site built once, and the cache of that build: the "previous output" each test starts from. */
let refSite: string;
let refCache: string;
let published: Awaited<ReturnType<typeof snapshotTree>>;

beforeAll(async () => {
  portal = await startDemoPortal({ now: NOW });
  work = await mkdtemp(join(tmpdir(), 'calfeed-io-'));
  // Readable by the unprivileged user of the permission tests.
  await chmod(work, 0o755);
  refSite = join(work, 'ref', 'site');
  refCache = join(work, 'ref', 'cache');
  const r = await runCli(buildArgs(refSite, refCache), { env: { CALFEED_TOKEN: portal.tokens.university }, cwd: work });
  expect(r.code, r.stderr).toBe(0);
  published = await snapshotTree(refSite);
});

afterAll(async () => {
  await portal?.close();
  await rm(work, { recursive: true, force: true });
});

function buildArgs(out: string, cacheDir: string, extra: string[] = []): string[] {
  return ['build', '--base-url', portal.url, '--out', out, '--cache-dir', cacheDir, '--time-zone', portal.timeZone, '--json', ...extra];
}

/** Shell-quoted, for the scripts below. */
const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
const cli = (args: string[]): string => [process.execPath, CLI, ...args].map(q).join(' ');

/**
 * Run `script` in a private mount namespace after mounting a tmpfs of `options` at `mountPoint`.
 * `$FS` is the mount point; `build` in the script runs the build (its output is the result's), and
 * its exit status is the result's.
 */
async function inNamespace(mountPoint: string, options: string, before: string, buildCommand: string, after = ''): Promise<CliResult> {
  await mkdir(mountPoint, { recursive: true });
  const script = [
    `FS=${q(mountPoint)}`,
    `mount -t tmpfs -o ${options} tmpfs "$FS" || exit 99`,
    before,
    buildCommand,
    'status=$?',
    after,
    'exit $status',
  ].join('\n');
  return runCommand('unshare', ['-rm', 'sh', '-c', script], { env: { CALFEED_TOKEN: portal.tokens.university }, cwd: work });
}

/** Remount the tmpfs read-only; its options given again, or mount(8) refuses as a user that is not root. */
const REMOUNT_RO = 'mount -o remount,ro,size=4m tmpfs "$FS" || exit 99';

/** The checks every IO failure shares: exit 1, code IO, no "bug", no token, --out said to be kept. */
function expectIoFailure(r: CliResult, out: string, why: RegExp): string {
  expect(r.code, r.stderr).not.toBe(99);
  expect(r.stderr).not.toMatch(/bug in calfeed/);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.code, r.stderr).toBe(1);
  const result = JSON.parse(r.stdout) as { ok: boolean; published: boolean; error: { code: string; exitCode: number; message: string } };
  expect(result).toMatchObject({ ok: false, published: false, error: { code: 'IO', exitCode: 1 } });
  const { message } = result.error;
  expect(message).toMatch(why);
  expect(message).toContain(`${out} was left as it was`);
  expect(message).toMatch(/then run calfeed again/);
  expect(r.stderr).toContain(`error: ${message}`);
  expect(r.stderr + r.stdout).not.toContain(portal.tokens.university);
  return message;
}

describe('a full disk', () => {
  it('disk full on a first build was reported as a bug in calfeed: now an IO error naming the path, nothing left behind', async () => {
    const fs = join(work, 'full-first');
    const out = join(fs, 'site');
    const r = await inNamespace(fs, 'size=64k', '', cli(buildArgs(out, join(work, 'full-first-cache'))), `ls -A "$FS" > ${q(join(work, 'full-first.left'))}`);
    const message = expectIoFailure(r, out, /no space left on the device/);
    // The file that could not be written: one of the staging folder beside --out.
    expect(message).toMatch(new RegExp(`Could not (write|open|create the folder) ${fs}/\\.site\\.calfeed-staging-`));
    expect(message).toContain(`Free some space on the file system of ${fs} (the folder --out is in), or choose another --out`);
    // The staging folder was removed: nothing is left on the full file system.
    expect(await readFile(join(work, 'full-first.left'), 'utf8')).toBe('');
  });

  it('disk full on a rebuild was reported as a bug in calfeed: now an IO error, and the previous --out is as it was', async () => {
    const fs = join(work, 'full-again');
    const out = join(fs, 'site');
    const copy = join(work, 'full-again.after');
    // The previous site on the tmpfs, then the tmpfs filled but for 256 KiB: every page changes
    // (another --site-url), so the new output needs far more than that.
    const fill = ['cp -a ' + q(refSite) + ' "$FS/site"', 'head -c 262144 /dev/zero > "$FS/reserve"', 'cat /dev/zero > "$FS/fill" 2>/dev/null', 'rm "$FS/reserve"'].join('\n');
    const check = [
      `${cli(['verify', '--out', out])} > ${q(join(work, 'full-again.verify'))} 2>&1; echo $? >> ${q(join(work, 'full-again.verify'))}`,
      `ls -A "$FS" > ${q(join(work, 'full-again.left'))}`,
      `cp -a "$FS/site" ${q(copy)}`,
    ].join('\n');
    const r = await inNamespace(fs, 'size=4m', fill, cli(buildArgs(out, join(work, 'full-again-cache'), ['--site-url', 'https://events.example.edu/'])), check);
    const message = expectIoFailure(r, out, /no space left on the device/);
    expect(message).toContain(fs);
    expect(message).toContain('(the folder --out is in)');
    expect(await readFile(join(work, 'full-again.verify'), 'utf8')).toMatch(/is intact[^]*\n0\n$/);
    expect(await readFile(join(work, 'full-again.left'), 'utf8')).toBe('fill\nsite\n');
    expect(await snapshotTree(copy)).toEqual(published);
  });

  it('a full --cache-dir was reported as a bug in calfeed: now an IO error naming --cache-dir, --out as it was', async () => {
    const fs = join(work, 'full-cache');
    const out = join(work, 'full-cache-site');
    await runCommand('cp', ['-a', refSite, out]);
    const r = await inNamespace(fs, 'size=32k', '', cli(buildArgs(out, join(fs, 'cache'))));
    const message = expectIoFailure(r, out, /no space left on the device/);
    expect(message).toContain(`${fs}/cache`);
    expect(message).toContain(`Free some space on the file system of ${fs}/cache (--cache-dir), or choose another --cache-dir`);
    expect(await snapshotTree(out)).toEqual(published);
  });
});

describe('a read-only file system', () => {
  it('a read-only parent of --out was reported as a bug in calfeed: now an IO error, --out as it was', async () => {
    const fs = join(work, 'ro-out');
    const out = join(fs, 'site');
    const copy = join(work, 'ro-out.after');
    const r = await inNamespace(
      fs,
      'size=4m',
      ['cp -a ' + q(refSite) + ' "$FS/site"', REMOUNT_RO].join('\n'),
      cli(buildArgs(out, join(work, 'ro-out-cache'))),
      `cp -a "$FS/site" ${q(copy)}`,
    );
    const message = expectIoFailure(r, out, /read-only file system/);
    expect(message).toMatch(new RegExp(`Could not \\w+ ${fs}/\\.site\\.calfeed-`));
    expect(message).toContain(`Remount the file system of ${fs} (the folder --out is in) read-write, or choose another --out`);
    expect(await snapshotTree(copy)).toEqual(published);
  });

  it('a read-only --cache-dir was reported as a bug in calfeed: now an IO error naming --cache-dir, --out as it was', async () => {
    const fs = join(work, 'ro-cache');
    const out = join(work, 'ro-cache-site');
    await runCommand('cp', ['-a', refSite, out]);
    // The last build's cache, read-only; another --site-url, so the build has something to save.
    const r = await inNamespace(
      fs,
      'size=4m',
      ['cp -a ' + q(refCache) + ' "$FS/cache"', REMOUNT_RO].join('\n'),
      cli(buildArgs(out, join(fs, 'cache'), ['--site-url', 'https://events.example.edu/'])),
    );
    const message = expectIoFailure(r, out, /read-only file system/);
    expect(message).toContain(`${fs}/cache/`);
    expect(message).toContain(`Remount the file system of ${fs}/cache (--cache-dir) read-write, or choose another --cache-dir`);
    expect(await snapshotTree(out)).toEqual(published);
  });
  it('regression: a --cache-dir not made yet on a read-only mount was "a bug in calfeed" (ENOENT from Node\'s recursive mkdir): now an IO error', async () => {
    const fs = join(work, 'ro-new-cache');
    const out = join(work, 'ro-new-cache-site');
    await runCommand('cp', ['-a', refSite, out]);
    const r = await inNamespace(fs, 'size=4m', REMOUNT_RO, cli(buildArgs(out, join(fs, 'cache'), ['--site-url', 'https://events.example.edu/'])));
    const message = expectIoFailure(r, out, /read-only file system/);
    expect(message).toContain(`Could not create the folder ${fs}/cache`);
    expect(message).toContain('(--cache-dir) read-write, or choose another --cache-dir');
    expect(await snapshotTree(out)).toEqual(published);
  });
});

describe('a path that cannot be a folder', () => {
  it('a --cache-dir below a regular file was reported as a bug in calfeed: now an IO error saying a part of the path is a file', async () => {
    const file = join(work, 'not-a-folder');
    await writeFile(file, 'a file\n');
    const out = join(work, 'notdir-site');
    await runCommand('cp', ['-a', refSite, out]);
    const r = await runCli(buildArgs(out, join(file, 'cache')), { env: { CALFEED_TOKEN: portal.tokens.university }, cwd: work });
    const message = expectIoFailure(r, out, /a part of the path is a file, not a folder/);
    expect(message).toContain(`${file}/cache`);
    expect(message).toContain('--cache-dir');
    expect(await snapshotTree(out)).toEqual(published);
  });
});

describe('permission denied', () => {
  /**
   * Run the CLI as a user that may not write `locked` (a folder made here): as root, which file
   * permissions do not stop, the build runs as nobody and `locked` stays root's (0755); otherwise
   * `locked` is made 0555. `writable` folders are given to that user.
   */
  async function runDenied(args: string[], locked: string, writable: string[]): Promise<CliResult> {
    const env = { CALFEED_TOKEN: portal.tokens.university };
    if (!ROOT) {
      await chmod(locked, 0o555);
      return runCli(args, { env, cwd: work });
    }
    for (const dir of writable) await chown(dir, NOBODY, NOBODY);
    const setpriv = ['--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups'];
    // The unprivileged user must be able to run calfeed at all (node, dist, node_modules readable).
    const version = await runCommand('setpriv', [...setpriv, process.execPath, CLI, '--version'], { env, cwd: work });
    expect(version.code, `calfeed cannot run as uid ${NOBODY}: ${version.stderr}`).toBe(0);
    return runCommand('setpriv', [...setpriv, process.execPath, CLI, ...args], { env, cwd: work });
  }

  it('an unwritable folder holding --out was reported as a bug in calfeed: now an IO error, --out as it was', async () => {
    const locked = join(work, 'denied-out');
    const cacheDir = join(work, 'denied-out-cache');
    await mkdir(locked, { mode: 0o755 });
    await mkdir(cacheDir);
    const out = join(locked, 'site');
    await runCommand('cp', ['-a', refSite, out]);
    try {
      const r = await runDenied(buildArgs(out, cacheDir), locked, [cacheDir]);
      const message = expectIoFailure(r, out, /permission denied/);
      expect(message).toMatch(new RegExp(`Could not \\w+ ${locked}/\\.site\\.calfeed-`));
      expect(message).toContain(`Make ${locked} (the folder --out is in) writable`);
      expect(await snapshotTree(out)).toEqual(published);
    } finally {
      await chmod(locked, 0o755);
    }
  });

  it('an unwritable --cache-dir was reported as a bug in calfeed: now an IO error naming it, --out as it was', async () => {
    const holder = join(work, 'denied-cache-holder');
    const cacheDir = join(work, 'denied-cache');
    await mkdir(holder);
    const out = join(holder, 'site');
    await runCommand('cp', ['-a', refSite, out]);
    await runCommand('cp', ['-a', refCache, cacheDir]);
    if (ROOT) await runCommand('chown', ['-R', `${NOBODY}:${NOBODY}`, holder]);
    try {
      const r = await runDenied(buildArgs(out, cacheDir, ['--site-url', 'https://events.example.edu/']), cacheDir, [holder]);
      const message = expectIoFailure(r, out, /permission denied/);
      expect(message).toContain(`${cacheDir}/`);
      expect(message).toContain(`Make ${cacheDir} (--cache-dir) writable`);
      expect(await snapshotTree(out)).toEqual(published);
    } finally {
      await chmod(cacheDir, 0o755);
    }
  });
});
