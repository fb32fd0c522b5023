// Publishing when --out is a symbolic link: each build becomes a numbered generation folder beside
// the link and the link is replaced in one atomic rename; the previous generation is kept until the
// next successful build; a crash at any step leaves the link on a complete output.

import { lstat, readlink, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { paths } from '../../src/paths.js';
import { recover } from '../../src/publish/index.js';
import type { SwapStep } from '../../src/publish/swap.js';
import { build, killWhenPaused, sampleSite, siblingNames, snapshot, tempDir, treeHash } from './helpers.js';

const GEN = '.out.calfeed-gen-';
const changed = (title: string): Record<string, string> => ({ ...sampleSite(), [paths.site('index.html')]: `<!doctype html><title>${title}</title>` });

/** A published folder `real` and a link `out` to it, as a user sets up link mode. */
async function linked(): Promise<{ root: string; out: string; real: string }> {
  const root = await tempDir();
  const real = path.join(root, 'real');
  await build(real, sampleSite());
  const out = path.join(root, 'out');
  await symlink('real', out);
  return { root, out, real };
}

class Crash extends Error {}

describe('--out a symbolic link', () => {
  it('points the link at a new generation, hard-links unchanged files from the old one, and never removes a folder it did not make', async () => {
    const { root, out, real } = await linked();
    const before = await snapshot(real);

    const first = await build(out, changed('One'));

    expect((await lstat(out)).isSymbolicLink()).toBe(true);
    expect(await readlink(out)).toBe(`${GEN}1`);
    expect(first).toMatchObject({ written: 2, unchanged: before.size - 2 });
    const after = await snapshot(out);
    for (const [rel, facts] of after) {
      if (rel === paths.site('index.html') || rel === paths.manifest()) continue;
      expect(facts, rel).toEqual(before.get(rel));
    }
    // The user's folder is left whole: calfeed only ever removes its own generations.
    expect(await snapshot(real)).toEqual(before);

    await build(out, changed('Two'));
    expect(await readlink(out)).toBe(`${GEN}2`);
    expect(await siblingNames(root)).toEqual([`${GEN}1`, `${GEN}2`, 'out', 'real']);
    await build(out, changed('Three'));
    // The previous generation is kept until the next successful build; older ones go.
    expect(await readlink(out)).toBe(`${GEN}3`);
    expect(await siblingNames(root)).toEqual([`${GEN}2`, `${GEN}3`, 'out', 'real']);
    expect(await recover(out)).toEqual([]);
  });

  it.each(['synced', 'committing', 'generation'] as const)('a crash after %s leaves the link on the old output; recover() removes the unfinished one', async (step: SwapStep) => {
    const { root, out } = await linked();
    await build(out, changed('One'));
    await build(out, changed('Two'));
    const before = await treeHash(out);

    await expect(build(out, changed('Three'), { onStep: (s) => void (s === step && throwCrash()) })).rejects.toBeInstanceOf(Crash);
    expect(await readlink(out)).toBe(`${GEN}2`);
    expect(await treeHash(out)).toBe(before);

    const notes = await recover(out);

    if (step === 'generation') expect(notes.join('\n')).toContain(`Removed ${GEN}3, the unfinished output of an interrupted build`);
    expect(await siblingNames(root)).toEqual([`${GEN}1`, `${GEN}2`, 'out', 'real']);
    expect(await treeHash(out)).toBe(before);
  });

  it('a crash after the flip keeps the new output; recover() removes the generation before the previous one', async () => {
    const { root, out } = await linked();
    await build(out, changed('One'));
    await build(out, changed('Two'));

    await expect(build(out, changed('Three'), { onStep: (s) => void (s === 'swapped' && throwCrash()) })).rejects.toBeInstanceOf(Crash);
    const after = await treeHash(out);
    expect(await readlink(out)).toBe(`${GEN}3`);

    expect(await recover(out)).toEqual([`Removed ${GEN}1, an old output no longer linked.`]);
    expect(await siblingNames(root)).toEqual([`${GEN}2`, `${GEN}3`, 'out', 'real']);
    expect(await treeHash(out)).toBe(after);
  });

  it('a build process killed (SIGKILL) after naming its generation leaves the link on the old output', async () => {
    const { root, out } = await linked();
    await build(out, changed('One'));
    const before = await treeHash(out);
    const siteFile = path.join(root, 'site.json');
    await writeFile(siteFile, JSON.stringify(changed('Two')));

    expect(await killWhenPaused(out, siteFile, 'generation')).toBe('paused at generation\n');

    expect(await readlink(out)).toBe(`${GEN}1`);
    expect(await treeHash(out)).toBe(before);
    await recover(out);
    expect(await siblingNames(root)).toEqual([`${GEN}1`, 'out', 'real', 'site.json']);
  });
});

function throwCrash(): never {
  throw new Crash();
}
