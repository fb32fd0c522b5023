// Publishing through a symbolic link (--out a link): the new output becomes a numbered generation
// folder beside the link, `.<name>.calfeed-gen-<n>`, and a new link to it is renamed over --out,
// atomically, so a reader following --out finds the old site or the new one, whole. The previous
// generation is kept until the next successful build (for readers in the middle of it, open files,
// or a rollback by hand).
//
// The numbers say what each folder is, so no journal is needed: the link's target is current, the
// highest number below it is kept; lower ones are older and higher ones were never linked (a build
// died before the flip), and recover() removes both. A folder the link led to that is not a
// generation (the user's own, before the first flip) is never removed.

import { lstat, readdir, readlink, rename, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { CalfeedError } from '../errors.js';
import { errno, removeTree } from './fs-util.js';
import { type Siblings, uniqueSuffix } from './siblings.js';
import type { SwapStep } from './swap.js';

/** The error for a commit step that failed with --out as it was (both modes). */
export function commitFailed(what: string, cause: unknown): CalfeedError {
  return new CalfeedError('BUILD', `${what} (${errno(cause) ?? String(cause)}); the previous output was kept as it was.`, { cause });
}

/** Whether --out is a symbolic link, so publishing flips it (see above). */
export async function isLinkMode(outDir: string): Promise<boolean> {
  try {
    return (await lstat(outDir)).isSymbolicLink();
  } catch (error) {
    if (errno(error) === 'ENOENT') return false;
    throw error;
  }
}

/**
 * Make the staging folder the next generation and point --out at it; --out is as it was if this
 * throws. Returns the generations to keep: the new one and the one --out led to, if one.
 */
export async function flipLink(stagingDir: string, s: Siblings, onStep: ((step: SwapStep) => void) | undefined): Promise<string[]> {
  const current = await currentGeneration(s);
  const numbers = (await generations(s)).map((g) => g.n);
  const name = s.generationPrefix + String(Math.max(current.n, ...numbers) + 1);
  const gen = path.join(s.parent, name);
  try {
    await rename(stagingDir, gen);
  } catch (error) {
    throw commitFailed(`Could not name the new output ${gen}`, error);
  }
  onStep?.('generation');
  const temp = path.join(s.parent, s.linkPrefix + uniqueSuffix());
  try {
    // Relative, so the folder holding the link and its generations can be moved or mounted elsewhere.
    await symlink(name, temp);
    await rename(temp, s.outDir);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    // Back to its staging name, so the build's cleanup removes it (else the next recover() does).
    await rename(gen, stagingDir).catch(() => undefined);
    throw commitFailed(`Could not point ${s.outDir} at the new output`, error);
  }
  onStep?.('swapped');
  return current.n > 0 ? [name, current.name] : [name];
}

/** After a flip: remove every generation but `keep` (names). */
export async function removeOldGenerations(s: Siblings, keep: readonly string[]): Promise<void> {
  for (const g of await generations(s)) if (!keep.includes(g.name)) await removeTree(path.join(s.parent, g.name));
}

/**
 * For recover(), when --out is a link: remove generations never linked (above the current one) and
 * those older than the previous one. Returns notes for the log.
 */
export async function sweepGenerations(s: Siblings): Promise<string[]> {
  if (!(await isLinkMode(s.outDir))) return [];
  const current = await currentGeneration(s);
  const below = (await generations(s)).filter((g) => g.n < current.n).map((g) => g.n);
  const previous = Math.max(0, ...below);
  const notes: string[] = [];
  for (const g of await generations(s)) {
    if (g.n === current.n || g.n === previous) continue;
    await removeTree(path.join(s.parent, g.name));
    notes.push(
      g.n > current.n
        ? `Removed ${g.name}, the unfinished output of an interrupted build (${s.outDir} still leads to the previous one).`
        : `Removed ${g.name}, an old output no longer linked.`,
    );
  }
  return notes;
}

interface Generation {
  name: string;
  n: number;
}

// The generation --out leads to; n = 0 when it leads elsewhere (a folder of the user's).
async function currentGeneration(s: Siblings): Promise<Generation> {
  const target = path.resolve(s.parent, await readlink(s.outDir));
  const name = path.basename(target);
  return { name, n: path.dirname(target) === s.parent ? numberOf(s, name) : 0 };
}

async function generations(s: Siblings): Promise<Generation[]> {
  const found: Generation[] = [];
  for (const name of await readdir(s.parent)) {
    const n = numberOf(s, name);
    if (n > 0) found.push({ name, n });
  }
  return found;
}

/** The number of a generation folder's name, or 0 for any other name. */
function numberOf(s: Siblings, name: string): number {
  if (!name.startsWith(s.generationPrefix)) return 0;
  const digits = name.slice(s.generationPrefix.length);
  return /^[1-9]\d{0,14}$/.test(digits) ? Number(digits) : 0;
}
