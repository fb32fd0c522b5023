// The last check before publishing: what subscribers would get must parse, and the manifest must
// describe exactly the files on disk. A failure here leaves --out untouched. Given staging's table,
// nothing but the manifest is read back: the content checks ran as files were staged
// (content-check.ts), and the folder is walked for sizes. Without it, every file is read and checked.

import { lstatSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CalfeedError } from '../errors.js';
import { paths } from '../paths.js';
import { contentProblem } from './content-check.js';
import { eachAtOnce, errno, sha256, walkFiles, type WalkEntry } from './fs-util.js';
import { FileTable } from './file-table.js';
import { scanManifest } from './manifest-read.js';

function failure(relPath: string, problem: string): CalfeedError {
  return new CalfeedError(
    'BUILD',
    `Output check failed for ${relPath}: ${problem}. Nothing was published; the previous output is unchanged. ` +
      'This is a bug in calfeed or in a template; please report it with this message.',
  );
}

export interface VerifyOptions {
  /** Staging's own table (Staging.files()): its problems and sizes stand for reading the files back. */
  staged?: FileTable;
}

/** Check a staged folder before publishing; throws CalfeedError('BUILD') naming the first bad file. */
export async function verifyStaging(dir: string, options: VerifyOptions = {}): Promise<void> {
  if (options.staged) return verifyAgainstTable(dir, options.staged);
  await checkByReading(dir, (relPath, problem) => {
    throw failure(relPath, problem);
  });
}

async function verifyAgainstTable(dir: string, table: FileTable): Promise<void> {
  for (const [relPath, problem] of table.problems()) throw failure(relPath, problem);
  const listed = await manifestAgainstTable(dir, table);
  await folderAgainstTable(dir, table, listed);
}

/**
 * The manifest, an entry at a time, against the table: the same files with the same sizes and
 * hashes. Returns which table slots it names (1) and which not (0).
 */
async function manifestAgainstTable(dir: string, table: FileTable): Promise<Uint8Array> {
  const manifestRel = paths.manifest();
  let listed: Uint8Array;
  let problem: CalfeedError | undefined;
  try {
    ({ result: listed } = await scanManifest(path.join(dir, manifestRel), () => {
      const seen = new Uint8Array(table.slotCount());
      let twice: string | undefined;
      let wrong: CalfeedError | undefined;
      return {
        add: (entry) => {
          if (wrong !== undefined || twice !== undefined) return;
          const slot = entry.path === manifestRel ? -1 : table.slotOf(entry.path);
          if (slot < 0) {
            wrong = failure(entry.path, `it is listed in ${manifestRel} but was never staged`);
          } else if (seen[slot] === 1) {
            twice = entry.path;
          } else if (!table.matches(entry.path, entry.bytes, entry.sha256)) {
            const size = table.sizeOf(entry.path);
            wrong = failure(
              entry.path,
              size === entry.bytes
                ? `its SHA-256 in ${manifestRel} differs from what was staged`
                : `${manifestRel} says ${entry.bytes} bytes, ${size} were staged`,
            );
          } else {
            seen[slot] = 1;
          }
        },
        done: () => {
          if (twice !== undefined) throw failure(manifestRel, `it lists ${twice} twice`);
          problem = wrong;
          return seen;
        },
      };
    }));
  } catch (error) {
    throw failure(manifestRel, unscanned(error));
  }
  if (problem !== undefined) throw problem;
  for (const relPath of table.unseen(listed)) {
    if (relPath !== manifestRel) throw failure(relPath, `it was staged but is not listed in ${manifestRel}`);
  }

  return listed;
}

/**
 * The folder: only regular files, each listed and of its listed size (a file replaced or appended
 * to since it was staged is not).
 */
async function folderAgainstTable(dir: string, table: FileTable, listed: Uint8Array): Promise<void> {
  const manifestRel = paths.manifest();
  const onDisk = new Uint8Array(table.slotCount());
  for await (const file of walkFiles(dir)) {
    if (!file.regular) throw failure(file.rel, 'it is not a regular file (a symlink or special file)');
    const slot = table.slotOf(file.rel);
    if (slot < 0 || (file.rel !== manifestRel && listed[slot] !== 1)) throw failure(file.rel, `it is on disk but not listed in ${manifestRel}`);
    onDisk[slot] = 1;
    // Synchronous: cheaper than a promise per file.
    const size = lstatSync(file.abs).size;
    const expected = table.sizeAt(slot);
    if (size !== expected) throw failure(file.rel, `it has ${size} bytes, the manifest says ${expected}`);
  }
  for (const relPath of table.unseen(onDisk)) throw failure(relPath, `it is listed in ${manifestRel} but missing on disk`);
}

/** Where a check of a folder by reading says what is wrong; it may throw to stop at the first. */
type Report = (relPath: string, problem: string) => void;

/**
 * What is wrong with a published folder, checked against its own manifest as `calfeed verify`
 * does: every file listed is there with its size and SHA-256 and passes the content checks, and
 * nothing else is there but top-level dot files (.gitkeep, .nojekyll: publish keeps them). The
 * first `max` problems, and how many there are.
 */
export async function verifyPublished(dir: string, max = 20): Promise<{ files: number; problems: Array<{ path: string; problem: string }>; total: number }> {
  const problems: Array<{ path: string; problem: string }> = [];
  let total = 0;
  const files = await checkByReading(
    dir,
    (relPath, problem) => {
      total++;
      if (problems.length < max) problems.push({ path: relPath, problem });
    },
    (file) => /^\.[^/]*$/.test(file.rel) && file.regular,
  );
  return { files, problems, total };
}

// Reads the manifest, then every file of the folder, each checked against it; returns how many
// files the manifest lists (0 when it could not be read).
async function checkByReading(dir: string, report: Report, skip?: (file: WalkEntry) => boolean): Promise<number> {
  const manifestRel = paths.manifest();
  const expected = await manifestTable(dir, report);
  if (expected === undefined) return 0;
  const seen = new Uint8Array(expected.slotCount());
  // The listed files of the walk, each read by one of 16 checks at once.
  const listedFiles = async function* (): AsyncGenerator<WalkEntry> {
    for await (const file of walkFiles(dir)) {
      if (file.rel === manifestRel || skip?.(file)) continue;
      const listed = file.regular ? expected.slotOf(file.rel) : -1;
      if (!file.regular) report(file.rel, 'it is not a regular file (a symlink or special file)');
      else if (listed < 0) report(file.rel, `it is on disk but not listed in ${manifestRel}`);
      else {
        seen[listed] = 1;
        yield file;
      }
    }
  };
  await eachAtOnce(listedFiles(), 16, (file) => checkFile(file.rel, file.abs, expected.get(file.rel)!, report));
  for (const relPath of expected.unseen(seen)) report(relPath, `it is listed in ${manifestRel} but missing on disk`);
  return expected.size;
}

/** The manifest of a folder as a table; duplicates and an unreadable manifest are reported (undefined then). */
async function manifestTable(dir: string, report: Report): Promise<FileTable | undefined> {
  const manifestRel = paths.manifest();
  try {
    return (await scanManifest(path.join(dir, manifestRel), () => {
      const table = new FileTable();
      const twice: string[] = [];
      return {
        add: (entry) => {
          if (table.has(entry.path)) twice.push(entry.path);
          else table.set(entry.path, entry.bytes, entry.sha256);
        },
        done: () => {
          for (const relPath of twice) report(manifestRel, `it lists ${relPath} twice`);
          return table;
        },
      };
    })).result;
  } catch (error) {
    report(manifestRel, unscanned(error));
    return undefined;
  }
}

// Why the manifest could not be scanned; a failure verify raised itself while scanning goes on as it is.
function unscanned(error: unknown): string {
  if (error instanceof CalfeedError && error.message.startsWith(`Output check failed for ${paths.manifest()}`)) throw error;
  return errno(error) === 'ENOENT' ? 'it is missing' : (error as Error).message;
}

async function checkFile(relPath: string, abs: string, entry: { bytes: number; sha256: string }, report: Report): Promise<void> {
  const bytes = await readFile(abs);
  if (bytes.length !== entry.bytes) return report(relPath, `it has ${bytes.length} bytes, the manifest says ${entry.bytes}`);
  if (sha256(bytes) !== entry.sha256) return report(relPath, 'its SHA-256 differs from the manifest');
  const problem = contentProblem(relPath, bytes);
  if (problem !== undefined) report(relPath, problem);
}
