// --out's manifest.json, read once per build and shared by all that ask about the published site:
// the up-to-date check, the overwrite guard, staging, the shrink guard and the swap. It can be
// large, so the one read hashes it, keeps its first bytes and scans its entries into a compact
// table as the bytes go by.

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { paths } from '../paths.js';
import { LineSplitter } from '../read-lines.js';
import { FileTable } from './file-table.js';
import { errno } from './fs-util.js';
import type { Manifest } from './manifest.js';
import { type ManifestConsumer, manifestLines, scanManifest } from './manifest-read.js';

/** How many first bytes are kept: enough to tell calfeed's manifest from another (isCalfeedHead). */
const HEAD = 512;

/** The manifest without its file list, and the files it lists. */
export interface PublishedListing {
  manifest: Omit<Manifest, 'files'>;
  files: FileTable;
}

/** What the one read of --out's manifest.json found. */
export type PublishedRead =
  /** There is none (ENOENT, ENOTDIR): nothing is published yet. */
  | { found: 'none' }
  /** It could not be read. */
  | { found: 'unreadable'; error: unknown }
  /** Its SHA-256 (hex), its first bytes (UTF-8), and its entries or why they cannot be taken from it. */
  | { found: 'read'; sha256: string; head: string; listing: PublishedListing | { error: unknown } };

/** --out's manifest.json, read when first asked for, once. */
export class PublishedManifest {
  private reading: Promise<PublishedRead> | undefined;
  /**
   * Set by filesDiffer (intact.ts) when it found every file listed on disk with its listed size and nothing
   * else: the files need not be looked at again one by one this build (which holds the lock).
   */
  foundAsListed = false;

  constructor(readonly outDir: string) {}

  read(): Promise<PublishedRead> {
    this.reading ??= readOnce(path.join(this.outDir, paths.manifest()));
    return this.reading;
  }
}

function tableOfFiles(): ManifestConsumer<FileTable> {
  const table = new FileTable();
  return { add: (f) => table.set(f.path, f.bytes, f.sha256), done: () => table };
}

async function readOnce(file: string): Promise<PublishedRead> {
  const hash = createHash('sha256');
  const head = Buffer.alloc(HEAD);
  let headBytes = 0;
  const lines = manifestLines(tableOfFiles());
  const splitter = new LineSplitter(lines.line, lines.maxPartial);
  let inLayout = true;
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      if (headBytes < HEAD) headBytes += chunk.copy(head, headBytes);
      if (inLayout) inLayout = splitter.push(chunk);
    }
  } catch (error) {
    if (errno(error) === 'ENOENT' || errno(error) === 'ENOTDIR') return { found: 'none' };
    return { found: 'unreadable', error };
  }
  let listing: PublishedListing | { error: unknown };
  try {
    // A manifest in another layout (edited by hand) is read again, whole, as scanManifest does.
    const scanned = (inLayout ? lines.end(splitter.end()) : undefined) ?? (await scanManifest(file, tableOfFiles));
    listing = { manifest: scanned.manifest, files: scanned.result };
  } catch (error) {
    listing = { error };
  }
  return { found: 'read', sha256: hash.digest('hex'), head: head.subarray(0, headBytes).toString('utf8'), listing };
}
