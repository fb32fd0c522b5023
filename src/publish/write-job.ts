// The part of staging a new file that needs no decision: make its missing folders, create it
// exclusively with its bytes, check the bytes for the file's kind, and hash them when asked. It
// runs in the writer thread (writer-thread.ts), a batch at a time, or in the main thread when
// there is no writer thread (writer.ts); either way through runJob, so both do the same syscalls.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkOnWrite } from './content-check.js';
import { errno, sha256Digest } from './fs-util.js';
import { withPath } from '../io-error.js';

export interface WriteJob {
  /** Folders to make first, top down, relative to the staging folder; each may exist already. */
  dirs: readonly string[];
  /** The new file, relative to the staging folder. */
  relPath: string;
  bytes: Uint8Array;
  /** Whether to return the bytes' SHA-256 (when the main thread did not need it to decide). */
  hash: boolean;
}

export interface JobResult {
  /** Why the bytes are wrong for the file's kind (checkOnWrite), if they are. */
  problem?: string;
  /** Raw 32-byte SHA-256, when asked for. */
  hash?: Buffer;
}

/** Folder separator is '/': output paths (checked by assertSafeRelPath) join by concatenation. */
const SLASH = path.sep === '/';

/** Absolute path of relPath inside the staging folder `root`. */
export function underRoot(root: string, relPath: string): string {
  return SLASH ? `${root}/${relPath}` : path.join(root, ...relPath.split('/'));
}

/** Make `dirs` under root, top down, each with a plain mkdir (its parent exists): never mkdir -p. */
export function makeDirs(root: string, dirs: readonly string[]): void {
  for (const dir of dirs) {
    try {
      mkdirSync(underRoot(root, dir));
    } catch (error) {
      // Made already: by a write in the other thread, or a file is there (the file's write says ENOTDIR).
      if (errno(error) !== 'EEXIST') throw error;
    }
  }
}

/** Do one job; throws the file system's error as it comes (EEXIST, ENOTDIR, ENOSPC, ...). */
export function runJob(root: string, job: WriteJob): JobResult {
  makeDirs(root, job.dirs);
  // 'wx': a staged path is claimed once, so an existing file means two writers (a bug) or a stray.
  const file = underRoot(root, job.relPath);
  try {
    writeFileSync(file, job.bytes, { flag: 'wx' });
  } catch (error) {
    // A failed write (ENOSPC, EIO) names no path of its own.
    throw withPath(error, file);
  }
  // Checked here, on the bytes in hand, so verify never reads the file back.
  const problem = checkOnWrite(job.relPath, job.bytes);
  const result: JobResult = problem === undefined ? {} : { problem };
  if (job.hash) result.hash = sha256Digest(job.bytes);
  return result;
}

/**
 * Jobs as they cross to the writer thread: parallel arrays (one structured clone each, not one
 * object per file) and every file's bytes end to end in one transferred buffer.
 */
export interface JobBatch {
  id: number;
  /** Per job: how many entries of `dirs` are its folders. */
  dirCounts: Uint16Array;
  dirs: string[];
  relPaths: string[];
  /** Per job: where its bytes end in `data` (each starts where the one before ended). */
  ends: Uint32Array;
  /** Per job: 1 when its hash is wanted. */
  hash: Uint8Array;
  data: ArrayBuffer;
}

/** A file system error as it crosses back: the fields errno() and messages use. */
export interface JobError {
  message: string;
  code?: string;
  errno?: number;
  syscall?: string;
  path?: string;
}

export interface BatchReply {
  id: number;
  /** Job index -> error; a failed job has no problem or hash. */
  errors: Array<[number, JobError]>;
  problems: Array<[number, string]>;
  /** 32 bytes per job, where a hash was asked for (zeros elsewhere); null when none was. */
  hashes: ArrayBuffer | null;
}

/** Bytes of a SHA-256 in a reply's `hashes`. */
export const DIGEST = 32;

/** Run a batch in order; one job's failure does not stop the others (the main thread decides). */
export function runBatch(root: string, batch: JobBatch): BatchReply {
  const reply: BatchReply = { id: batch.id, errors: [], problems: [], hashes: null };
  const hashes = batch.hash.includes(1) ? new Uint8Array(batch.relPaths.length * DIGEST) : undefined;
  let dirAt = 0;
  let start = 0;
  for (let i = 0; i < batch.relPaths.length; i++) {
    const dirs = batch.dirs.slice(dirAt, (dirAt += batch.dirCounts[i]!));
    const end = batch.ends[i]!;
    const bytes = new Uint8Array(batch.data, start, end - start);
    start = end;
    try {
      const result = runJob(root, { dirs, relPath: batch.relPaths[i]!, bytes, hash: batch.hash[i] === 1 });
      if (result.problem !== undefined) reply.problems.push([i, result.problem]);
      if (result.hash) hashes!.set(result.hash, i * DIGEST);
    } catch (error) {
      reply.errors.push([i, jobError(error)]);
    }
  }
  if (hashes) reply.hashes = hashes.buffer;
  return reply;
}

function jobError(error: unknown): JobError {
  const e = error as NodeJS.ErrnoException;
  const out: JobError = { message: e?.message ?? String(error) };
  if (e?.code !== undefined) out.code = e.code;
  if (e?.errno !== undefined) out.errno = e.errno;
  if (e?.syscall !== undefined) out.syscall = e.syscall;
  if (e?.path !== undefined) out.path = e.path;
  return out;
}

/** The error a job's failure stands for, in the main thread: an Error with the same fields as Node's own. */
export function jobFailure(error: JobError): NodeJS.ErrnoException {
  const { message, ...fields } = error;
  return Object.assign(new Error(message), fields);
}
