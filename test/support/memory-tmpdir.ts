// Vitest's global setup: the tests' temporary folders (os.tmpdir(), read by every test and by the
// CLI they spawn) in a folder of their own on /dev/shm, a memory file system, when the machine has
// one with room. Every build a test runs ends with syncfs(2) of the file system holding its
// output (src/publish/durable.ts): on the disk, shared with whatever else the machine writes, each
// one waited 0.1 to 2 s for that; in memory it returns at once. The calls, their order and every
// file are the same (test/e2e/durable.test.ts traces them).
import { chmodSync, mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';

const MEMORY = '/dev/shm';
/** Room the suite's folders need at their peak, with a wide margin. */
const NEEDED_BYTES = 2 * 1024 ** 3;

export default function setup(): (() => void) | undefined {
  // A TMPDIR set on purpose is kept.
  if (process.env.TMPDIR) return undefined;
  let free: number;
  try {
    removeAbandoned();
    const fs = statfsSync(MEMORY);
    free = fs.bavail * fs.bsize;
  } catch {
    return undefined;
  }
  if (free < NEEDED_BYTES) return undefined;
  const dir = mkdtempSync(join(MEMORY, `calfeed-tests-${process.pid}-`));
  // As /tmp is: the permission tests run builds as an unprivileged user under it.
  chmodSync(dir, 0o1777);
  // Test workers are started after this and inherit the environment.
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}

/** The folders of runs that were killed (their process is gone): memory no one will free otherwise. */
function removeAbandoned(): void {
  for (const name of readdirSync(MEMORY)) {
    const pid = /^calfeed-tests-(\d+)-/.exec(name)?.[1];
    if (pid !== undefined && !alive(Number(pid))) rmSync(join(MEMORY, name), { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
