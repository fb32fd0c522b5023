// The last check before publishing: what subscribers would get must parse, and the manifest must
// describe exactly the files on disk. A failure here leaves --out untouched.

import { isUtf8 } from 'node:buffer';
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { CalfeedError } from '../errors.js';
import { paths } from '../paths.js';
import { isJsonPath, isXmlPath, kindOf } from './content-types.js';
import { Limiter, sha256, walkFiles } from './fs-util.js';
import { FileTable } from './file-table.js';
import { scanManifest } from './manifest.js';
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
  // The manifest is read an entry at a time into a compact table (at 100,000 events it lists
  // 300,000 files: 75 MB of text, several times that as parsed objects).
  let expected: FileTable;
  try {
    ({ result: expected } = await scanManifest(path.join(dir, manifestRel), () => {
      const table = new FileTable();
      let twice: string | undefined;
      return {
        add: (entry) => {
          if (table.has(entry.path)) twice ??= entry.path;
          else table.set(entry.path, entry.bytes, entry.sha256);
        },
        done: () => {
          if (twice !== undefined) throw failure(manifestRel, `it lists ${twice} twice`);
          return table;
        },
      };
    }));
  } catch (error) {
    if (error instanceof CalfeedError && error.message.startsWith(`Output check failed for ${manifestRel}`)) throw error;
    const problem = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'it is missing' : (error as Error).message;
    throw failure(manifestRel, problem);
  }

  const staged = options.staged;
  const table = staged instanceof FileTable ? staged : undefined;
  // At most 16 checks at once, and the walk waits for a free slot: no promise per file is kept.
  const limit = 16;
  let running = 0;
  let firstFailure: unknown;
  let slotFreed: (() => void) | undefined;
  const run = (task: () => Promise<void>): void => {
    running++;
    task()
      .catch((error: unknown) => {
        firstFailure ??= error;
      })
      .finally(() => {
        running--;
        const wake = slotFreed;
        slotFreed = undefined;
        wake?.();
      });
  };
  const slot = async (below: number): Promise<void> => {
    while (running > below) await new Promise<void>((resolve) => (slotFreed = resolve));
  };
  for await (const file of walkFiles(dir)) {
    if (!file.regular) throw failure(file.rel, 'it is not a regular file (a symlink or special file)');
    if (file.rel === manifestRel) continue;
    if (!expected.mark(file.rel)) throw failure(file.rel, `it is on disk but not listed in ${manifestRel}`);
    const entry = expected.get(file.rel)!;
    const trusted = table
      ? !table.changed(file.rel) && table.matches(file.rel, entry.bytes, entry.sha256)
      : isTrusted(staged?.get(file.rel), entry);
    await slot(limit - 1);
    run(() => (trusted ? checkSize(file.rel, file.abs, entry) : checkFile(file.rel, file.abs, entry)));
  }
  await slot(0);
  if (firstFailure !== undefined) throw firstFailure;
  for (const listed of expected.unmarked()) throw failure(listed, `it is listed in ${manifestRel} but missing on disk`);
}

function isTrusted(known: { bytes: number; sha256: string; changed: boolean } | undefined, entry: { bytes: number; sha256: string }): boolean {
  return known !== undefined && !known.changed && known.sha256 === entry.sha256 && known.bytes === entry.bytes;
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
  // The combined calendar.ics reaches 100 MB at 100,000 events: check it on its bytes, without a
  // (two-byte, 200 MB) string and an array of every line; the text is decoded only to word a problem.
  if (ical && isUtf8(bytes) && icalBytesOk(bytes)) return undefined;
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

const CR = 0x0d;
const LF = 0x0a;
const ICAL_HEAD = Buffer.from('BEGIN:VCALENDAR\r\n');
const ICAL_TAIL = Buffer.from('END:VCALENDAR\r\n');

/** True only when icalProblem() would find nothing in these (UTF-8) bytes; false means "ask icalProblem". */
function icalBytesOk(data: Uint8Array): boolean {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (!bytes.subarray(0, ICAL_HEAD.length).equals(ICAL_HEAD)) return false;
  if (bytes.length < ICAL_TAIL.length || !bytes.subarray(bytes.length - ICAL_TAIL.length).equals(ICAL_TAIL)) return false;
  // Every LF after a CR, and as many CRs as LFs: every line ends in CRLF and no CR stands alone.
  let crs = 0;
  for (let i = bytes.indexOf(CR); i >= 0; i = bytes.indexOf(CR, i + 1)) crs++;
  let lfs = 0;
  const open: string[] = [];
  let start = 0;
  for (let lf = bytes.indexOf(LF); lf >= 0; lf = bytes.indexOf(LF, lf + 1)) {
    lfs++;
    if (lf === 0 || bytes[lf - 1] !== CR) return false;
    const first = bytes[start]! | 0x20; // lower-cased ASCII letter
    if ((first === 0x62 /* b */ || first === 0x65) /* e */ && lf - 1 > start) {
      const line = bytes.toString('utf8', start, lf - 1);
      const begin = /^BEGIN:(.+)$/i.exec(line);
      const end = begin ? null : /^END:(.+)$/i.exec(line);
      if (begin) open.push(begin[1]!.toUpperCase());
      else if (end) {
        if (open.pop() !== end[1]!.toUpperCase()) return false;
        if (open.length === 0 && lf + 1 !== bytes.length) return false;
      }
    }
    start = lf + 1;
  }
  return crs === lfs && open.length === 0;
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
