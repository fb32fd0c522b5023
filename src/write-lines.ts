// Writing a big text file from pieces: the build store runs to hundreds of megabytes at 100,000
// events, and one string of all of it cost more memory than the build.

import { open } from 'node:fs/promises';
import { withPath } from './io-error.js';

/** Write (flag 'w') or append ('a') the pieces to `file`, a megabyte at a time. */
export async function writePieces(file: string, pieces: Iterable<string>, flag: 'w' | 'a'): Promise<void> {
  try {
    const handle = await open(file, flag);
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
    // A failed write (ENOSPC, EIO) names no path of its own.
    throw withPath(error, file);
  }
}
