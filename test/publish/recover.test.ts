import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { access, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { paths } from '../../src/paths.js';
import { recover } from '../../src/publish/index.js';
import type { SwapStep } from '../../src/publish/swap.js';
import { build, sampleSite, siblingNames, tempDir, treeHash } from './helpers.js';

const CHILD = fileURLToPath(new URL('./fixtures/child.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));

class Crash extends Error {}

/** Publish a changed site and "die" right after the given swap step, leaving the disk as a crash would. */
async function crashAfter(out: string, step: SwapStep): Promise<void> {
  const changed = { ...sampleSite(), [paths.site('index.html')]: '<!doctype html><title>New</title>' };
  await expect(
    build(out, changed, {
      onStep: (s) => {
        if (s === step) throw new Crash(step);
      },
    }),
  ).rejects.toBeInstanceOf(Crash);
}

async function exists(p: string): Promise<boolean> {
  return access(p).then(
    () => true,
    () => false,
  );
}

describe('recover', () => {
  it('does nothing when there is nothing to repair', async () => {
    const out = path.join(await tempDir(), 'out');
    expect(await recover(out)).toEqual([]);
    await build(out, sampleSite());
    expect(await recover(out)).toEqual([]);
  });

  it('after a crash once the new output is flushed to disk, before the commit, keeps the old output and removes the staging', async () => {
    const root = await tempDir();
    const out = path.join(root, 'out');
    await build(out, sampleSite());
    const before = await treeHash(out);
    await crashAfter(out, 'synced');
    expect((await siblingNames(root)).length).toBeGreaterThan(1);

    const notes = await recover(out);

    expect(notes.length).toBeGreaterThan(0);
    expect(await treeHash(out)).toBe(before);
    expect(await siblingNames(root)).toEqual(['out']);
  });

  it('after a crash between the two renames (output missing, backup left), restores the old output', async () => {
    const root = await tempDir();
    const out = path.join(root, 'out');
    await build(out, sampleSite());
    const before = await treeHash(out);
    await crashAfter(out, 'backup');
    expect(await exists(out)).toBe(false);

    const notes = await recover(out);

    expect(notes.join('\n')).toContain('restored the previous output');
    expect(await treeHash(out)).toBe(before);
    expect(await siblingNames(root)).toEqual(['out']);
  });

  it('after a crash once the new output is in place, keeps it and removes the backup', async () => {
    const root = await tempDir();
    const out = path.join(root, 'out');
    await build(out, sampleSite());
    await crashAfter(out, 'swapped');
    const after = await treeHash(out);

    await recover(out);

    expect(await treeHash(out)).toBe(after);
    expect(await siblingNames(root)).toEqual(['out']);
  });

  it('after a first build crashed mid-swap, leaves no output (as before) and no leftovers', async () => {
    const root = await tempDir();
    const out = path.join(root, 'out');
    await crashAfter(out, 'backup');
    await recover(out);
    expect(await readdir(root)).toEqual([]);
    const result = await build(out, sampleSite());
    expect(result.removed).toBe(0);
  });

  it('removes the staging folder of a build process that died before publishing, then builds normally', async () => {
    const root = await tempDir();
    const out = path.join(root, 'out');
    await build(out, sampleSite());
    const before = await treeHash(out);
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, out, 'stage-exit'], { cwd: REPO, stdio: 'ignore' });
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
    const leftovers = (await siblingNames(root)).filter((n) => n !== 'out');
    expect(leftovers).toHaveLength(1);
    expect(leftovers[0]).toMatch(new RegExp(`^\\.out\\.calfeed-staging-${child.pid}-`));

    const notes = await recover(out);

    expect(notes).toEqual([`Removed ${path.join(root, leftovers[0]!)}, left by an interrupted build.`]);
    expect(await siblingNames(root)).toEqual(['out']);
    expect(await treeHash(out)).toBe(before);
    expect((await build(out, sampleSite())).written).toBe(0);
  });
});
