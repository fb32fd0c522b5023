import { readFile, stat, utimes, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CalfeedError } from '../../src/errors.js';
import { paths } from '../../src/paths.js';
import { createStaging, discard, publish, writeSiteMeta } from '../../src/publish/index.js';
import { build, CALENDARS, readManifest, sampleSite, siblingNames, snapshot, tempDir, treeHash } from './helpers.js';

const OLD = new Date('2001-02-03T04:05:06Z');

async function ageEverything(out: string): Promise<void> {
  for (const rel of (await snapshot(out)).keys()) await utimes(path.join(out, rel), OLD, OLD);
}

describe('publish', () => {
  it('creates the output folder on the first build and leaves nothing beside it', async () => {
    const root = await tempDir();
    const out = path.join(root, 'site', 'out');
    const result = await build(out, sampleSite());
    const files = Object.keys(sampleSite()).length + 2; // + _headers + manifest.json
    expect(result).toEqual({ written: files, unchanged: 0, removed: 0, files });
    expect(await readFile(path.join(out, paths.detailsMirror('arts', 'e2')), 'utf8')).toBe('{"id":"e2","title":"Ünïcødé 🎉"}');
    expect(await siblingNames(path.join(root, 'site'))).toEqual(['out']);
    expect((await readManifest(out))?.counts).toEqual({ calendars: 2, events: 3, files: files - 1 });
  });

  it('writes no file and keeps every mtime and inode when nothing changed', async () => {
    const out = path.join(await tempDir(), 'out');
    await build(out, sampleSite());
    await ageEverything(out);
    const before = await snapshot(out);

    const result = await build(out, sampleSite());

    expect(result.written).toBe(0);
    expect(result.unchanged).toBe(before.size);
    expect(result.removed).toBe(0);
    const after = await snapshot(out);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [rel, facts] of after) {
      expect(facts.mtimeMs, rel).toBe(OLD.getTime());
      expect(facts.ino, rel).toBe(before.get(rel)!.ino);
      expect(facts.sha256, rel).toBe(before.get(rel)!.sha256);
    }
  });

  it('rewrites only the changed file (and the manifest that lists it)', async () => {
    const out = path.join(await tempDir(), 'out');
    await build(out, sampleSite());
    await ageEverything(out);
    const changedPath = paths.detailsMirror('arts', 'e1');

    const result = await build(out, { ...sampleSite(), [changedPath]: '{"id":"e1","title":"Talk, moved"}' });

    expect(result.written).toBe(2);
    const touched = [...(await snapshot(out))].filter(([, f]) => f.mtimeMs !== OLD.getTime()).map(([rel]) => rel);
    expect(touched.sort()).toEqual([changedPath, paths.manifest()].sort());
    expect(await readFile(path.join(out, changedPath), 'utf8')).toBe('{"id":"e1","title":"Talk, moved"}');
  });

  it('removes files the new build no longer has and counts them', async () => {
    const out = path.join(await tempDir(), 'out');
    await build(out, sampleSite());
    const site = sampleSite();
    delete site[paths.detailsMirror('arts', 'e2')];
    delete site[paths.eventPage('arts', 'e1')];

    const result = await build(out, site);

    expect(result.removed).toBe(2);
    const after = await snapshot(out);
    expect(after.has(paths.detailsMirror('arts', 'e2'))).toBe(false);
    expect(after.has(paths.eventPage('arts', 'e1'))).toBe(false);
    expect(after.size).toBe(Object.keys(site).length + 2);
  });

  it('works with a relative output folder', async () => {
    const abs = path.join(await tempDir(), 'out');
    const rel = path.relative(process.cwd(), abs);
    expect(path.isAbsolute(rel)).toBe(false);
    await build(rel, sampleSite());
    const second = await build(rel, sampleSite());
    expect(second.written).toBe(0);
    expect((await stat(path.join(abs, paths.manifest()))).isFile()).toBe(true);
  });

  it('leaves the output byte-identical when verify fails, and removes nothing beside it after discard', async () => {
    const root = await tempDir();
    const out = path.join(root, 'out');
    await build(out, sampleSite());
    const before = await treeHash(out);

    const staging = await createStaging(out);
    for (const [rel, data] of Object.entries(sampleSite())) await staging.write(rel, data);
    await staging.write(paths.calendar('arts', 'feed.json'), '{"items": [}');
    await writeSiteMeta(staging, CALENDARS, { generator: 'calfeed test' });
    const error = await publish(staging, out).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(CalfeedError);
    expect((error as CalfeedError).code).toBe('BUILD');
    expect((error as Error).message).toContain(paths.calendar('arts', 'feed.json'));
    expect(await treeHash(out)).toBe(before);
    await discard(staging);
    expect(await siblingNames(root)).toEqual(['out']);
  });

  it('refuses to replace a folder that is not calfeed output', async () => {
    const out = path.join(await tempDir(), 'home');
    await mkdir(out);
    await writeFile(path.join(out, 'thesis.tex'), 'precious');
    const error = await createStaging(out).catch((e: unknown) => e);
    expect((error as CalfeedError).code).toBe('CONFIG');
    expect((error as Error).message).toContain('thesis.tex');
    expect(await readFile(path.join(out, 'thesis.tex'), 'utf8')).toBe('precious');
  });

  it('keeps the top-level dot files it did not write (regression: a build deleted output/.gitkeep)', async () => {
    const out = path.join(await tempDir(), 'out');
    await mkdir(out);
    await writeFile(path.join(out, '.gitkeep'), '');
    await writeFile(path.join(out, '.nojekyll'), 'x');
    const result = await build(out, sampleSite());
    expect(result.removed).toBe(0);
    const files = await snapshot(out);
    expect(files.has('.gitkeep')).toBe(true);
    expect(await readFile(path.join(out, '.nojekyll'), 'utf8')).toBe('x');
    const manifest = JSON.parse(await readFile(path.join(out, paths.manifest()), 'utf8'));
    expect(manifest.files.map((f: { path: string }) => f.path)).not.toContain('.gitkeep');
    // And on every later build too.
    const again = await build(out, { ...sampleSite(), [paths.site('index.html')]: '<!doctype html><title>New</title>' });
    expect(again.removed).toBe(0);
    expect((await snapshot(out)).has('.nojekyll')).toBe(true);
  });

  it('treats a dot folder such as .git as somebody else\'s', async () => {
    const out = path.join(await tempDir(), 'repo');
    await mkdir(path.join(out, '.git'), { recursive: true });
    const error = await createStaging(out).catch((e: unknown) => e);
    expect((error as CalfeedError).code).toBe('CONFIG');
    expect((error as Error).message).toContain('.git');
  });
});
