// Replacing --out with the verified staging folder, and repairing what a killed build left.
//
// The guarantee, honestly: Node has no renameat2(RENAME_EXCHANGE), so the swap is two renames,
// --out -> backup, then staging -> --out, recorded beforehand in a journal file beside --out.
// Before them, folders of --out whose files are all unchanged (carry.ts) are moved into staging,
// one rename each, also listed in the journal first. No file inside --out is ever modified in
// place, and a run that fails or dies before the second rename is rolled back (the moved folders
// moved back, at once or by the next run's recover()), so --out is always either the complete old
// output or the complete new one. Between the two renames (microseconds) --out does not exist:
// a server reading the folder directly may answer 404 for that instant, and if the process dies
// exactly there, the next run's recover() puts the old output back (it does not guess that the
// unfinished build was wanted). Files are not fsynced, except the journal when it lists moves: a
// power loss, unlike a killed process, may lose recent writes on some file systems, but must not
// lose the record of where the old output's folders are.

import { copyFile, link, lstat, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { CalfeedError } from '../errors.js';
import { paths } from '../paths.js';
import { FileTable } from './file-table.js';
import { errno, removeTree, walkFiles } from './fs-util.js';
import { type Journal, readJournal, returnFolders, writeJournal } from './journal.js';
import { scanManifest } from './manifest.js';
import { isProcessAlive, pidOfName, type Siblings, siblingsOf, uniqueSuffix } from './siblings.js';
import { assertReplaceable, holdsPublished, isLiveStaging, prepareCarry, publishedFiles, sealStaging, type Staging } from './staging.js';
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

/** Points of the swap, in order ('moved' once per carried folder); see PublishOptions.onStep. */
export type SwapStep = 'verified' | 'journal' | 'moved' | 'backup' | 'swapped';

export interface PublishOptions {
  signal?: AbortSignal;
  /**
   * Called after each step of the swap; for 'moved', with the folder just moved from --out into
   * staging. An exception thrown here stops the swap on the spot, with no rollback, exactly like a
   * crash at that point (the tests use it to prove recover()).
   */
  onStep?: (step: SwapStep, folder?: string) => void;
}

/**
 * Verify staging, carry unchanged folders of outDir over and replace outDir with it in one step
 * (journaled renames); counts written/unchanged/removed.
 */
export async function publish(staging: Staging, outDir: string, options: PublishOptions = {}): Promise<PublishResult> {
  const s = siblingsOf(outDir);
  if (path.dirname(staging.dir) !== s.parent || !path.basename(staging.dir).startsWith(s.stagingPrefix)) {
    throw new CalfeedError('BUILD', `The staging folder ${staging.dir} was not created for ${s.outDir}; create it with createStaging(outDir).`);
  }
  const next = staging.files();
  // Deferred files are linked into staging now, except those in folders that will be moved whole;
  // those were checked in --out (present) and are moved in by swap().
  const carry = await prepareCarry(staging);
  await verifyStaging(staging.dir, { staged: next, present: carry.present });
  options.onStep?.('verified');
  await assertReplaceable(s.outDir);
  await carryOverDotfiles(s.outDir, staging.dir);

  let written = 0;
  if (next instanceof FileTable) written = next.changedCount();
  else for (const info of next.values()) if (info.changed) written++;
  const removed = await countRemoved(s.outDir, next, await publishedFiles(staging));

  options.signal?.throwIfAborted();
  await swap(staging, s, carry.folders, options.onStep);
  sealStaging(staging);
  return { written, unchanged: next.size - written, removed, files: next.size };
}

// Top-level dot files of the published folder that calfeed did not write (.gitkeep, .gitignore,
// .nojekyll) belong to the user: link them into the new output so publishing does not delete them.
// They are not in the manifest, and verify has already run.
async function carryOverDotfiles(outDir: string, stagingDir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(outDir);
  } catch (error) {
    if (errno(error) === 'ENOENT') return;
    throw error;
  }
  for (const name of names) {
    if (!name.startsWith('.')) continue;
    const from = path.join(outDir, name);
    const to = path.join(stagingDir, name);
    if (!(await lstat(from)).isFile() || (await exists(to))) continue;
    await link(from, to).catch(() => copyFile(from, to));
  }
}

// Files of the current output missing from the next one. The published manifest lists them
// without walking 100,000 folders (staging read it already: `previous`); without one (first
// build, foreign .gitkeep), walk.
async function countRemoved(outDir: string, next: ReadonlyMap<string, unknown>, previous: ReadonlyMap<string, unknown> | undefined): Promise<number> {
  const withoutManifest = next.has(paths.manifest()) ? 0 : 1;
  if (previous !== undefined) {
    let gone = 0;
    for (const relPath of previous.keys()) if (!next.has(relPath)) gone++;
    return gone + withoutManifest;
  }
  let removed = 0;
  // Read an entry at a time: the whole manifest of a large site is 75 MB of text.
  const scanned = await scanManifest(path.join(outDir, paths.manifest()), () => {
    let gone = 0;
    return { add: (file) => void (next.has(file.path) || gone++), done: () => gone };
  }).catch(() => undefined);
  if (scanned !== undefined) return scanned.result + withoutManifest;
  for await (const file of walkFiles(outDir)) if (!next.has(file.rel) && !/^\.[^/]*$/.test(file.rel)) removed++;
  return removed;
}

async function swap(staging: Staging, s: Siblings, folders: readonly string[], onStep: PublishOptions['onStep']): Promise<void> {
  const stagingDir = staging.dir;
  const hadOutput = await exists(s.outDir);
  const backupName = hadOutput ? s.backupPrefix + uniqueSuffix() : null;
  const backup = backupName === null ? null : path.join(s.parent, backupName);
  const moves = hadOutput ? folders : [];
  await writeJournal(s, { staging: path.basename(stagingDir), backup: backupName, moves: [...moves] });
  onStep?.('journal');
  // From the first move until the swap, staging holds part of the published output: a failure
  // moves it back (rollBack), and until then discard() must not delete the staging folder.
  if (moves.length > 0) holdsPublished(staging, true);
  for (const [i, folder] of moves.entries()) {
    try {
      await rename(path.join(s.outDir, folder), path.join(stagingDir, folder));
    } catch (error) {
      await rollBack(staging, s, moves.slice(0, i), error, `Could not move the unchanged folder ${folder} of ${s.outDir} into the new output`);
    }
    onStep?.('moved', folder);
  }
  if (backup !== null) {
    try {
      await rename(s.outDir, backup);
    } catch (error) {
      await rollBack(staging, s, moves, error, `Could not move ${s.outDir} aside to replace it`);
    }
  }
  onStep?.('backup');
  try {
    await rename(stagingDir, s.outDir);
  } catch (error) {
    // Still running, so roll back now rather than leave it to the next run.
    if (backup !== null) await rename(backup, s.outDir);
    await rollBack(staging, s, moves, error, `Could not move the new output into ${s.outDir}`);
  }
  holdsPublished(staging, false);
  onStep?.('swapped');
  // The old output, without the folders carried over: 300,000 files at 100,000 events when nothing
  // could be carried. removeTree takes each entry's type from its folder listing, where rm -r
  // lstats every entry and tries rmdir on each folder twice.
  if (backup !== null) await removeTree(backup);
  await rm(s.journal, { force: true });
}

// A step of the swap failed while the old output was whole at --out but for the folders `moved`
// into staging: move them back, drop the journal and fail with `what` and the cause. When they
// cannot be moved back either, the journal stays (the next run's recover() moves them back) and so
// does the staging folder that holds them.
async function rollBack(staging: Staging, s: Siblings, moved: readonly string[], cause: unknown, what: string): Promise<never> {
  const code = errno(cause) ?? String(cause);
  try {
    await returnFolders(staging.dir, s.outDir, moved);
  } catch (error) {
    const why = error instanceof CalfeedError ? error.message : (errno(error) ?? String(error));
    throw new CalfeedError(
      'BUILD',
      `${what} (${code}), and moving the folders already moved back into it failed too (${why}). ` +
        `${s.outDir} lacks those folders until the next calfeed build, which moves them back from ${staging.dir} as ${s.journal} lists; ` +
        'do not delete either before then.',
      { cause },
    );
  }
  holdsPublished(staging, false);
  await rm(s.journal, { force: true });
  throw new CalfeedError('BUILD', `${what} (${code}); the previous output was kept as it was.`, { cause });
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch (error) {
    if (errno(error) === 'ENOENT') return false;
    throw error;
  }
}

/** Repair what a killed build left beside outDir (interrupted swap, stale staging and backups); call with the lock held. Returns notes for the log. */
export async function recover(outDir: string): Promise<string[]> {
  const s = siblingsOf(outDir);
  const notes: string[] = [];
  if (!(await exists(s.parent))) return notes;

  const journal = await readJournal(s);
  if (journal === 'corrupt') {
    notes.push(`Ignored an unreadable publish journal ${s.journal}.`);
    await rm(s.journal, { force: true });
  } else if (journal !== undefined) {
    await rollBackInterrupted(s, journal, notes);
  }

  await sweep(s, notes);
  return notes;
}

// What the journal says about an interrupted publish. While its staging folder exists the swap
// did not finish, and the interrupted build is never published (recover() rolls back, it does not
// guess): the folders moved out of the old output go back into it, wherever it is (--out, or the
// backup between the two renames), then the backup becomes --out again. Each step checks what is
// where first, so a recovery that is itself interrupted is simply run again. Once the staging
// folder is gone (it became --out), only the backup is left to remove.
async function rollBackInterrupted(s: Siblings, journal: Journal, notes: string[]): Promise<void> {
  const stagingDir = path.join(s.parent, journal.staging);
  const backup = journal.backup === null ? null : path.join(s.parent, journal.backup);
  if (await exists(stagingDir)) {
    const home = (await exists(s.outDir)) ? s.outDir : backup !== null && (await exists(backup)) ? backup : null;
    if (home === null && journal.moves.length > 0) {
      throw new CalfeedError(
        'BUILD',
        `A build was interrupted while publishing ${s.outDir}, and neither ${s.outDir} nor its backup can be found to move ` +
          `${journal.moves.length} folders back into from ${stagingDir}. Nothing was changed; restore ${s.outDir} by hand ` +
          `(the folders ${s.journal} lists belong inside it), then remove ${s.journal}.`,
      );
    }
    const returned = home === null ? 0 : await returnFolders(stagingDir, home, journal.moves);
    if (home !== null && home === backup) {
      await rename(backup, s.outDir);
      notes.push(`A build was interrupted while publishing; restored the previous output ${s.outDir}.`);
    } else if (returned > 0) {
      notes.push(`A build was interrupted while publishing; moved ${returned} unchanged folder${returned === 1 ? '' : 's'} back into ${s.outDir}.`);
    } else {
      notes.push(`Cleaned up after a build interrupted while publishing ${s.outDir}.`);
    }
    await rm(stagingDir, { recursive: true, force: true });
  } else if (!(await exists(s.outDir)) && backup !== null && (await exists(backup))) {
    // Neither staging nor output: not a state publish leaves, but the backup is the best there is.
    await rename(backup, s.outDir);
    notes.push(`A build was interrupted while publishing; restored the previous output ${s.outDir}.`);
  } else {
    notes.push(`Cleaned up after a build interrupted while publishing ${s.outDir}.`);
  }
  if (backup !== null && (await exists(s.outDir))) await rm(backup, { recursive: true, force: true });
  await rm(s.journal, { force: true });
}

// Leftovers without a journal: staging folders of killed builds, backups whose removal was cut
// short, and temp files of the lock and journal.
async function sweep(s: Siblings, notes: string[]): Promise<void> {
  const names = await readdir(s.parent);
  const backups: string[] = [];
  for (const name of names) {
    const full = path.join(s.parent, name);
    if (name.startsWith(s.stagingPrefix)) {
      const pid = pidOfName(name, s.stagingPrefix);
      if (isLiveStaging(full)) continue;
      // A live pid other than ours may be a build that skipped the lock; leave its folder alone.
      if (pid !== undefined && pid !== process.pid && isProcessAlive(pid)) {
        notes.push(`Left ${full} in place: its build (pid ${pid}) is still running.`);
        continue;
      }
      await rm(full, { recursive: true, force: true });
      notes.push(`Removed ${full}, left by an interrupted build.`);
    } else if (name.startsWith(s.backupPrefix)) {
      backups.push(full);
    } else if (name.startsWith(path.basename(s.lock) + '.') || name.startsWith(path.basename(s.journal) + '.')) {
      // A temp file of the lock or journal: only ever in use for an instant by a running build.
      const pid = Number(/-(\d+)-[0-9a-f]+$/.exec(name)?.[1]);
      if (pid === process.pid || isProcessAlive(pid)) continue;
      await rm(full, { force: true });
    }
  }
  if (backups.length === 0) return;
  if (!(await exists(s.outDir))) {
    // No journal yet no output: the journal was lost. Bring back the newest backup.
    const dated = await Promise.all(backups.map(async (b) => ({ b, mtime: (await stat(b)).mtimeMs })));
    dated.sort((x, y) => y.mtime - x.mtime);
    const newest = dated[0]!.b;
    await rename(newest, s.outDir);
    notes.push(`Restored the previous output ${s.outDir} from ${newest}.`);
    backups.splice(backups.indexOf(newest), 1);
  }
  for (const b of backups) {
    await rm(b, { recursive: true, force: true });
    notes.push(`Removed ${b}, an old output left by an interrupted build.`);
  }
}
