// Faults of the machine calfeed runs on (a full disk, a read-only mount, a folder it may not
// write), as the person reading the log needs them: what failed, on which path, why in plain
// words, and what to do. The one place that knows the file system's error codes: a command's
// error passes through asIoError where the CLI reports it, so "a bug in calfeed" is left for bugs.

import path from 'node:path';
import { CalfeedError } from './errors.js';

interface Reason {
  /** Why, in plain words. */
  why: string;
  /** What to do, about `place` (a folder, and the flag that names it, when known). */
  fix: (place: string) => string;
}

const REASONS: Readonly<Record<string, Reason>> = {
  ENOSPC: { why: 'no space left on the device', fix: (place) => `Free some space on the file system of ${place}` },
  EDQUOT: { why: 'the disk quota is used up', fix: (place) => `Free some space, or raise the disk quota, for ${place}` },
  EROFS: { why: 'read-only file system', fix: (place) => `Remount the file system of ${place} read-write` },
  EACCES: { why: 'permission denied', fix: (place) => `Make ${place} writable (and readable) for the user calfeed runs as` },
  EPERM: { why: 'operation not permitted', fix: (place) => `Make ${place} writable for the user calfeed runs as` },
  EMFILE: { why: 'too many open files in this process', fix: () => 'Raise the open-file limit (ulimit -n)' },
  ENFILE: { why: 'too many open files on this machine', fix: () => 'Close other programs, or raise the system open-file limit' },
  EIO: { why: 'input/output error (a failing disk, or a network mount that went away)', fix: (place) => `Check the device and the mount of ${place}` },
  ENOTDIR: { why: 'a part of the path is a file, not a folder', fix: () => 'Move that file away' },
  ELOOP: { why: 'too many levels of symbolic links', fix: () => 'Check the symbolic links on the path' },
  ENAMETOOLONG: { why: 'the path is too long', fix: () => 'Use a shorter path' },
};

/**
 * What a file-system call was doing, as a verb phrase for "could not ...", by Node's syscall names.
 * Only these are translated: the same codes from a socket (EACCES on listen) mean something else.
 */
const DOING: Readonly<Record<string, string>> = {
  open: 'open',
  write: 'write',
  writev: 'write',
  readv: 'read',
  mkdtemp: 'create a folder in',
  truncate: 'truncate',
  chown: 'change the owner of',
  fchown: 'change the owner of',
  fchmod: 'change the mode of',
  read: 'read',
  mkdir: 'create the folder',
  rmdir: 'remove the folder',
  unlink: 'remove',
  rm: 'remove',
  rename: 'rename',
  copyfile: 'copy',
  link: 'hard-link',
  symlink: 'create the symbolic link',
  readlink: 'read the symbolic link',
  scandir: 'list the folder',
  opendir: 'list the folder',
  stat: 'look at',
  lstat: 'look at',
  fstat: 'look at',
  access: 'access',
  realpath: 'resolve',
  fsync: 'flush to disk',
  fdatasync: 'flush to disk',
  utime: 'set the times of',
  futime: 'set the times of',
  chmod: 'change the mode of',
  ftruncate: 'truncate',
  close: 'close',
};

/** A folder a command was given, by the flag that names it. */
export interface IoFolder {
  flag: string;
  dir: string;
  /** The folder's helpers beside it (staging, lock, generations: `.<name>.calfeed-*`) count as its own. */
  siblings?: boolean;
}

export interface IoContext {
  /** The folders the command was given, to name the one a failed path belongs to. */
  folders?: readonly IoFolder[];
  /** A sentence the command guarantees about this failure (e.g. that --out was left as it was). */
  outcome?: string;
}

/**
 * The error a file-system fault stands for: a Node errno error with a code and system call above, as
 * `error` or along its `cause` chain (not under a calfeed error other than BUILD); else undefined.
 */
export function asIoError(error: unknown, context: IoContext = {}): CalfeedError | undefined {
  if (error instanceof CalfeedError && error.code !== 'BUILD') return undefined;
  const fault = errnoCause(error);
  if (!fault) return undefined;
  const reason = REASONS[fault.code!]!;
  const doing = DOING[fault.syscall!]!;
  const dest = typeof fault.dest === 'string' ? fault.dest : undefined;
  const where = fault.path === undefined ? '' : ` ${fault.path}${dest === undefined ? '' : ` to ${dest}`}`;
  const folders = context.folders ?? [];
  // The side written to decides: a copy's destination, else the path.
  const written = dest ?? fault.path;
  const folder = written === undefined ? undefined : folderOf(written, folders);
  const place = folder
    ? placeOf(folder)
    : written !== undefined
      ? path.dirname(path.resolve(written))
      : folders.length > 0
        ? folders.map(placeOf).join(' or ')
        : 'the folder calfeed writes to';
  const others = folder ? [folder.flag] : folders.map((f) => f.flag);
  const elsewhere = others.length === 0 ? '' : `, or choose another ${others.join(' or ')}`;
  const message = `Could not ${doing}${where}: ${reason.why}. ${reason.fix(place)}${elsewhere}, then run calfeed again.` + (context.outcome ? ` ${context.outcome}` : '');
  return new CalfeedError('IO', message, { cause: error });
}

/** Gives an errno error of an open file's call (Node names no path) the file's path; returns it. */
export function withPath(error: unknown, file: string): unknown {
  const e = error as NodeJS.ErrnoException | undefined;
  if (e instanceof Error && typeof e.code === 'string' && e.path === undefined) e.path = file;
  return error;
}

/** The first errno error with a code we translate, along the cause chain (cycles cut). */
function errnoCause(error: unknown): (NodeJS.ErrnoException & { dest?: unknown }) | undefined {
  const seen = new Set<unknown>();
  for (let at: unknown = error; at !== null && typeof at === 'object' && !seen.has(at); at = (at as { cause?: unknown }).cause) {
    seen.add(at);
    const { code, syscall } = at as NodeJS.ErrnoException;
    if (typeof code === 'string' && Object.hasOwn(REASONS, code) && typeof syscall === 'string' && Object.hasOwn(DOING, syscall)) return at as NodeJS.ErrnoException;
    // A calfeed error of another kind along the way says what happened already.
    if (at !== error && at instanceof CalfeedError && at.code !== 'BUILD') return undefined;
  }
  return undefined;
}

/** The folder `file` is in (or beside, for --out's helpers), most specific first. */
function folderOf(file: string, folders: readonly IoFolder[]): IoFolder | undefined {
  const abs = path.resolve(file);
  let best: IoFolder | undefined;
  let bestLength = -1;
  for (const folder of folders) {
    const dir = path.resolve(folder.dir);
    const inside = abs === dir || abs.startsWith(dir + path.sep);
    const parent = path.dirname(dir);
    const beside = folder.siblings === true && abs.startsWith(`${parent}${parent.endsWith(path.sep) ? '' : path.sep}.${path.basename(dir)}.`);
    const length = inside ? dir.length : beside ? parent.length : -1;
    if (length > bestLength) [best, bestLength] = [folder, length];
  }
  return best;
}

/** A flag's folder as the place to act on: for --out, the folder it is in, where its helpers are made. */
function placeOf(folder: IoFolder): string {
  const dir = path.resolve(folder.dir);
  return folder.siblings ? `${path.dirname(dir)} (the folder ${folder.flag} is in)` : `${dir} (${folder.flag})`;
}
