// Whether --out is still exactly what a build published: its manifest.json has the bytes recorded
// then, every file it lists is there with its listed size (the standard a kept file is held to),
// and nothing else is (top-level dot files aside). Then a rebuild may leave --out as it is.

import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { paths } from '../paths.js';
import { errno } from './fs-util.js';
import type { PublishedManifest } from './published-manifest.js';

/** SHA-256 (hex) of --out's manifest.json, read as a stream; undefined when there is none. */
export async function manifestSha256(outDir: string): Promise<string | undefined> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(path.join(outDir, paths.manifest()))) hash.update(chunk as Buffer);
  } catch (error) {
    if (errno(error) === 'ENOENT' || errno(error) === 'ENOTDIR') return undefined;
    throw error;
  }
  return hash.digest('hex');
}

/** Why --out is not as published with a manifest.json of SHA-256 `manifest` (a short reason), if so. */
export async function outputDiffers(published: PublishedManifest, manifest: string): Promise<string | undefined> {
  const read = await published.read();
  if (read.found === 'unreadable') return `its ${paths.manifest()} is unreadable (${errno(read.error) ?? String(read.error)})`;
  if (read.found === 'none') return `it has no ${paths.manifest()}`;
  if (read.sha256 !== manifest) return `its ${paths.manifest()} is not the one the last build published`;
  return filesDiffer(published);
}

/**
 * Why --out's files are not exactly those its manifest.json lists, each with its listed size (a
 * short reason), or undefined when they are; then `published.foundAsListed` is set.
 */
export async function filesDiffer(published: PublishedManifest): Promise<string | undefined> {
  const { outDir } = published;
  const read = await published.read();
  if (read.found !== 'read') return `it has no readable ${paths.manifest()}`;
  if ('error' in read.listing) return `its ${paths.manifest()} cannot be read (${(read.listing.error as Error).message})`;
  const listed = read.listing.files;
  let found = 0;
  let differs: string | undefined;
  // Depth first, synchronously: tens of thousands of small folders, read as fast as the kernel answers.
  const walk = (rel: string): void => {
    for (const entry of readdirSync(rel ? path.join(outDir, rel) : outDir, { withFileTypes: true })) {
      if (differs !== undefined) return;
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        walk(relPath);
        continue;
      }
      const bytes = listed.sizeOf(relPath);
      if (bytes === undefined) {
        const harmless = !rel && entry.isFile() && (entry.name === paths.manifest() || entry.name.startsWith('.'));
        if (!harmless) differs = `${relPath} is not in its ${paths.manifest()}`;
        continue;
      }
      if (!entry.isFile() || lstatSync(path.join(outDir, relPath)).size !== bytes) {
        differs = `${relPath} is not as published`;
        return;
      }
      found++;
    }
  };
  try {
    walk('');
  } catch (error) {
    return `it cannot be read (${errno(error) ?? String(error)})`;
  }
  if (differs !== undefined) return differs;
  if (found !== listed.size) return `${listed.size - found} of the files its ${paths.manifest()} lists are missing`;
  published.foundAsListed = true;
  return undefined;
}
