// Repairing what a killed build left beside --out. Publishing never changes --out before its
// commit step (swap.ts), so what is left says by itself what happened, without a journal:
// - a staging folder whose build is gone: never published; removed;
// - a backup (`.NAME.calfeed-old-*`) with --out missing: the build died between the two renames of
//   folder mode; the backup is the previous output and is put back (the unfinished build is not
//   published: recover() does not guess that it was wanted);
// - a backup with --out present: its removal after the commit was cut short; removed;
// - generations of link mode: see generations.ts;
// - temp files of the lock and temp links: removed once their process is gone.

import { readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { sweepGenerations } from './generations.js';
import { removeTree } from './fs-util.js';
import { isProcessAlive, pidOfName, type Siblings, siblingsOf } from './siblings.js';
import { isLiveStaging } from './staging.js';
import { present } from './swap.js';

/** Repair what a killed build left beside outDir; call with the lock held. Returns notes for the log. */
export async function recover(outDir: string): Promise<string[]> {
  const s = siblingsOf(outDir);
  if (!(await present(s.parent))) return [];
  const names = await readdir(s.parent);
  const notes = await sweepStaging(s, names);
  notes.push(...(await sweepBackups(s, names)));
  notes.push(...(await sweepGenerations(s)));
  return notes;
}

// Staging folders of killed builds, and temp files (lock) and temp links of processes now gone.
async function sweepStaging(s: Siblings, names: readonly string[]): Promise<string[]> {
  const notes: string[] = [];
  for (const name of names) {
    const full = path.join(s.parent, name);
    if (name.startsWith(s.stagingPrefix)) {
      const pid = pidOfName(name, s.stagingPrefix);
      if (isLiveStaging(full)) continue;
      // A live pid other than ours may be a build that skipped the lock; leave its folder alone.
      if (pid !== undefined && pid !== process.pid && isProcessAlive(pid)) {
        notes.push(`Left ${full} in place: its build (pid ${pid}) is still running.`);
        continue;
      }
      await removeTree(full);
      notes.push(`Removed ${full}, left by an interrupted build.`);
    } else if (name.startsWith(path.basename(s.lock) + '.') || name.startsWith(s.linkPrefix)) {
      // Only ever in use for an instant by a running build.
      const pid = Number(/-(\d+)-[0-9a-f]+$/.exec(name)?.[1]);
      if (pid === process.pid || isProcessAlive(pid)) continue;
      await rm(full, { force: true });
    }
  }
  return notes;
}

// Backups of the previous output (folder mode): put back when --out is missing, else removed.
async function sweepBackups(s: Siblings, names: readonly string[]): Promise<string[]> {
  const backups = names.filter((name) => name.startsWith(s.backupPrefix)).map((name) => path.join(s.parent, name));
  if (backups.length === 0) return [];
  const notes: string[] = [];
  if (!(await present(s.outDir))) {
    // There is one unless a removal was cut short before; the newest is the last output.
    const dated = await Promise.all(backups.map(async (b) => ({ b, mtime: (await stat(b)).mtimeMs })));
    dated.sort((x, y) => y.mtime - x.mtime);
    const newest = dated[0]!.b;
    await rename(newest, s.outDir);
    notes.push(`A build was interrupted while publishing; restored the previous output ${s.outDir} from ${newest}.`);
    backups.splice(backups.indexOf(newest), 1);
  }
  for (const b of backups) {
    await removeTree(b);
    notes.push(`Removed ${b}, an old output left by an interrupted build.`);
  }
  return notes;
}
