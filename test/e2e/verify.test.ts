// `calfeed verify`, and the overwrite guard that tells calfeed's output from somebody else's folder:
// the real CLI on real folders.
import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { listFiles, snapshotTree } from '../support/tree.js';

let work: string;
let site: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-verify-'));
  site = join(work, 'site');
  const built = await runCli(['build', '--out', site, '--cache-dir', join(work, 'cache'), '--quiet'], { cwd: work });
  expect(built.code, built.stderr).toBe(0);
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const verify = (out: string) => runCli(['verify', '--out', out, '--json'], { cwd: work });

describe('calfeed verify', () => {
  it('passes a folder as published, top-level dot files (.gitkeep) allowed', async () => {
    await writeFile(join(site, '.gitkeep'), '');
    const r = await verify(site);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ ok: true, problems: [], problemsTotal: 0 });
    expect(report.files).toBe((await listFiles(site)).length - 2); // all but the manifest and .gitkeep
    expect(r.stderr).toContain('is intact');
  });

  it('names every file changed, missing or extra, and exits 1', async () => {
    const copy = join(work, 'tampered');
    await runCli(['build', '--out', copy, '--cache-dir', join(work, 'cache-2'), '--quiet'], { cwd: work });
    const index = join(copy, 'index.html');
    const html = await readFile(index, 'utf8');
    await writeFile(index, html.replace('<html', '<HTML')); // same size, other bytes
    const feeds = (await listFiles(copy)).filter((f) => f.endsWith('/rss.xml'));
    await unlink(join(copy, feeds[0]!));
    await mkdir(join(copy, 'stray'));
    await writeFile(join(copy, 'stray', 'notes.txt'), 'mine');
    const r = await verify(copy);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual(
      expect.arrayContaining([
        { path: 'index.html', problem: 'its SHA-256 differs from the manifest' },
        { path: feeds[0], problem: 'it is listed in manifest.json but missing on disk' },
        { path: 'stray/notes.txt', problem: 'it is on disk but not listed in manifest.json' },
      ]),
    );
    expect(report.problemsTotal).toBe(3);
    expect(r.stderr).toContain('does not match its manifest.json (3 problems)');
  });

  it('fails on a folder without a manifest', async () => {
    const empty = join(work, 'no-manifest');
    await mkdir(empty);
    const r = await verify(empty);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).problems).toEqual([{ path: 'manifest.json', problem: 'it is missing' }]);
  });
});

describe('the overwrite guard', () => {
  it("refuses a web app's folder whose manifest.json calfeed did not write, naming what it would delete", async () => {
    const app = join(work, 'public');
    await mkdir(join(app, 'img'), { recursive: true });
    await writeFile(join(app, 'manifest.json'), JSON.stringify({ name: 'Faculty site', icons: [] }));
    await writeFile(join(app, 'about.html'), '<p>About us</p>');
    await writeFile(join(app, 'img', 'logo.png'), 'png');
    const before = await snapshotTree(app);
    const r = await runCli(['build', '--out', app, '--cache-dir', join(work, 'cache-3'), '--json'], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Refusing to replace ${app}`);
    expect(r.stderr).toContain("manifest.json was not written by calfeed");
    expect(r.stderr).toContain('"about.html", "img", "manifest.json"');
    expect(await snapshotTree(app)).toEqual(before);
  });

  it('replaces a folder calfeed published', async () => {
    const again = await runCli(['build', '--out', site, '--cache-dir', join(work, 'cache'), '--quiet'], { cwd: work });
    expect(again.code, again.stderr).toBe(0);
  });
});
