// rendered.json in the cache folder: for each group of files rendered together (a calendar's own
// files, the combined feeds, ...), the fingerprint of what they were rendered from, until when what
// they took from "now" holds, and the SHA-256 of each file as published. A rebuild keeps a group's
// published files only when all still match (see src/pipeline/calendar-files.ts), so this file can only ever save work: a missing, corrupt or
// stale one (say, a build killed between publishing and saving it) means those files are rendered.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { entryLines, writePiecesAtomic } from '../write-lines.js';

const RENDERED_FILE = 'rendered.json';
const RENDERED_VERSION = 2;

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

/** Load the record of rendered groups; missing or unreadable gives none and a note saying why. */
export async function loadRendered(cacheDir: string): Promise<{ state: RenderedState; note?: string; missing?: true }> {
  let text: string;
  try {
    text = await readFile(join(cacheDir, RENDERED_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: new Map(), note: 'no record of rendered calendar files: rendering them all', missing: true };
    return { state: new Map(), note: `record of rendered calendar files unreadable (${(error as Error).message}): rendering them all` };
  }
  let state: RenderedState | undefined;
  try {
    state = parseRendered(JSON.parse(text));
  } catch {
    state = undefined;
  }
  return state ? { state } : { state: new Map(), note: 'record of rendered calendar files corrupt or from another version: rendering them all' };
}

/** Store the record atomically, one group a line. */
export async function saveRendered(cacheDir: string, state: RenderedState): Promise<void> {
  await writePiecesAtomic(join(cacheDir, RENDERED_FILE), renderedLines(state));
}

function* renderedLines(state: RenderedState): Generator<string> {
  yield `{"version":${RENDERED_VERSION},"groups":{`;
  yield* entryLines(state);
  yield '\n}}\n';
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The state in a parsed rendered.json, or undefined when anything in it is not as saveRendered writes it. */
export function parseRendered(doc: unknown): RenderedState | undefined {
  if (!isRecord(doc) || doc.version !== RENDERED_VERSION || !isRecord(doc.groups)) return undefined;
  const state = new Map<string, RenderedGroup>();
  for (const [name, group] of Object.entries(doc.groups)) {
    if (!isRecord(group) || typeof group.input !== 'string' || !isRecord(group.files)) return undefined;
    if (group.until !== null && !Number.isFinite(group.until)) return undefined;
    // No prototype: a hand-edited path such as "__proto__" must stay an ordinary key.
    const files = Object.create(null) as Record<string, string>;
    for (const [path, sha256] of Object.entries(group.files)) {
      if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) return undefined;
      files[path] = sha256;
    }
    state.set(name, { input: group.input, until: group.until as number | null, files });
  }
  return state;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
