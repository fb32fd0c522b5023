// How a file kept unchanged gets into staging: a hard link to the published copy, so it keeps its
// bytes and mtime and costs no write; where the file system has no hard links, a copy with the old
// mtime (a CDN sync compares mtimes), with one warning per staging.

import { constants, linkSync } from 'node:fs';
import { copyFile, stat, utimes } from 'node:fs/promises';
import { errno, Limiter } from './fs-util.js';

/** Links (or copies) published files into one staging folder. */
export class KeptLinks {
  // Whether an unchanged file was copied rather than linked (no hard links): its bytes are new too.
  copied = false;
  // The copy fallback runs in the thread pool, a few at a time; links are made synchronously.
  private readonly copies = new Limiter(32);

  constructor(
    private readonly outDir: string,
    private readonly onWarning: ((message: string) => void) | undefined,
  ) {}

  /** A hard link, synchronously; undefined when done. Without hard links: a copy, returned as a promise. */
  linkOrCopy(published: string, target: string): Promise<void> | undefined {
    try {
      linkSync(published, target);
      return undefined;
    } catch (error) {
      // EEXIST: a bug (two writers); ENOENT: the published copy is gone. Neither means "no links".
      const code = errno(error);
      if (code === 'EEXIST' || code === 'ENOENT') throw error;
      if (!this.copied) {
        this.copied = true;
        this.onWarning?.(
          `Hard links are not available beside ${this.outDir} (${errno(error) ?? 'error'}); copying unchanged files and keeping their modification times.`,
        );
      }
    }
    return this.copies.run(async () => {
      const info = await stat(published);
      await copyFile(published, target, constants.COPYFILE_EXCL);
      await utimes(target, info.atime, info.mtime);
    });
  }
}
