// In the build store, per group of files rendered together (a calendar's own files, the combined
// feeds, ...): what they were rendered from, until when, and each file's SHA-256 as published. A
// rebuild keeps the files only when all still match (calendar-files.ts); a stale record costs a render.

import { isObject } from '../normalize/record.js';

export interface RenderedGroup {
  /** Fingerprint of the inputs the files were rendered from. */
  input: string;
  /** Until when what they took from "now" holds (epoch ms; null: for good). */
  until: number | null;
  /** Output path -> SHA-256 (hex) of the file as staged. */
  files: Readonly<Record<string, string>>;
}

/** Rendered groups by name. */
export type RenderedState = ReadonlyMap<string, RenderedGroup>;

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A rendered group as the build store holds it, or undefined when it is not one. */
export function parseGroup(group: unknown): RenderedGroup | undefined {
  if (!isObject(group) || typeof group.input !== 'string' || !isObject(group.files)) return undefined;
  if (group.until !== null && !Number.isFinite(group.until)) return undefined;
  // No prototype: a hand-edited path such as "__proto__" must stay an ordinary key.
  const files = Object.create(null) as Record<string, string>;
  for (const [path, sha256] of Object.entries(group.files)) {
    if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) return undefined;
    files[path] = sha256;
  }
  return { input: group.input, until: group.until as number | null, files };
}
