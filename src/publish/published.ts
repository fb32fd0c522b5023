// What --out holds, as staging compares new files with it: its manifest.json's table (path, size,
// SHA-256) and each published copy's size on disk, so no published file has to be read back.

import { lstatSync, readFileSync } from 'node:fs';
import { FileTable } from './file-table.js';
import { errno } from './fs-util.js';
import type { Manifest } from './manifest.js';
import type { PublishedRead } from './published-manifest.js';

/** Published files by path (from --out's manifest), or 'unknown' when the manifest cannot be read. */
export type PublishedIndex = FileTable | 'unknown';

/** What staging compares with: --out's manifest as a table, and without its file list when there was one. */
export function publishedIndexOf(read: PublishedRead): { index: PublishedIndex; manifest?: Omit<Manifest, 'files'> } {
  // No manifest: assertReplaceable() allows that only for a missing or (dot-files only) empty
  // --out, so no output file is published yet.
  if (read.found === 'none') return { index: new FileTable() };
  // Unreadable or damaged: fall back to comparing bytes.
  if (read.found === 'unreadable' || 'error' in read.listing) return { index: 'unknown' };
  return { index: read.listing.files, manifest: read.listing.manifest };
}

/** The files `listing` (--out's manifest) has and `next` (the new output) does not: those the new output drops. */
export function* dropped(listing: ReadonlyMap<string, unknown>, next: ReadonlyMap<string, unknown>): Generator<string> {
  for (const relPath of listing.keys()) if (!next.has(relPath)) yield relPath;
}

/** Size of a regular file (lstat: a symlink does not count), or -1 when it is missing or not one. */
export function publishedSize(file: string): number {
  try {
    const info = lstatSync(file);
    return info.isFile() ? info.size : -1;
  } catch (error) {
    const code = errno(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return -1;
    throw error;
  }
}

/** Listed in the manifest with this hash, and still on disk with that size (not deleted by hand). */
export function listedSame(index: FileTable, relPath: string, published: string, size: number, hash: string | Uint8Array): boolean {
  return index.matches(relPath, size, hash) && publishedSize(published) === size;
}

/** Whether the published copy has these bytes; it is read only when the sizes match. */
export function sameBytes(published: string, bytes: Uint8Array): boolean {
  if (publishedSize(published) !== bytes.length) return false;
  try {
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).equals(readFileSync(published));
  } catch (error) {
    const code = errno(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}
