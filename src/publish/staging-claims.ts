// Which staged path owns which name, so two outputs can never land on one file of a
// case-insensitive file system or CDN, and which of staging's folders are made. A lower-case file
// path is claimed by its slot in the staged FileTable; a path with capitals under its lower-cased
// form in `upperClaims`; every folder on the way under its lower-cased form in `folderClaims`. Each
// names the slot of the file that claimed it (for a folder: the first file in it, whose path starts
// with the folder's exact spelling), and whether it is made (QUEUED, MADE).

import { CalfeedError } from '../errors.js';
import type { FileTable } from './file-table.js';
import { PathClaims } from './path-claims.js';
import { makeDirs } from './write-job.js';

// Folder claim flags: claimed under its lower-case spelling; made in staging; asked of the writer
// (which makes it before any file after it), or made.
const LOWER_CASE = 1;
const MADE = 2;
const QUEUED = 4;

/** Path claims and made folders of one staging folder. */
export class StagingClaims {
  private readonly upperClaims = new PathClaims();
  private readonly folderClaims = new PathClaims();

  constructor(
    private readonly dir: string,
    private readonly staged: FileTable,
  ) {}

  /**
   * Claim relPath and the folders on its way, or throw if it collides with a claimed path (same
   * file, or one differing only in letter case). Synchronous: callers claim before their first
   * await. Returns the file's folder ('' for the top).
   */
  claim(relPath: string): string {
    const folder = folderOf(relPath);
    // Folders are claimed top down; a folder claimed under this exact spelling had all of its
    // parents claimed then, so the walk starts below the deepest such folder.
    const open: string[] = [];
    for (let f = folder; f !== ''; f = folderOf(f)) {
      const id = this.folderClaims.find(lowerKey(f));
      if (id >= 0 && this.spelledAs(id, f)) break;
      open.push(f);
    }
    // Everything is checked before anything is claimed, so a refused path claims nothing. (The
    // checks do not depend on one another: keys of different depths never match.)
    const keys = open.map(lowerKey);
    for (let i = open.length - 1; i >= 0; i--) {
      const file = this.fileClaim(keys[i]!);
      if (file !== undefined) throw collision(relPath, file);
      // Claimed, but not under this spelling (the walk above stopped at the one that was).
      const by = this.folderClaims.find(keys[i]!);
      if (by >= 0) throw collision(relPath, this.staged.pathAt(this.folderClaims.claimer(by)));
    }
    const key = lowerKey(relPath);
    const prior = this.fileClaim(key) ?? this.folderClaimer(key);
    if (prior !== undefined) throw collision(relPath, prior);
    // The slot reserve() gives the path, which is new.
    const slot = this.staged.slotCount();
    for (let i = open.length - 1; i >= 0; i--) this.folderClaims.add(keys[i]!, slot, keys[i] === open[i] ? LOWER_CASE : 0);
    if (key !== relPath) this.upperClaims.add(key, slot);
    this.staged.reserve(relPath);
    return folder;
  }

  // For the steps that make files in this thread (links, copies, streamed files): every folder on
  // the way was claimed; make those not known to be made yet, top down, each with a plain mkdir
  // whose parent is known to exist, never mkdir -p. A folder only queued for the writer is made
  // here too, rather than waiting for it: whichever thread comes second finds it made (EEXIST).
  ensureDir(folder: string): void {
    const missing = this.unflagged(folder, MADE);
    if (missing.length === 0) return;
    makeDirs(this.dir, missing);
    for (const f of missing) this.folderClaims.set(this.folderClaims.find(lowerKey(f)), MADE | QUEUED);
  }

  // For a file the writer makes: the folders on the way it must make first (no write has asked
  // for them yet), marked QUEUED. The writer makes a batch in order, so a later file in one of
  // them finds it made.
  foldersToQueue(folder: string): string[] {
    const missing = this.unflagged(folder, QUEUED);
    for (const f of missing) this.folderClaims.set(this.folderClaims.find(lowerKey(f)), QUEUED);
    return missing;
  }

  /** After the writer's job for foldersToQueue()'s folders: made, or (when it failed) to be asked for again. */
  queuedDone(dirs: readonly string[], made: boolean): void {
    for (const dir of dirs) {
      const id = this.folderClaims.find(lowerKey(dir));
      if (made) this.folderClaims.set(id, MADE);
      // Not made after all: the next write into them asks again (and meets the error itself).
      else if (!this.folderClaims.has(id, MADE)) this.folderClaims.clear(id, QUEUED);
    }
  }

  /** Whether the folder claimed with this id was claimed under exactly this spelling. */
  private spelledAs(id: number, folder: string): boolean {
    // Most folders are lower case: no path is read back to tell.
    if (this.folderClaims.has(id, LOWER_CASE)) return folder === lowerKey(folder);
    return isFolderOf(folder, this.staged.pathAt(this.folderClaims.claimer(id)));
  }

  /** The file that claimed a lower-cased path, if any. */
  private fileClaim(key: string): string | undefined {
    if (this.staged.claimed(key)) return key;
    const id = this.upperClaims.find(key);
    return id < 0 ? undefined : this.staged.pathAt(this.upperClaims.claimer(id));
  }

  /** The first file in the folder claimed under a lower-cased path, if any. */
  private folderClaimer(key: string): string | undefined {
    const id = this.folderClaims.find(key);
    return id < 0 ? undefined : this.staged.pathAt(this.folderClaims.claimer(id));
  }

  // The folders on the way to `folder` without `flag`, top down. A folder nobody claimed counts as
  // made: '' (the staging folder itself) is the only one asked.
  private unflagged(folder: string, flag: number): string[] {
    const missing: string[] = [];
    for (let f = folder; f !== ''; f = folderOf(f)) {
      const id = this.folderClaims.find(lowerKey(f));
      if (id < 0 || this.folderClaims.has(id, flag)) break;
      missing.push(f);
    }
    return missing.reverse();
  }
}

/** The folder of a relative path ('' for a top-level file). */
export function folderOf(relPath: string): string {
  const slash = relPath.lastIndexOf('/');
  return slash < 0 ? '' : relPath.slice(0, slash);
}

/** The claim key for a path: the path itself when it is already lower case (no second string). */
function lowerKey(p: string): string {
  const lower = p.toLowerCase();
  return lower === p ? p : lower;
}

/** Whether `folder` (exact spelling) is a folder of the file `by` that claimed its lower-cased key. */
function isFolderOf(folder: string, by: string): boolean {
  return by.length > folder.length && by.charCodeAt(folder.length) === 47 /* '/' */ && by.startsWith(folder);
}

function collision(relPath: string, other: string): CalfeedError {
  const same = relPath === other;
  return new CalfeedError(
    'BUILD',
    same
      ? `Two outputs were written to the same file ${relPath}. This is a bug in calfeed; please report it.`
      : `The outputs ${relPath} and ${other} collide on case-insensitive file systems and CDNs ` +
          '(macOS, Windows): their paths differ only in letter case. This is a bug in calfeed path rules; please report it.',
  );
}
