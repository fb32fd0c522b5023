// One build per output folder at a time. The lock is a small JSON file beside --out (never inside
// it) naming its holder. It is created atomically (write a private temp file, then link(2) it into
// place, which fails if the lock exists), so a lock file is never seen half-written.
//
// A build killed with SIGKILL cannot remove its lock, so a lock is stale, and taken over with a
// note, when its process is gone (same host, pid not alive, or the pid is our own but this process
// does not hold it: a reused pid in a fresh container) or when it is older than a generous max age
// (the only test possible for a lock held from another host, e.g. on a shared volume).

import { randomBytes } from 'node:crypto';
import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { CalfeedError } from '../errors.js';
import { isProcessAlive, siblingsOf, uniqueSuffix } from './siblings.js';
import { makeDir } from '../make-dir.js';

/** Locks older than this are stale whoever holds them: far longer than any real build. */
const DEFAULT_LOCK_MAX_AGE_MS = 6 * 60 * 60 * 1000;

export interface LockOptions {
  /** Age after which any lock is stale (default 6 hours). */
  maxAgeMs?: number;
}

export interface OutputLock {
  /** Remove the lock if it is still ours. Safe to call twice. */
  release(): Promise<void>;
  /** Set when a stale lock was taken over: say so in the log. */
  note?: string;
  /** Absolute path of the lock file. */
  path: string;
}

interface Holder {
  pid: number;
  hostname: string;
  startedAt: string;
  token: string;
}

// Locks this process holds, so a lock naming our own pid can be told apart from one we inherited
// through pid reuse.
const heldHere = new Set<string>();

/** Take the output lock beside outDir, taking over a stale one; throws CalfeedError('LOCKED') if another build holds it. */
export async function acquireLock(outDir: string, options: LockOptions = {}): Promise<OutputLock> {
  const s = siblingsOf(outDir);
  await makeDir(s.parent);
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_LOCK_MAX_AGE_MS;
  const mine: Holder = {
    pid: process.pid,
    hostname: os.hostname(),
    startedAt: new Date().toISOString(),
    token: randomBytes(12).toString('hex'),
  };
  const raw = JSON.stringify(mine) + '\n';
  let note: string | undefined;

  // A few rounds: each lost race (another build took the lock over between our read and rename)
  // sends us back to read the new holder.
  for (let round = 0; round < 4; round++) {
    if (await tryCreate(s.lock, raw)) {
      heldHere.add(s.lock);
      return { path: s.lock, release: () => release(s.lock, mine.token), ...(note ? { note } : {}) };
    }
    const current = await readHolder(s.lock);
    if (current === 'missing') continue;
    const why = staleReason(current, s.lock, maxAgeMs);
    if (why === undefined) throw lockedError(s.outDir, s.lock, current as Holder);
    if (await takeOver(s.lock, current === 'corrupt' ? undefined : current)) {
      note = `Took over the stale output lock ${s.lock}: ${why}.`;
    }
  }
  throw new CalfeedError(
    'LOCKED',
    `Could not take the output lock ${s.lock}: other builds keep taking it. Make sure only one scheduled build writes ${s.outDir}.`,
  );
}

async function tryCreate(lockPath: string, raw: string): Promise<boolean> {
  const temp = `${lockPath}.tmp-${uniqueSuffix()}`;
  await writeFile(temp, raw, { flag: 'wx' });
  try {
    await link(temp, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(temp, { force: true });
  }
}

async function readHolder(lockPath: string): Promise<Holder | 'missing' | 'corrupt'> {
  let text: string;
  try {
    text = await readFile(lockPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    if (typeof value.pid === 'number' && typeof value.hostname === 'string' && typeof value.startedAt === 'string') {
      return { pid: value.pid, hostname: value.hostname, startedAt: value.startedAt, token: String(value.token ?? '') };
    }
  } catch {
    // fall through: a lock we cannot read protects nothing
  }
  return 'corrupt';
}

function staleReason(holder: Holder | 'corrupt', lockPath: string, maxAgeMs: number): string | undefined {
  if (holder === 'corrupt') return 'the lock file is unreadable';
  const started = Date.parse(holder.startedAt);
  if (!Number.isFinite(started) || Date.now() - started > maxAgeMs) {
    return `it was taken at ${holder.startedAt}, more than ${Math.round(maxAgeMs / 60000)} minutes ago`;
  }
  if (holder.hostname !== os.hostname()) return undefined;
  if (holder.pid === process.pid) return heldHere.has(lockPath) ? undefined : `pid ${holder.pid} is this process, which does not hold it`;
  if (!isProcessAlive(holder.pid)) return `its build (pid ${holder.pid}) is no longer running`;
  return undefined;
}

// Move the stale lock to a private name, then check it is still the one we judged stale: if a
// faster build took it over in between, we grabbed a live lock and must put it back.
async function takeOver(lockPath: string, judged: Holder | undefined): Promise<boolean> {
  const grabbed = `${lockPath}.stale-${uniqueSuffix()}`;
  try {
    await rename(lockPath, grabbed);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  const now = await readHolder(grabbed);
  const same = judged === undefined ? now === 'corrupt' : typeof now === 'object' && now.token === judged.token && now.pid === judged.pid;
  if (!same) {
    await link(grabbed, lockPath).catch(() => undefined);
    await rm(grabbed, { force: true });
    return false;
  }
  await rm(grabbed, { force: true });
  return true;
}

async function release(lockPath: string, token: string): Promise<void> {
  heldHere.delete(lockPath);
  const current = await readHolder(lockPath);
  // Only remove our own lock: after a (wrong) takeover the file may belong to another build.
  if (typeof current === 'object' && current.token === token) await rm(lockPath, { force: true });
}

function lockedError(outDir: string, lockPath: string, holder: Holder): CalfeedError {
  const where = holder.hostname === os.hostname() ? '' : ` on host ${holder.hostname}`;
  return new CalfeedError(
    'LOCKED',
    `Another calfeed build is writing ${outDir} (pid ${holder.pid}${where} since ${holder.startedAt}). ` +
      `Wait for it, or remove ${lockPath} if no build is running.`,
  );
}
