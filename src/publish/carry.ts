// Which folders of the published output can be moved into the new one whole, instead of making
// every folder and hard link again in staging and deleting the old copies after the swap.
//
// A folder F of --out is carried when the new build stages exactly the files the published
// manifest lists under F, every one of them unchanged and deferred (kept as the published copy,
// nothing written to staging for it), and F on disk holds nothing else: a file the manifest does
// not list (put there by hand) is never carried into the new site, as it never was when every
// file was linked one by one. Only the largest such folders are carried (never --out itself: its
// few files, the manifest among them, are staged as usual).

import { type Dirent, lstatSync, readdirSync } from 'node:fs';
import { CalfeedError } from '../errors.js';
import type { FileTable } from './file-table.js';
import { errno } from './fs-util.js';

export interface CarryPlan {
  /** Folders to move from --out into staging, relative to both; none inside another. */
  folders: string[];
  /**
   * Slots (FileTable.slotOf of staging's table) of the deferred files found in --out with their
   * staged size while the folders were checked: verify counts them as present.
   */
  present: Uint8Array;
}

/** The folder of a relative path ('' for a top-level file). */
export function folderOf(relPath: string): string {
  const slash = relPath.lastIndexOf('/');
  return slash < 0 ? '' : relPath.slice(0, slash);
}

/**
 * The largest folders whose files, published and staged, are all deferred (from the tables alone,
 * without touching the disk). `published` is --out's manifest; `staged` is staging's table, whose
 * deferred files are by construction listed in `published` with the same size and hash.
 */
export function cleanFolders(published: FileTable, staged: FileTable): string[] {
  // A folder is dirty when anything under it is not a deferred file: a file written to staging
  // (changed, or linked at once), a file still being written, a published file the new build does
  // not keep. Marking walks up until it meets a folder already dirty, so each folder is marked once.
  const dirty = new Set<string>(['']);
  const markDirty = (relPath: string): void => {
    for (let f = folderOf(relPath); !dirty.has(f); f = folderOf(f)) dirty.add(f);
  };
  for (const { relPath, slot, listed } of staged.slots()) if (!listed || !staged.deferredAt(slot)) markDirty(relPath);
  for (const relPath of published.keys()) if (!staged.deferred(relPath)) markDirty(relPath);

  // The clean folder highest above each deferred file's folder, found once per folder.
  const topOf = new Map<string, string | undefined>();
  const tops = new Set<string>();
  for (const { relPath, slot, listed } of staged.slots()) {
    if (!listed || !staged.deferredAt(slot)) continue;
    const folder = folderOf(relPath);
    if (topOf.has(folder)) continue;
    let top: string | undefined;
    if (!dirty.has(folder)) {
      top = folder;
      while (!dirty.has(folderOf(top))) top = folderOf(top);
      tops.add(top);
    }
    topOf.set(folder, top);
  }
  return [...tops];
}

/**
 * Checks each candidate folder in --out: every entry must be a file staging keeps deferred, of its
 * staged size, or a folder that passes the same check. A candidate holding anything else is not
 * carried, but its subfolders that pass are. Throws verify's error when a kept file's size on disk
 * is not the staged one (it was changed after the build kept it).
 */
export function checkFolders(outDir: string, candidates: readonly string[], staged: FileTable): CarryPlan {
  const present = new Uint8Array(staged.slotCount());
  const folders: string[] = [];
  // Files found under rel, or -1 when rel holds something that is not to be carried. A folder with
  // no file to carry (an empty one, say) is not carried either: the new build has no such folder.
  const check = (rel: string): number => {
    let files = 0;
    let clean = true;
    const passed: string[] = [];
    let entries: Dirent[];
    try {
      entries = readdirSync(`${outDir}/${rel}`, { withFileTypes: true });
    } catch (error) {
      // Gone since the build kept its files (removed by hand): link them one by one, which says so.
      const code = errno(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return -1;
      throw error;
    }
    for (const entry of entries) {
      const childRel = `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        const found = check(childRel);
        if (found > 0) {
          passed.push(childRel);
          files += found;
        } else clean = false;
        continue;
      }
      const slot = entry.isFile() ? staged.slotOf(childRel) : -1;
      if (slot < 0 || !staged.deferredAt(slot)) {
        clean = false; // not a file of the new build (or not a plain file): it stays behind
        continue;
      }
      const size = lstatSync(`${outDir}/${childRel}`).size;
      if (size !== staged.sizeAt(slot)) {
        throw new CalfeedError(
          'BUILD',
          `Output check failed for ${childRel}: it has ${size} bytes in ${outDir}, ${staged.sizeAt(slot)} when the build kept it ` +
            '(was it edited during the build?). Nothing was published; the previous output is unchanged. Run the build again.',
        );
      }
      present[slot] = 1;
      files++;
    }
    if (clean && files > 0) return files;
    folders.push(...passed);
    return -1;
  };
  for (const candidate of candidates) if (check(candidate) > 0) folders.push(candidate);
  return { folders, present };
}
