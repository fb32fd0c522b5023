// Replacing --out with the verified staging folder, and repairing what a killed build left.
//
// The guarantee, honestly: Node has no renameat2(RENAME_EXCHANGE), so the swap is two renames,
// --out -> backup, then staging -> --out, recorded beforehand in a journal file beside --out.
// No file inside --out is ever modified in place, so --out is always either the complete old
// output or the complete new one. Between the two renames (microseconds) --out does not exist:
// a server reading the folder directly may answer 404 for that instant, and if the process dies
// exactly there, the next run's recover() puts the old output back (it does not guess that the
// unfinished build was wanted). Files are not fsynced: a power loss, unlike a killed process, may
// lose recent writes on some file systems.

import { copyFile, link, lstat, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CalfeedError } from '../errors.js';
import { paths } from '../paths.js';
import { FileTable } from './file-table.js';
import { errno, removeTree, walkFiles } from './fs-util.js';
import { scanManifest } from './manifest.js';
import { isProcessAlive, pidOfName, type Siblings, siblingsOf, uniqueSuffix } from './siblings.js';
import { assertReplaceable, isLiveStaging, publishedFiles, sealStaging, type Staging } from './staging.js';
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

/** Points of the swap, in order; see PublishOptions.onStep. */
export type SwapStep = 'verified' | 'journal' | 'backup' | 'swapped';

export interface PublishOptions {
  signal?: AbortSignal;
  /**
   * Called after each step of the swap. An exception thrown here stops the swap on the spot, with
   * no rollback, exactly like a crash at that point (the tests use it to prove recover()).
   */
  onStep?: (step: SwapStep) => void;
}

interface Journal {
  staging: string;
  backup: string | null;
}

/** Verify staging, then replace outDir with it in one step (two journaled renames); counts written/unchanged/removed. */
export async function publish(staging: Staging, outDir: string, options: PublishOptions = {}): Promise<PublishResult> {
  const s = siblingsOf(outDir);
  if (path.dirname(staging.dir) !== s.parent || !path.basename(staging.dir).startsWith(s.stagingPrefix)) {
    throw new CalfeedError('BUILD', `The staging folder ${staging.dir} was not created for ${s.outDir}; create it with createStaging(outDir).`);
  }
  const next = staging.files();
  await verifyStaging(staging.dir, { staged: next });
  options.onStep?.('verified');
  await assertReplaceable(s.outDir);
  await carryOverDotfiles(s.outDir, staging.dir);

  let written = 0;
  if (next instanceof FileTable) written = next.changedCount();
  else for (const info of next.values()) if (info.changed) written++;
  const removed = await countRemoved(s.outDir, next, await publishedFiles(staging));

  options.signal?.throwIfAborted();
  await swap(staging.dir, s, options.onStep);
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

async function swap(stagingDir: string, s: Siblings, onStep: PublishOptions['onStep']): Promise<void> {
  const hadOutput = await exists(s.outDir);
  const backupName = hadOutput ? s.backupPrefix + uniqueSuffix() : null;
  const backup = backupName === null ? null : path.join(s.parent, backupName);
  await writeJournal(s, { staging: path.basename(stagingDir), backup: backupName });
  onStep?.('journal');
  if (backup !== null) await rename(s.outDir, backup);
  onStep?.('backup');
  try {
    await rename(stagingDir, s.outDir);
  } catch (error) {
    // Still running, so roll back now rather than leave it to the next run.
    if (backup !== null) await rename(backup, s.outDir);
    await rm(s.journal, { force: true });
    throw new CalfeedError('BUILD', `Could not move the new output into ${s.outDir} (${errno(error) ?? String(error)}); the previous output was kept.`, {
      cause: error,
    });
  }
  onStep?.('swapped');
  // The old output: 300,000 files at 100,000 events. removeTree takes each entry's type from its
  // folder listing, where rm -r lstats every entry and tries rmdir on each folder twice.
  if (backup !== null) await removeTree(backup);
  await rm(s.journal, { force: true });
}

async function writeJournal(s: Siblings, journal: Journal): Promise<void> {
  // Written aside and renamed into place, so recover() never reads half a journal.
  const temp = `${s.journal}.tmp-${uniqueSuffix()}`;
  await writeFile(temp, JSON.stringify(journal) + '\n', { flag: 'wx' });
  await rename(temp, s.journal);
}

async function readJournal(s: Siblings): Promise<Journal | 'corrupt' | undefined> {
  let text: string;
  try {
    text = await readFile(s.journal, 'utf8');
  } catch (error) {
    if (errno(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const value = JSON.parse(text) as Partial<Journal>;
    const okName = (name: unknown): boolean => typeof name === 'string' && name.length > 0 && !name.includes('/') && !name.includes('\\') && name !== '..';
    if (okName(value.staging) && (value.backup === null || okName(value.backup))) return value as Journal;
  } catch {
    // fall through
  }
  return 'corrupt';
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
    const backup = journal.backup === null ? null : path.join(s.parent, journal.backup);
    if (!(await exists(s.outDir)) && backup !== null && (await exists(backup))) {
      await rename(backup, s.outDir);
      notes.push(`A build was interrupted while publishing; restored the previous output ${s.outDir}.`);
    } else {
      notes.push(`Cleaned up after a build interrupted while publishing ${s.outDir}.`);
    }
    // The staging of the interrupted build is never published: recover() rolls back, it does not guess.
    await rm(path.join(s.parent, journal.staging), { recursive: true, force: true });
    if (backup !== null && (await exists(s.outDir))) await rm(backup, { recursive: true, force: true });
    await rm(s.journal, { force: true });
  }

  await sweep(s, notes);
  return notes;
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
