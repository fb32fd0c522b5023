// Reading and writing build state in the cache folder. Writes are atomic (temp file + rename) so a
// killed build leaves either the old state or the new one, never half of either.

import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { emptyHistory, parseHistory, type HistoryState } from './history.js';

const HISTORY_FILE = 'history.json';

/** Load event history; a missing or unreadable file gives an empty history and a note saying why. */
export async function loadHistory(cacheDir: string): Promise<{ state: HistoryState; note?: string }> {
  let text: string;
  try {
    text = await readFile(join(cacheDir, HISTORY_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: emptyHistory(), note: 'no event history yet: every event is new' };
    return { state: emptyHistory(), note: `event history unreadable (${(error as Error).message}): starting afresh` };
  }
  let parsed: HistoryState | undefined;
  try {
    parsed = parseHistory(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  return parsed ? { state: parsed } : { state: emptyHistory(), note: 'event history corrupt or from another version: starting afresh' };
}

/** Store event history atomically. */
export async function saveHistory(cacheDir: string, state: HistoryState): Promise<void> {
  await writeAtomic(join(cacheDir, HISTORY_FILE), JSON.stringify(state));
}

/** Write a file through a temp file and a rename. */
export async function writeAtomic(path: string, data: string): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, data);
  await rename(temp, path);
}
