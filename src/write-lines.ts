// Writing a big text file from pieces, atomically: the crawl cache and the event history run to
// tens of megabytes at 100,000 events, and one string of all of it cost more memory than the build.

import { open, rename, rm } from 'node:fs/promises';
import { makeDir } from './make-dir.js';
import { dirname } from 'node:path';
import { withPath } from './io-error.js';

/** A file written beside its final name, waiting to replace it (commit) or to be dropped (discard). */
export interface PreparedFile {
  commit(): Promise<void>;
  discard(): Promise<void>;
}

/**
 * Write the pieces to `file` through a temp file and a rename, a megabyte at a time, so a killed
 * build leaves the old file or the new one, never half of either. The folder is made if missing.
 */
export async function writePiecesAtomic(file: string, pieces: Iterable<string>): Promise<void> {
  await (await preparePiecesAtomic(file, pieces)).commit();
}

/**
 * writePiecesAtomic in two steps: the temp file is written now, and renamed over `file` only on
 * commit(). The build writes its state while the events it comes from are still at hand, and makes
 * it current only once the output is published.
 */
export async function preparePiecesAtomic(file: string, pieces: Iterable<string>): Promise<PreparedFile> {
  await makeDir(dirname(file));
  const temp = `${file}.${process.pid}.tmp`;
  const discard = (): Promise<void> => rm(temp, { force: true });
  try {
    const handle = await open(temp, 'w');
    try {
      let chunk = '';
      for (const piece of pieces) {
        chunk += piece;
        if (chunk.length >= 1 << 20) {
          await handle.write(chunk);
          chunk = '';
        }
      }
      if (chunk) await handle.write(chunk);
    } finally {
      await handle.close();
    }
  } catch (error) {
    await discard();
    // A failed write (ENOSPC, EIO) names no path of its own.
    throw withPath(error, temp);
  }
  return {
    commit: async () => {
      try {
        await rename(temp, file);
      } catch (error) {
        await discard();
        throw error;
      }
    },
    discard,
  };
}

/**
 * The members of a JSON object, one a line: `,\n"key":value` (no comma before the first). Between
 * an opening `{` and a closing `\n}`, the whole is one JSON document that parseEntryLine reads back
 * a line at a time.
 */
export function* entryLines(entries: Iterable<readonly [string, unknown]>): Generator<string> {
  function* serialized(): Generator<[string, string]> {
    for (const [key, value] of entries) yield [JSON.stringify(key), JSON.stringify(value)];
  }
  yield* jsonEntryLines(serialized());
}

/** entryLines for members already serialized as [key JSON, value JSON]. */
export function* jsonEntryLines(entries: Iterable<readonly [string, string]>): Generator<string> {
  let first = true;
  for (const [key, value] of entries) {
    yield `${first ? '' : ','}\n${key}:${value}`;
    first = false;
  }
}
