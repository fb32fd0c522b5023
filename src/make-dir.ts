// `mkdir -p` that fails with the system's real reason: Node's recursive mkdir reports ENOENT when a
// read-only or unwritable folder stops it; making the first missing folder alone gets the real code.

import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** Make `dir` and any missing parents; on failure, throw the first missing folder's own error. */
export async function makeDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    let missing = resolve(dir);
    for (let up = dirname(missing); up !== missing && !(await exists(up)); up = dirname(up)) missing = up;
    await mkdir(missing);
    throw error;
  }
}

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );
