// The publish journal: a small JSON file beside --out, written before publish changes anything
// there, naming the staging folder, the backup the old output is renamed to, and the folders of
// the old output moved into staging. While it exists, recover() (swap.ts) can put the old output
// back whatever instant the build died at.

import { lstat, open, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CalfeedError } from '../errors.js';
import { errno } from './fs-util.js';
import { isSafeRelPath } from './rel-path.js';
import { type Siblings, uniqueSuffix } from './siblings.js';

export interface Journal {
  /** Name of the staging folder (in --out's parent). */
  staging: string;
  /** Name of the backup of the old output, or null on a first build. */
  backup: string | null;
  /** Folders of the old output moved (or about to be) into staging, relative to both; in order. */
  moves: string[];
}

/**
 * Write the journal atomically (aside, then renamed into place), so recover() never reads half a
 * journal. When it lists moves it is also flushed to disk, file and folder entry, before anything
 * is moved: a power loss must not leave part of the old output in a staging folder that nothing
 * names (the next run would delete it as an abandoned staging folder).
 */
export async function writeJournal(s: Siblings, journal: Journal): Promise<void> {
  const temp = `${s.journal}.tmp-${uniqueSuffix()}`;
  const durable = journal.moves.length > 0;
  const text = JSON.stringify(journal) + '\n';
  if (durable) {
    const file = await open(temp, 'wx');
    try {
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
  } else {
    await writeFile(temp, text, { flag: 'wx' });
  }
  await rename(temp, s.journal);
  if (durable) await syncFolder(s.parent);
}

// Flush a folder's entries (the rename above). Not every system can open a folder for this
// (Windows cannot); there the rename is as durable as the system makes it.
async function syncFolder(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
  } catch {
    return;
  }
  try {
    await handle.sync();
  } catch {
    // EINVAL and the like: folders cannot be synced here
  } finally {
    await handle.close();
  }
}

/** The journal beside --out: undefined when there is none, 'corrupt' when it cannot be read as one. */
export async function readJournal(s: Siblings): Promise<Journal | 'corrupt' | undefined> {
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
    // Journals written before folders were carried have no moves.
    const moves = value.moves ?? [];
    const okMoves = Array.isArray(moves) && moves.every((m) => typeof m === 'string' && isSafeRelPath(m));
    if (okName(value.staging) && (value.backup === null || okName(value.backup)) && okMoves) {
      return { staging: value.staging!, backup: value.backup as string | null, moves };
    }
  } catch {
    // fall through
  }
  return 'corrupt';
}

/**
 * Move each of `folders` found in `from` back to `home` (last moved first); returns how many were
 * moved. A folder already back (or never moved: nothing, or no folder, at its place in `from`) is
 * skipped, so this can be run again after it was interrupted. Refuses, changing nothing more, when
 * a folder is in both places: that is not a state publish leaves, and guessing which copy is the
 * published one could lose it.
 */
export async function returnFolders(from: string, home: string, folders: readonly string[]): Promise<number> {
  let returned = 0;
  for (let i = folders.length - 1; i >= 0; i--) {
    const folder = folders[i]!;
    const source = path.join(from, folder);
    const target = path.join(home, folder);
    if (!(await isFolder(source))) continue;
    if ((await isFolder(target)) !== undefined) {
      throw new CalfeedError(
        'BUILD',
        `Cannot move ${source} back to ${target}: both exist. Keep the one that belongs to the published output at ${target} ` +
          'and remove the other, then run the build again.',
      );
    }
    await rename(source, target);
    returned++;
  }
  return returned;
}

/** true for a folder, false for anything else, undefined when nothing is there. */
async function isFolder(p: string): Promise<boolean | undefined> {
  try {
    return (await lstat(p)).isDirectory();
  } catch (error) {
    if (errno(error) === 'ENOENT') return undefined;
    throw error;
  }
}
