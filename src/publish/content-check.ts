// What a file's bytes must be for its kind: UTF-8 for text, JSON that parses, well-formed XML, a
// plausible iCalendar stream. Staging checks each file on the bytes it holds as it writes them
// (checkOnWrite, or a ChunkCheck for a streamed file), so verify never reads a file back.

import { isUtf8 } from 'node:buffer';
import { isDetailsMirrorPath, isJsonPath, isXmlPath, kindOf } from './content-types.js';
import { bomLength, COLON, isJsonSpace } from '../json-bytes.js';
import { isJsonText, JsonScan } from './json-check.js';
import { xmlProblem } from './xml-check.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Why a file's bytes are not what its kind requires, or undefined. The full check, wording included. */
export function contentProblem(relPath: string, bytes: Uint8Array): string | undefined {
  const json = isJsonPath(relPath);
  const xml = isXmlPath(relPath);
  const ical = kindOf(relPath) === 'ical';
  if (!json && !xml && !ical) return undefined;
  // Large files are checked on their bytes; the text is decoded only to word a problem.
  if (ical && isUtf8(bytes) && new IcalScan().push(bytes).end()) return undefined;
  if (json && isUtf8(bytes) && isJsonText(bytes)) return undefined;
  if (xml) {
    if (!isUtf8(bytes)) return 'it is not valid UTF-8';
    const problem = xmlProblem(bytes);
    return problem === undefined ? undefined : `it is not well-formed XML (${problem})`;
  }
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
  return icalProblem(text);
}

/**
 * The check staging runs on a file whose bytes are new: contentProblem, with two cheaper kinds.
 * - Details mirrors (one per event) were just parsed as JSON by the crawler (src/http/json.ts) or
 *   made by JSON.stringify, so only UTF-8 and their first and last characters are checked (which
 *   catches an HTML error page or a cut-off body).
 * - manifest.json is read back entry by entry by verify (scanManifest), so here only UTF-8.
 */
export function checkOnWrite(relPath: string, bytes: Uint8Array): string | undefined {
  const kind = kindOf(relPath);
  if (kind === 'manifest') return isUtf8(bytes) ? undefined : 'it is not valid UTF-8';
  if (kind === 'mirror' && isDetailsMirrorPath(relPath) && isUtf8(bytes) && looksLikeJson(bytes)) return undefined;
  return contentProblem(relPath, bytes);
}

const CR = 0x0d;
const LF = 0x0a;

/** First and last characters of a JSON text (after an optional BOM); never false for valid JSON. */
function looksLikeJson(bytes: Uint8Array): boolean {
  let i = bomLength(bytes);
  let n = bytes.length;
  while (i < n && isJsonSpace(bytes[i]!)) i++;
  while (n > i && isJsonSpace(bytes[n - 1]!)) n--;
  if (i >= n) return false;
  const first = bytes[i]!;
  const last = bytes[n - 1]!;
  if (first === 0x7b /* { */) return last === 0x7d /* } */;
  if (first === 0x5b /* [ */) return last === 0x5d /* ] */;
  if (first === 0x22 /* " */) return last === 0x22 && n - i >= 2;
  const digit = (b: number): boolean => b >= 0x30 && b <= 0x39;
  // A number or true/false/null: it ends in a digit, 'e' (true, false) or 'l' (null).
  return (first === 0x2d || digit(first) || first === 0x74 || first === 0x66 || first === 0x6e) && (digit(last) || last === 0x65 || last === 0x6c);
}

/**
 * The write-time check of a file that arrives in chunks (Staging.writeChunks), fed every byte in
 * order. iCalendar, JSON and the manifest are checked as they pass, holding nothing; XML files
 * need the whole text to parse and are gathered.
 */
export interface ChunkCheck {
  /** The next bytes; the check copies what it keeps, so the caller may reuse the buffer. */
  push(bytes: Uint8Array): void;
  /** The problem, or undefined. `readBack` returns the whole file, for wording a problem only. */
  finish(readBack: () => Uint8Array): string | undefined;
}

/** The chunk check for a path, or undefined when its kind has nothing to check. */
export function chunkCheckFor(relPath: string): ChunkCheck | undefined {
  const kind = kindOf(relPath);
  if (kind === 'manifest') return new Utf8Only();
  if (kind === 'ical') return new StreamChecked(relPath, new IcalScan());
  if (isJsonPath(relPath)) return new StreamChecked(relPath, new JsonScan());
  if (isXmlPath(relPath)) return new Gathered(relPath);
  return undefined;
}

class Utf8Only implements ChunkCheck {
  private readonly utf8 = new Utf8Stream();
  push(bytes: Uint8Array): void {
    this.utf8.push(bytes);
  }
  finish(): string | undefined {
    return this.utf8.end() ? undefined : 'it is not valid UTF-8';
  }
}

/** UTF-8 and a scan of the kind's syntax, as the bytes pass; contentProblem words what they find. */
class StreamChecked implements ChunkCheck {
  private readonly utf8 = new Utf8Stream();
  constructor(private readonly relPath: string, private readonly scan: { push(bytes: Uint8Array): unknown; end(): boolean }) {}
  push(bytes: Uint8Array): void {
    this.utf8.push(bytes);
    this.scan.push(bytes);
  }
  finish(readBack: () => Uint8Array): string | undefined {
    if (this.utf8.end() && this.scan.end()) return undefined;
    // Something is wrong (or the scan was unsure): the exact check words it, on the whole file.
    return contentProblem(this.relPath, readBack());
  }
}

class Gathered implements ChunkCheck {
  private readonly parts: Buffer[] = [];
  constructor(private readonly relPath: string) {}
  push(bytes: Uint8Array): void {
    this.parts.push(Buffer.from(bytes));
  }
  finish(): string | undefined {
    return checkOnWrite(this.relPath, Buffer.concat(this.parts));
  }
}

/** UTF-8 validity of a byte stream cut anywhere: a character split between chunks is carried over. */
export class Utf8Stream {
  private ok = true;
  private carry: Buffer | undefined;

  push(chunk: Uint8Array): this {
    if (!this.ok || chunk.length === 0) return this;
    let buf: Uint8Array = chunk;
    if (this.carry !== undefined) {
      buf = Buffer.concat([this.carry, chunk]);
      this.carry = undefined;
    }
    // Cut before a last character that is not complete yet (its lead byte says how long it is).
    let cut = buf.length;
    for (let k = 1; k <= 3 && k <= buf.length; k++) {
      const b = buf[buf.length - k]!;
      if ((b & 0xc0) === 0x80) continue;
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
      if (need > k) cut = buf.length - k;
      break;
    }
    if (!isUtf8(cut === buf.length ? buf : buf.subarray(0, cut))) this.ok = false;
    else if (cut < buf.length) this.carry = Buffer.from(buf.subarray(cut));
    return this;
  }

  end(): boolean {
    return this.ok && this.carry === undefined;
  }
}

const ICAL_HEAD = Buffer.from('BEGIN:VCALENDAR\r\n');
const ICAL_TAIL = Buffer.from('END:VCALENDAR\r\n');
const BEGIN_PREFIX = Buffer.from('begin:');
const END_PREFIX = Buffer.from('end:');
/** Longest BEGIN:/END: line the scan words itself; a longer one makes it unsure (ask icalProblem). */
const MAX_MARKER_LINE = 4096;
const UNSURE = -2;

/**
 * One pass over iCalendar bytes, in chunks cut anywhere, holding only the open components and the
 * current BEGIN/END line. end() is true only when icalProblem() would find nothing in these bytes
 * (if they are UTF-8, checked apart); false means "ask icalProblem", which words the problem.
 */
export class IcalScan {
  private ok = true;
  private size = 0;
  private prevCr = false;
  private lineStart = true;
  // The current line while it may still be a BEGIN: or END: line (ASCII, any case).
  private marker = Buffer.allocUnsafe(64);
  private markerLength = -1; // -1: the current line is not a BEGIN:/END: line
  private prefix: Buffer | undefined;
  private readonly open: string[] = [];
  private closed = false; // the outermost component has ended: nothing may follow
  private readonly tail = Buffer.alloc(ICAL_TAIL.length);
  private tailLength = 0;

  push(chunk: Uint8Array): this {
    if (!this.ok) return this;
    const n = chunk.length;
    if (!this.startsRight(chunk)) return this.fail();
    // The state in locals for the loop over every byte; written back before leaving it.
    let prevCr = this.prevCr;
    let lineStart = this.lineStart;
    let markerLength = this.markerLength;
    let ok = true;
    scan: for (let i = 0; i < n; i++) {
      let b = chunk[i]!;
      // Inside a line that is not a BEGIN:/END: line, only its end matters: skip to it.
      if (markerLength < 0 && !lineStart && !prevCr) {
        while (b !== CR && b !== LF) {
          if (++i === n) break scan;
          b = chunk[i]!;
        }
      }
      // Nothing after the outermost END; every CR is followed by an LF and every LF follows a CR.
      if (this.closed || prevCr !== (b === LF)) {
        ok = false;
        break;
      }
      prevCr = b === CR;
      if (b === LF) {
        if (markerLength > 0) {
          this.markerLength = markerLength;
          if (!this.markerLine()) {
            ok = false;
            break;
          }
        }
        lineStart = true;
        markerLength = -1;
        continue;
      }
      if (lineStart) {
        lineStart = false;
        const lower = b | 0x20;
        this.prefix = lower === 0x62 /* b */ ? BEGIN_PREFIX : lower === 0x65 /* e */ ? END_PREFIX : undefined;
        markerLength = this.prefix === undefined ? -1 : 0;
      }
      if (markerLength >= 0 && b !== CR) {
        markerLength = this.markerByte(b, markerLength);
        if (markerLength === UNSURE) {
          ok = false;
          break;
        }
      }
    }
    if (!ok) return this.fail();
    this.prevCr = prevCr;
    this.lineStart = lineStart;
    this.markerLength = markerLength;
    this.size += n;
    this.keepTail(chunk);
    return this;
  }

  end(): boolean {
    return (
      this.ok &&
      this.size >= ICAL_HEAD.length &&
      this.size >= ICAL_TAIL.length &&
      this.tailLength === ICAL_TAIL.length &&
      this.tail.equals(ICAL_TAIL) &&
      this.open.length === 0 &&
      !this.prevCr
    );
  }

  // The chunk's bytes that fall in the first line are BEGIN:VCALENDAR's.
  private startsRight(chunk: Uint8Array): boolean {
    for (let at = this.size; at < ICAL_HEAD.length && at - this.size < chunk.length; at++) {
      if (chunk[at - this.size] !== ICAL_HEAD[at]) return false;
    }
    return true;
  }

  private fail(): this {
    this.ok = false;
    return this;
  }

  // Byte `b` at `length` of a line that may be a BEGIN:/END: line: the line's new length, -1 when
  // it is not such a line after all, UNSURE when it is too long to word here.
  private markerByte(b: number, length: number): number {
    if (length < this.prefix!.length) {
      const want = this.prefix![length]!;
      // Letters in any case (b | 0x20); the colon exactly (0x1a | 0x20 is a colon too).
      if (want === COLON ? b !== COLON : (b | 0x20) !== want) return -1;
    }
    if (length >= MAX_MARKER_LINE) return UNSURE; // icalProblem decides
    if (length >= this.marker.length) {
      const bigger = Buffer.allocUnsafe(this.marker.length * 2);
      this.marker.copy(bigger);
      this.marker = bigger;
    }
    this.marker[length] = b;
    return length + 1;
  }

  // A line that starts "begin:" or "end:" in any case: the same regular expressions as icalProblem.
  private markerLine(): boolean {
    const line = this.marker.toString('utf8', 0, this.markerLength);
    const begin = /^BEGIN:(.+)$/i.exec(line);
    const end = begin ? null : /^END:(.+)$/i.exec(line);
    if (begin) this.open.push(begin[1]!.toUpperCase());
    else if (end) {
      if (this.open.pop() !== end[1]!.toUpperCase()) return false;
      if (this.open.length === 0) this.closed = true;
    }
    return true;
  }

  private keepTail(chunk: Uint8Array): void {
    const t = ICAL_TAIL.length;
    if (chunk.length >= t) {
      this.tail.set(chunk.subarray(chunk.length - t));
      this.tailLength = t;
      return;
    }
    const keep = Math.min(this.tailLength, t - chunk.length);
    this.tail.copyWithin(0, this.tailLength - keep, this.tailLength);
    this.tail.set(chunk, keep);
    this.tailLength = keep + chunk.length;
  }
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
