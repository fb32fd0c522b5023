// Helpers to look at an output folder on disk.
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/** Every file below dir, as POSIX paths relative to dir, sorted. */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(d: string): Promise<void> {
    for (const entry of await readdir(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) await walk(full);
      else out.push(relative(dir, full).split(sep).join('/'));
    }
  }
  await walk(dir);
  return out.sort();
}

/** path -> sha256 and mtime of every file below dir. */
export async function snapshotTree(dir: string): Promise<Map<string, { sha256: string; mtimeMs: number }>> {
  const result = new Map<string, { sha256: string; mtimeMs: number }>();
  for (const file of await listFiles(dir)) {
    const full = join(dir, file);
    const [data, info] = await Promise.all([readFile(full), stat(full)]);
    result.set(file, { sha256: createHash('sha256').update(data).digest('hex'), mtimeMs: info.mtimeMs });
  }
  return result;
}

/** Every file below dir (POSIX paths relative to dir) and its inode: a file kept as it was (hard-linked) keeps it. */
export async function fileInodes(dir: string): Promise<Map<string, number>> {
  const result = new Map<string, number>();
  for (const file of await listFiles(dir)) result.set(file, (await stat(join(dir, file))).ino);
  return result;
}
