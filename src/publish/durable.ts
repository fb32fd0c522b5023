// Making the new output durable before it becomes current, as git and restic do: a power loss
// after the commit must not leave a published folder whose files are empty or missing. Flushed
// once each: every file whose bytes this build wrote and every folder of the new output (files
// hard-linked from --out reached the disk when first written). After the commit, the parent folder
// is flushed so the rename itself is on disk.
//
// On Linux all of it is one syncfs(2) (`sync -f`: Node has no binding), where an fsync per file
// waits for the disk each time. Elsewhere, or when `sync -f` fails, each file and folder is flushed,
// several at once in the thread pool (the file system joins concurrent flushes into one commit).

import { execFile } from 'node:child_process';
import { open } from 'node:fs/promises';
import { eachAtOnce, errno } from './fs-util.js';
import { withPath } from '../io-error.js';

/** fsyncs in flight at once (the thread pool runs 4 by default; the rest wait queued there). */
const IN_FLIGHT = 16;

// Folders cannot be opened, or not flushed, on some systems (Windows; some network file systems):
// there a folder is as durable as the system makes it.
const UNSUPPORTED = new Set(['EISDIR', 'EPERM', 'EACCES', 'EINVAL', 'ENOTSUP', 'EBADF']);

/**
 * Flush every file of `files`, then every folder of `folders` (absolute paths, read lazily), all
 * on the file system of `root`: at once where syncfs is available.
 */
export async function flushAll(root: string, files: Iterable<string>, folders: Iterable<string>): Promise<void> {
  if (process.platform === 'linux' && (await syncFileSystem(root))) return;
  await eachAtOnce(files, IN_FLIGHT, (file) => flush(file, false));
  await eachAtOnce(folders, IN_FLIGHT, (folder) => flush(folder, true));
}

/** syncfs(2) of the file system holding `dir`; false when `sync -f` is missing or fails. */
function syncFileSystem(dir: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('sync', ['-f', dir], { timeout: 600_000 }, (error) => resolve(error === null));
  });
}

/** Flush a folder's entries (after a rename in it); unsupported systems are skipped. */
export function flushFolder(dir: string): Promise<void> {
  return flush(dir, true);
}

async function flush(target: string, folder: boolean): Promise<void> {
  let handle;
  try {
    handle = await open(target, 'r');
  } catch (error) {
    if (folder && UNSUPPORTED.has(errno(error) ?? '')) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    // fsync's error (EIO, ENOSPC) names no path of its own.
    if (!folder || !UNSUPPORTED.has(errno(error) ?? '')) throw withPath(error, target);
  } finally {
    await handle.close();
  }
}
