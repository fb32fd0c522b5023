// The last check before publishing: what subscribers would get must parse, and the manifest must
// describe exactly the files on disk. A failure here leaves --out untouched.

import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { CalfeedError } from '../errors.js';
import { paths } from '../paths.js';
import { isJsonPath, isXmlPath, kindOf } from './content-types.js';
import { Limiter, sha256, walkFiles } from './fs-util.js';
import { type Manifest, parseManifest } from './manifest.js';
import { xmlProblem } from './xml-check.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

function failure(relPath: string, problem: string): CalfeedError {
  return new CalfeedError(
    'BUILD',
    `Output check failed for ${relPath}: ${problem}. Nothing was published; the previous output is unchanged. ` +
      'This is a bug in calfeed or in a template; please report it with this message.',
  );
}

export interface VerifyOptions {
  /**
   * What staging recorded per file. Files it kept unchanged (hard links to the published copy,
   * matched by SHA-256 and size against the published manifest when staged, and checked when they
   * were first published) are checked
   * by size only, so an unchanged rebuild does not re-read the whole site.
   */
  staged?: ReadonlyMap<string, { bytes: number; sha256: string; changed: boolean }>;
}

/** Check a staged folder before publishing; throws CalfeedError('BUILD') naming the first bad file. */
export async function verifyStaging(dir: string, options: VerifyOptions = {}): Promise<void> {
  const manifestRel = paths.manifest();
  let manifest: Manifest;
  try {
    manifest = parseManifest(await readFile(path.join(dir, manifestRel), 'utf8'));
  } catch (error) {
    const problem = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'it is missing' : (error as Error).message;
    throw failure(manifestRel, problem);
  }
  const expected = new Map<string, { bytes: number; sha256: string }>();
  for (const entry of manifest.files) {
    if (expected.has(entry.path)) throw failure(manifestRel, `it lists ${entry.path} twice`);
    expected.set(entry.path, entry);
  }

  const io = new Limiter(16);
  const checks: Array<Promise<void>> = [];
  // Each check's failure is caught at once, so none is left unhandled if the walk throws first.
  let firstFailure: unknown;
  const seen = new Set<string>();
  for await (const file of walkFiles(dir)) {
    if (!file.regular) throw failure(file.rel, 'it is not a regular file (a symlink or special file)');
    if (file.rel === manifestRel) continue;
    const entry = expected.get(file.rel);
    if (entry === undefined) throw failure(file.rel, `it is on disk but not listed in ${manifestRel}`);
    seen.add(file.rel);
    const known = options.staged?.get(file.rel);
    const trusted = known !== undefined && !known.changed && known.sha256 === entry.sha256 && known.bytes === entry.bytes;
    checks.push(
      io.run(() => (trusted ? checkSize(file.rel, file.abs, entry) : checkFile(file.rel, file.abs, entry))).catch((error: unknown) => {
        firstFailure ??= error;
      }),
    );
  }
  await Promise.all(checks);
  if (firstFailure !== undefined) throw firstFailure;
  for (const listed of expected.keys()) {
    if (!seen.has(listed)) throw failure(listed, `it is listed in ${manifestRel} but missing on disk`);
  }
}

async function checkSize(relPath: string, abs: string, entry: { bytes: number }): Promise<void> {
  const size = (await lstat(abs)).size;
  if (size !== entry.bytes) throw failure(relPath, `it has ${size} bytes, the manifest says ${entry.bytes}`);
}

async function checkFile(relPath: string, abs: string, entry: { bytes: number; sha256: string }): Promise<void> {
  const bytes = await readFile(abs);
  if (bytes.length !== entry.bytes) throw failure(relPath, `it has ${bytes.length} bytes, the manifest says ${entry.bytes}`);
  if (sha256(bytes) !== entry.sha256) throw failure(relPath, 'its SHA-256 differs from the manifest');
  const problem = contentProblem(relPath, bytes);
  if (problem !== undefined) throw failure(relPath, problem);
}

/** Why a file's bytes are not what its kind requires, or undefined. */
export function contentProblem(relPath: string, bytes: Uint8Array): string | undefined {
  const json = isJsonPath(relPath);
  const xml = isXmlPath(relPath);
  const ical = kindOf(relPath) === 'ical';
  if (!json && !xml && !ical) return undefined;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return 'it is not valid UTF-8';
  }
  if (json) {
    try {
      // A BOM is tolerated: the mirror keeps the portal's bytes, and browsers' JSON decoding skips it.
      JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
      return undefined;
    } catch (error) {
      return `it is not valid JSON (${(error as Error).message})`;
    }
  }
  if (xml) {
    const problem = xmlProblem(text);
    return problem === undefined ? undefined : `it is not well-formed XML (${problem})`;
  }
  return icalProblem(text);
}

/** Why text is not a plausible iCalendar stream (framing, CRLF, balanced components), or undefined. */
export function icalProblem(text: string): string | undefined {
  if (!text.startsWith('BEGIN:VCALENDAR\r\n')) return 'it does not start with BEGIN:VCALENDAR and CRLF';
  if (!text.endsWith('END:VCALENDAR\r\n')) return 'it does not end with END:VCALENDAR and CRLF';
  const bareLf = /(?<!\r)\n/.exec(text);
  if (bareLf) return `line ending without CR at offset ${bareLf.index} (RFC 5545 requires CRLF)`;
  const bareCr = /\r(?!\n)/.exec(text);
  if (bareCr) return `CR without LF at offset ${bareCr.index}`;
  const open: string[] = [];
  const lines = text.split('\r\n');
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    const begin = /^BEGIN:(.+)$/i.exec(line);
    const end = /^END:(.+)$/i.exec(line);
    if (begin) open.push(begin[1]!.toUpperCase());
    else if (end) {
      const name = end[1]!.toUpperCase();
      const top = open.pop();
      if (top !== name) return `line ${n + 1}: END:${name} closes ${top === undefined ? 'nothing' : `BEGIN:${top}`}`;
      if (open.length === 0 && n !== lines.length - 2) return `line ${n + 2}: content after END:VCALENDAR`;
    }
  }
  if (open.length > 0) return `BEGIN:${open[open.length - 1]} is never closed`;
  return undefined;
}
