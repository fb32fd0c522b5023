// Writing a big text file (the build store) from pieces, never as one string of all of it.

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
