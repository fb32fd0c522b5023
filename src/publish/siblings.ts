// Names of the helper files and folders calfeed keeps beside the output folder. They live in the
// same parent (never inside --out, which must hold only published files) so that the final
// rename stays on one file system and so a CDN sync of --out never uploads them.

import { randomBytes } from 'node:crypto';
import { lstat, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors.js';

export interface Siblings {
  /** Absolute output folder (or the symbolic link to it, see outputFolder). */
  outDir: string;
  /** Its parent folder. */
  parent: string;
  /** `.<basename>.calfeed-lock` */
  lock: string;
  /** Name prefix of staging folders: `.<basename>.calfeed-staging-` */
  stagingPrefix: string;
  /** Name prefix of backups of the previous output: `.<basename>.calfeed-old-` */
  backupPrefix: string;
  /** Name prefix of the numbered output folders a symbolic link --out points at: `.<basename>.calfeed-gen-` */
  generationPrefix: string;
  /** Name prefix of the temporary link renamed over a symbolic link --out: `.<basename>.calfeed-link-` */
  linkPrefix: string;
}

/**
 * The path a build publishes at: `out` made absolute, with the folders above it resolved to real
 * ones. When `out` itself is a symbolic link to a folder, the link is kept as the path: publishing
 * then makes a new folder beside it and points the link there in one atomic rename (swap.ts). A
 * link to nothing is refused, since there is no published output to start from.
 */
export async function outputFolder(out: string): Promise<string> {
  const abs = path.resolve(out);
  const parent = await realpath(path.dirname(abs)).catch(() => path.dirname(abs));
  const at = path.join(parent, path.basename(abs));
  const info = await lstat(at).catch(() => undefined);
  if (info?.isSymbolicLink() && (await stat(at).catch(() => undefined)) === undefined) {
    throw new ConfigError(
      `The output folder ${abs} is a symbolic link to ${await readlink(at)}, which does not exist. ` +
        'Create that folder, or point --out at a folder.',
    );
  }
  return at;
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
    stagingPrefix: `.${base}.calfeed-staging-`,
    backupPrefix: `.${base}.calfeed-old-`,
    generationPrefix: `.${base}.calfeed-gen-`,
    linkPrefix: `.${base}.calfeed-link-`,
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
