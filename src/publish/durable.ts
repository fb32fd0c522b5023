// Making the new output durable before it becomes current, as git and restic do: a power loss
// after the commit must not leave a published folder whose files are empty or missing. Flushed
// (fsync) once each: every file whose bytes this build wrote, and every folder of the new output,
// whose entries (new files, hard links, subfolders) are the rest of what a crash could lose. Files
// hard-linked from the published output are not: their bytes reached the disk when they were
// first written, and their new name is an entry of a flushed folder. After the commit, the parent
// folder is flushed so the rename itself is on disk.
//
// Each fsync waits for the disk (on ext4 a cache flush, about 0.3 ms on a virtual disk), so they go
// to the thread pool several at a time: one at a time took 40% longer, and the file system joins
// concurrent flushes into one journal commit.

import { open } from 'node:fs/promises';
import { errno } from './fs-util.js';

/** fsyncs in flight at once (the thread pool runs 4 by default; the rest wait queued there). */
const IN_FLIGHT = 16;

// Folders cannot be opened, or not flushed, on some systems (Windows; some network file systems):
// there a folder is as durable as the system makes it.
const UNSUPPORTED = new Set(['EISDIR', 'EPERM', 'EACCES', 'EINVAL', 'ENOTSUP', 'EBADF']);

/** Flush every file of `files`, then every folder of `folders` (absolute paths, read lazily). */
export async function flushAll(files: Iterable<string>, folders: Iterable<string>): Promise<void> {
  await eachAtOnce(files[Symbol.iterator](), (file) => flush(file, false));
  await eachAtOnce(folders[Symbol.iterator](), (folder) => flush(folder, true));
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
    if (!folder || !UNSUPPORTED.has(errno(error) ?? '')) throw error;
  } finally {
    await handle.close();
  }
}

// Runs fn on each item, IN_FLIGHT at a time, pulling items as it goes (no list of promises);
// stops taking new items after the first failure, which it throws once the others settle.
async function eachAtOnce<T>(items: Iterator<T>, fn: (item: T) => Promise<void>): Promise<void> {
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    for (let next = items.next(); !next.done && failure === undefined; next = items.next()) {
      try {
        await fn(next.value);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  if (failure !== undefined) throw failure.error;
}
