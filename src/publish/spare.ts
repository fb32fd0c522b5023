// The previous output, kept as the next build's staging folder. After a commit in folder mode the
// old output shares every unchanged file with the new one (hard links), so instead of removing it
// and making the next staging folder anew, it is kept beside --out as `.NAME.calfeed-spare`, with
// the paths where it differs from --out (files this build wrote or removed). The next build takes
// it, unlinks those paths, and starts with every other file of --out already in place.
//
// The list is tied to the output it was made against (--out's folder and its manifest.json's
// SHA-256): a spare that does not match, or has no list, is removed. It is taken only on a file
// system that tells letter case apart (a removed `ABC/` could otherwise hold a new `abc/` file).

import { unlinkSync } from 'node:fs';
import { lstat, readdir, readFile, rename, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FileTable } from './file-table.js';
import { errno, removeTree } from './fs-util.js';
import { dropped } from './published.js';
import type { PublishedRead } from './published-manifest.js';
import { isSafeRelPath } from './rel-path.js';
import { type Siblings, uniqueSuffix } from './siblings.js';
import { underRoot } from './write-job.js';

const FORMAT = 'calfeed spare 1';

/** What the spare's list says: the output it was made against, and where it differs from it. */
interface SpareList {
  format: typeof FORMAT;
  /** --out's folder (inode) and its manifest.json (SHA-256, hex) when the spare was kept. */
  outIno: number;
  manifestSha256: string;
  /** Relative paths of --out the spare does not hold as --out does (written or removed since). */
  stale: string[];
}

/** The spare folder and its list, beside --out. */
function spareNames(s: Siblings): { dir: string; list: string } {
  const base = path.basename(s.outDir);
  return { dir: path.join(s.parent, `.${base}.calfeed-spare`), list: path.join(s.parent, `.${base}.calfeed-spare.json`) };
}

/**
 * After a commit: keep the old output `old` as the spare, with the paths (`stale`) where it is
 * not the new --out. False when it could not be (the caller removes `old` then).
 */
export async function keepSpare(s: Siblings, old: string, manifestSha256: string, stale: readonly string[]): Promise<boolean> {
  const { dir, list } = spareNames(s);
  try {
    await removeTree(dir);
    await rename(old, dir);
    const content: SpareList = { format: FORMAT, outIno: (await stat(s.outDir)).ino, manifestSha256, stale: [...stale] };
    const temp = `${list}.${uniqueSuffix()}`;
    await writeFile(temp, JSON.stringify(content));
    await rename(temp, list);
    return true;
  } catch {
    await removeTree(dir).catch(() => undefined);
    return false;
  }
}

/**
 * Make the spare the staging folder `dir` when it matches --out as read (`published`): its list
 * taken (removed first, so a build killed from here on leaves nothing that looks valid), the
 * stale paths, manifest.json and the top-level dot files unlinked. Returns the stale paths (files
 * of --out not in the folder), or undefined when there is no usable spare (then none is left).
 */
export async function takeSpare(s: Siblings, published: PublishedRead, dir: string): Promise<Set<string> | undefined> {
  const names = spareNames(s);
  const list = await readList(names.list);
  await unlink(names.list).catch(() => undefined);
  const usable =
    list !== undefined &&
    published.found === 'read' &&
    'files' in published.listing &&
    published.sha256 === list.manifestSha256 &&
    (await stat(s.outDir).catch(() => undefined))?.ino === list.outIno &&
    (await tellsCaseApart(names.dir));
  if (!usable) {
    await removeTree(names.dir);
    return undefined;
  }
  try {
    await rename(names.dir, dir);
  } catch (error) {
    if (errno(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    // A few at a time: each unlink waits for the file system's journal.
    for (let i = 0; i < list.stale.length; i += 32) await Promise.all(list.stale.slice(i, i + 32).map((relPath) => removeFile(dir, relPath)));
    for (const name of await readdir(dir)) {
      if (name.startsWith('.') || name === 'manifest.json') await removeTree(path.join(dir, name));
    }
  } catch {
    // Not what calfeed left (a folder where a file was): start from an empty folder instead.
    await removeTree(dir);
    return undefined;
  }
  return new Set(list.stale);
}

/**
 * Which of --out's files a staging folder taken from the spare holds as --out's own: every file
 * --out's manifest lists but `notHeld` (stale in the spare, made anew by this build, or gone).
 */
export class SpareHold {
  constructor(
    private readonly dir: string,
    readonly notHeld: Set<string>,
  ) {}

  holds(relPath: string, listed: FileTable | 'unknown'): boolean {
    return listed !== 'unknown' && listed.sizeOf(relPath) !== undefined && !this.notHeld.has(relPath);
  }

  /** Before a file is made at relPath: the spare's copy there goes (staging makes files with 'wx'). */
  vacate(relPath: string, listed: FileTable | 'unknown'): void {
    if (!this.holds(relPath, listed)) return;
    unlinkSync(underRoot(this.dir, relPath));
    this.notHeld.add(relPath);
  }

  /** At publish: unlink the spare's files that are not output any more (listed, not staged). */
  async dropGone(listed: FileTable | 'unknown', staged: FileTable): Promise<void> {
    if (listed === 'unknown') return;
    for (const relPath of dropped(listed, staged)) {
      if (!this.holds(relPath, listed)) continue;
      await removeFile(this.dir, relPath);
      this.notHeld.add(relPath);
    }
  }
}

/** Unlink a file of `root` (gone already is fine) and the folders it leaves empty. */
async function removeFile(root: string, relPath: string): Promise<void> {
  await unlink(underRoot(root, relPath)).catch((error: unknown) => (errno(error) === 'ENOENT' ? undefined : Promise.reject(error)));
  for (let folder = path.posix.dirname(relPath); folder !== '.'; folder = path.posix.dirname(folder)) {
    const emptied = await rmdir(underRoot(root, folder)).then(
      () => true,
      () => false,
    );
    if (!emptied) return;
  }
}

async function readList(file: string): Promise<SpareList | undefined> {
  try {
    const list = JSON.parse(await readFile(file, 'utf8')) as Partial<SpareList>;
    const valid =
      list.format === FORMAT &&
      typeof list.outIno === 'number' &&
      typeof list.manifestSha256 === 'string' &&
      Array.isArray(list.stale) &&
      list.stale.every(isSafeRelPath);
    return valid ? (list as SpareList) : undefined;
  } catch {
    return undefined;
  }
}

// Whether the file system of `dir` tells `a` from `A`: the same name in other letters is not there.
async function tellsCaseApart(dir: string): Promise<boolean> {
  const base = path.basename(dir);
  const other = base.toUpperCase() === base ? base.toLowerCase() : base.toUpperCase();
  const [self, swapped] = await Promise.all([lstat(dir).catch(() => undefined), lstat(path.join(path.dirname(dir), other)).catch(() => undefined)]);
  return self !== undefined && (swapped === undefined || swapped.ino !== self.ino);
}
