// Making the verified staging folder the published output, in one commit step that never touches
// the live tree before it. Staging is the complete new output (new files written, unchanged ones
// hard-linked from --out); it is verified and made durable (durable.ts) at once, then made current:
// - --out a folder: two renames, --out -> backup, staging -> --out. Node has no
//   renameat2(RENAME_EXCHANGE), so for an instant between them --out does not exist; a process
//   killed exactly there leaves the backup, which the next run's recover() puts back.
// - --out a symbolic link: staging becomes a numbered generation and a new link to it is renamed
//   over --out, atomically (generations.ts).
// The second rename (or the link's) is the commit point: before it --out is exactly as it was;
// after it, what is left (removing the old output, flushing the parent) can only warn.

import { renameSync } from 'node:fs';
import { copyFile, link, lstat, readdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { CalfeedError } from '../errors.js';
import { paths } from '../paths.js';
import { flushAll, flushFolder } from './durable.js';
import type { FileTable } from './file-table.js';
import { errno, removeTree, walkFiles } from './fs-util.js';
import { commitFailed, flipLink, isLinkMode, removeOldGenerations } from './generations.js';
import { assertReplaceable } from './replaceable.js';
import { type Siblings, siblingsOf, uniqueSuffix } from './siblings.js';
import { DirStaging } from './dir-staging.js';
import { dropped } from './published.js';
import { keepSpare } from './spare.js';
import { sealStaging, type Staging, toFlush } from './staging.js';
import { verifyStaging } from './verify.js';

export interface PublishResult {
  /** Files whose bytes are new or changed. */
  written: number;
  /** Files kept as they were (same bytes, same mtime). */
  unchanged: number;
  /** Files of the previous output that the new one no longer has. */
  removed: number;
  /** Files in the new output. */
  files: number;
}

/**
 * Points of publishing, in order: checked, flushed, the commit begun (the last point a signal can
 * stop), the old output moved aside (folder mode) or the new generation named (link mode), swapped.
 */
export type SwapStep = 'verified' | 'synced' | 'committing' | 'backup' | 'generation' | 'swapped';

export interface PublishOptions {
  /** Checked up to the commit; from 'committing' on, publishing is not stopped. */
  signal?: AbortSignal;
  /** Called after each step; a throw stops publishing on the spot, like a crash (to test recover()). */
  onStep?: (step: SwapStep) => void;
  /** What went wrong after the commit (the new site is published all the same). */
  onWarning?: (message: string) => void;
}

/** Verify staging, make it durable and make it --out in one commit step; counts written/unchanged/removed. */
export async function publish(staging: Staging, outDir: string, options: PublishOptions = {}): Promise<PublishResult> {
  const s = siblingsOf(outDir);
  if (!(staging instanceof DirStaging) || path.dirname(staging.dir) !== s.parent || !path.basename(staging.dir).startsWith(s.stagingPrefix)) {
    throw new CalfeedError('BUILD', `The staging folder ${staging.dir} was not created for ${s.outDir}; create it with createStaging(outDir).`);
  }
  try {
    return await commitStaging(staging, s, options);
  } finally {
    // Published, or failed for good: either way never used again, so recover() may sweep it.
    sealStaging(staging);
  }
}

async function commitStaging(staging: DirStaging, s: Siblings, options: PublishOptions): Promise<PublishResult> {
  const next = staging.files();
  await staging.linkKept();
  // Every staged file is on disk now: the disk writes them back while verify reads the folder.
  const flush = toFlush(staging);
  const flushing = flushAll(staging.dir, flush.files, flush.folders);
  // Awaited below; when publishing stops before that, its failure has nothing left to stop.
  flushing.catch(() => undefined);
  await verifyStaging(staging.dir, { staged: next });
  options.onStep?.('verified');
  await assertReplaceable(s.outDir);
  const carried = await carryOverDotfiles(s.outDir, staging.dir);

  const written = next.changedCount();
  const previous = await staging.publishedListing();
  const removed = await countRemoved(s.outDir, next, previous);

  await flushing;
  if (carried.length > 0) await flushAll(staging.dir, carried, [staging.dir]);
  options.onStep?.('synced');
  const linkMode = await isLinkMode(s.outDir);
  // The last check and the commit's start are one synchronous step: a signal handled after the
  // check finds the commit begun.
  options.signal?.throwIfAborted();
  options.onStep?.('committing');
  const done: Committed = linkMode ? { mode: 'link', keep: await flipLink(staging.dir, s, options.onStep) } : await renameSwap(staging.dir, s, options.onStep);
  await afterCommit(s, done, options.onWarning, () => spareOf(staging, next, previous));
  return { written, unchanged: next.size - written, removed, files: next.size };
}

// Folder mode: --out -> backup, staging -> --out; the backup is null on a first build. The renames
// are synchronous, back to back, so --out is missing for as short a time as possible.
async function renameSwap(stagingDir: string, s: Siblings, onStep: PublishOptions['onStep']): Promise<Committed> {
  const backup = (await present(s.outDir)) ? path.join(s.parent, s.backupPrefix + uniqueSuffix()) : null;
  if (backup !== null) {
    try {
      renameSync(s.outDir, backup);
    } catch (error) {
      throw commitFailed(`Could not move ${s.outDir} aside to replace it`, error);
    }
  }
  onStep?.('backup');
  try {
    renameSync(stagingDir, s.outDir);
  } catch (error) {
    const what = `Could not move the new output into ${s.outDir}`;
    // Still running, so put the old output back now rather than leave it to the next run.
    if (backup !== null) await rename(backup, s.outDir).catch((undo: unknown) => Promise.reject(notRestored(what, error, undo, backup)));
    throw commitFailed(what, error);
  }
  onStep?.('swapped');
  return { mode: 'folder', old: backup };
}

/** What the commit left to clean up: the old output's backup, or the generations to keep. */
type Committed = { mode: 'folder'; old: string | null } | { mode: 'link'; keep: readonly string[] };

function notRestored(what: string, cause: unknown, undo: unknown, backup: string): CalfeedError {
  return new CalfeedError(
    'BUILD',
    `${what} (${errno(cause) ?? String(cause)}), and moving the previous output back failed too (${errno(undo) ?? String(undo)}). ` +
      `The next calfeed build puts it back from ${backup}; do not delete that folder.`,
    { cause },
  );
}

// After the commit: flush the parent (the rename itself), then keep the old output as the spare
// (spare.ts) or remove it. The new site is published whatever happens here, so a failure is a
// warning; the next run's recover() removes what was left.
async function afterCommit(s: Siblings, done: Committed, onWarning: PublishOptions['onWarning'], spare: () => Spare | undefined): Promise<void> {
  const warn = (what: string, error: unknown): void => onWarning?.(`The new site is published, but ${what} failed (${errno(error) ?? String(error)}).`);
  await flushFolder(s.parent).catch((error: unknown) => warn(`flushing ${s.parent} to disk`, error));
  try {
    if (done.mode === 'folder' && done.old !== null) {
      const kept = spare();
      if (!kept || !(await keepSpare(s, done.old, kept.manifestSha256, kept.stale))) await removeTree(done.old);
    }
    if (done.mode === 'link') await removeOldGenerations(s, done.keep);
  } catch (error) {
    warn('removing the previous output (the next build retries)', error);
  }
}

/** What the old output is kept as the spare with (spare.ts): the new manifest's SHA-256 and where the two differ. */
interface Spare {
  manifestSha256: string;
  stale: string[];
}

// The old output can be the next build's staging when every file it shares with the new one is
// the same file (hard links, and --out found as listed at the start: nothing else in it), and it
// differs in at most half of them: the files written and the files gone.
function spareOf(staging: DirStaging, next: FileTable, previous: ReadonlyMap<string, unknown> | undefined): Spare | undefined {
  if (staging.copiedKept || !staging.publishedRead.foundAsListed || previous === undefined) return undefined;
  const manifestSha256 = next.get(paths.manifest())?.sha256;
  if (manifestSha256 === undefined) return undefined;
  const stale: string[] = [];
  for (const { relPath, slot, listed } of next.slots()) if (listed && next.changedAt(slot)) stale.push(relPath);
  for (const relPath of dropped(previous, next)) stale.push(relPath);
  if (stale.length > next.size / 2) return undefined;
  return { manifestSha256, stale };
}

// Top-level dot files of the published folder that calfeed did not write (.gitkeep, .gitignore,
// .nojekyll) belong to the user: link them into the new output so publishing does not delete them.
// They are not in the manifest, and verify has already run.
// Returns the files it made, which the flush begun before it did not cover.
async function carryOverDotfiles(outDir: string, stagingDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(outDir);
  } catch (error) {
    if (errno(error) === 'ENOENT') return [];
    throw error;
  }
  const carried: string[] = [];
  for (const name of names) {
    if (!name.startsWith('.')) continue;
    const from = path.join(outDir, name);
    const to = path.join(stagingDir, name);
    if (!(await lstat(from)).isFile() || (await present(to))) continue;
    await link(from, to).catch(() => copyFile(from, to));
    carried.push(to);
  }
  return carried;
}

// Files of the current output missing from the next one: from the published manifest as staging
// read it (`previous`), else (no readable manifest) by walking --out.
async function countRemoved(outDir: string, next: ReadonlyMap<string, unknown>, previous: ReadonlyMap<string, unknown> | undefined): Promise<number> {
  const withoutManifest = next.has(paths.manifest()) ? 0 : 1;
  if (previous !== undefined) return [...dropped(previous, next)].length + withoutManifest;
  let removed = 0;
  for await (const file of walkFiles(outDir)) if (!next.has(file.rel) && !/^\.[^/]*$/.test(file.rel)) removed++;
  return removed;
}

/** Whether anything is at p (lstat: a symbolic link counts, even one leading nowhere). */
export async function present(p: string): Promise<boolean> {
  try {
    await lstat(p);
    return true;
  } catch (error) {
    if (errno(error) === 'ENOENT') return false;
    throw error;
  }
}
