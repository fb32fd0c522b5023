// The overwrite guard: publishing replaces --out as a whole, so a folder that does not look like
// calfeed output is refused before anything is staged, and again just before the commit.

import { lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { paths } from '../paths.js';
import { errno, readHead } from './fs-util.js';
import { HEADERS_FIRST_LINE } from './headers.js';
import { isCalfeedHead } from './manifest-read.js';
import type { PublishedManifest } from './published-manifest.js';

/** Refuse an --out that is not calfeed output: a typo such as `--out ~` must not delete a home folder. */
export async function assertReplaceable(outDir: string, published?: PublishedManifest): Promise<void> {
  let entries: string[];
  try {
    const info = await stat(outDir);
    if (!info.isDirectory()) {
      throw new ConfigError(`The output path ${outDir} exists and is not a folder. Choose another --out or remove it.`);
    }
    entries = await readdir(outDir);
  } catch (error) {
    if (errno(error) === 'ENOENT') return;
    throw error;
  }
  if (await isCalfeedOutput(outDir, entries, published)) return;
  const foreign: string[] = [];
  for (const name of entries) if (!(await isHarmless(outDir, name))) foreign.push(name);
  if (foreign.length === 0) return;
  const shown = foreign.slice(0, 8).map((name) => JSON.stringify(name)).join(', ') + (foreign.length > 8 ? ` and ${foreign.length - 8} more` : '');
  const why = entries.includes(paths.manifest())
    ? `its ${paths.manifest()} was not written by calfeed (a web app's manifest, say)`
    : `it has no ${paths.manifest()}`;
  throw new ConfigError(
    `Refusing to replace ${outDir}: it is not empty and ${why}, so it does not look like calfeed output. ` +
      `Publishing would delete ${shown}. calfeed replaces --out as a whole; choose a new or empty folder, or remove this one.`,
  );
}

// An output folder may hold top-level dot files besides calfeed's own (git's .gitkeep and
// .gitignore, GitHub Pages' .nojekyll, macOS's .DS_Store) without being "somebody else's folder";
// publish carries them over. A dot *folder* such as .git is foreign.
async function isHarmless(outDir: string, name: string): Promise<boolean> {
  if (!name.startsWith('.')) return false;
  try {
    return (await lstat(path.join(outDir, name))).isFile();
  } catch {
    return false;
  }
}

// calfeed's manifest.json, or (when that was damaged by hand) calfeed's _headers: either says the
// folder is calfeed output. A web app's manifest.json says nothing.
async function isCalfeedOutput(outDir: string, entries: readonly string[], published: PublishedManifest | undefined): Promise<boolean> {
  if (entries.includes(paths.manifest()) && isCalfeedHead((await manifestHead(outDir, published)) ?? '')) return true;
  return entries.includes(paths.headers()) && (await readHead(path.join(outDir, paths.headers()), 256))?.startsWith(HEADERS_FIRST_LINE + '\n') === true;
}

async function manifestHead(outDir: string, published: PublishedManifest | undefined): Promise<string | undefined> {
  if (published === undefined) return readHead(path.join(outDir, paths.manifest()), 512);
  const read = await published.read();
  return read.found === 'read' ? read.head : undefined;
}
