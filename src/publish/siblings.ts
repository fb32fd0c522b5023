// Names of the helper files and folders calfeed keeps beside the output folder. They live in the
// same parent (never inside --out, which must hold only published files) so that the final
// rename stays on one file system and so a CDN sync of --out never uploads them.

import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { errno } from './fs-util.js';

export interface Siblings {
  /** Absolute output folder. */
  outDir: string;
  /** Its parent folder. */
  parent: string;
  /** `.<basename>.calfeed-lock` */
  lock: string;
  /** `.<basename>.calfeed-journal` */
  journal: string;
  /** Name prefix of staging folders: `.<basename>.calfeed-staging-` */
  stagingPrefix: string;
  /** Name prefix of backups of the previous output: `.<basename>.calfeed-old-` */
  backupPrefix: string;
}

/**
 * The folder a build publishes into: `out` made absolute, and when it is (or lies under) a symbolic
 * link, the real folder. Publishing renames folders, and a rename moves a link, not what it leads
 * to: the new output would replace the link, and the old one would be deleted through it. Resolved,
 * the swap happens at the real folder and the link keeps leading to the published site. A missing
 * `out` is itself; a link to nothing is refused, since there is no folder to publish into.
 */
export async function outputFolder(out: string): Promise<string> {
  const abs = path.resolve(out);
  try {
    return await realpath(abs);
  } catch (error) {
    if (errno(error) !== 'ENOENT') throw error;
  }
  const info = await lstat(abs).catch(() => undefined);
  if (info?.isSymbolicLink()) {
    throw new ConfigError(
      `The output folder ${abs} is a symbolic link to ${await readlink(abs)}, which does not exist. ` +
        'Create that folder, or point --out at a folder.',
    );
  }
  return abs;
}

/** Resolve outDir (relative to the working folder) and name its helper siblings. */
export function siblingsOf(outDir: string): Siblings {
  const abs = path.resolve(outDir);
  const parent = path.dirname(abs);
  const base = path.basename(abs);
  if (abs === parent || base === '') {
    throw new ConfigError(`The output folder cannot be the file system root (${abs}). Choose a folder such as ./output.`);
  }
  // Publishing renames --out away; if it holds the working folder, calfeed would pull the ground
  // from under itself (and the user's shell).
  const cwd = process.cwd();
  if (cwd === abs || cwd.startsWith(abs + path.sep)) {
    throw new ConfigError(
      `The output folder ${abs} contains the working folder. calfeed replaces --out as a whole; ` +
        'choose a folder of its own, such as ./output.',
    );
  }
  return {
    outDir: abs,
    parent,
    lock: path.join(parent, `.${base}.calfeed-lock`),
    journal: path.join(parent, `.${base}.calfeed-journal`),
    stagingPrefix: `.${base}.calfeed-staging-`,
    backupPrefix: `.${base}.calfeed-old-`,
  };
}

/** A fresh unique name suffix: `<pid>-<random>`. */
export function uniqueSuffix(): string {
  return `${process.pid}-${randomBytes(6).toString('hex')}`;
}

/** The pid embedded in a `<prefix><pid>-<random>` name, if any. */
export function pidOfName(name: string, prefix: string): number | undefined {
  const match = /^(\d+)-[0-9a-f]+$/.exec(name.slice(prefix.length));
  return match ? Number(match[1]) : undefined;
}

/** Whether a process with this pid exists on this machine (EPERM means it exists but is not ours). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Make sure the parent folder exists (first build into a new path). */
export async function ensureParent(s: Siblings): Promise<void> {
  await mkdir(s.parent, { recursive: true });
}
