// Whether bytes are JSON, without making its values (JSON.parse of a large event list makes its
// text and every object at once, only to throw them away). One walk over the bytes, holding only
// the open brackets; it answers as JSON.parse would (any depth), and JSON.parse words a "no".

import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE, bomLength, skipJsonSpace as space } from '../json-bytes.js';

const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NULL = Buffer.from('null');
// Characters a backslash may escape, besides u: " \ / b f n r t.
const ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

/** True when `b` (valid UTF-8, an optional BOM first) is one JSON text JSON.parse accepts. */
export function isJsonText(b: Uint8Array): boolean {
  return new JsonScan().push(b).end();
}

// Returned by a token's scan that reached the end of the bytes: the token may go on in the next chunk.
const MORE = -2;
// What the scan expects next: a value; a value or `]` (just after `[`); a member's key; a key or
// `}` (just after `{`); what follows a value (`,`, a close, or the end of the text).
const VALUE = 0;
const FIRST_VALUE = 1;
const KEY = 2;
const FIRST_KEY = 3;
const AFTER = 4;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const SPACE = Buffer.from(' ');

/** isJsonText over bytes in chunks cut anywhere, holding the open brackets and a token cut in two. */
export class JsonScan {
  private readonly open: number[] = [];
  private state = VALUE;
  private ok = true;
  private started = false;
  private carry: Buffer | undefined;

  push(chunk: Uint8Array): this {
    if (!this.ok) return this;
    const b = this.carry === undefined ? chunk : Buffer.concat([this.carry, chunk]);
    this.carry = undefined;
    let i = 0;
    if (!this.started) {
      // A byte-order mark may be cut too.
      if (b.length < BOM.length && BOM.subarray(0, b.length).equals(b)) {
        this.carry = Buffer.from(b);
        return this;
      }
      this.started = true;
      i = bomLength(b);
    }
    const at = this.scan(b, i);
    if (at < 0) this.ok = false;
    else if (at < b.length) this.carry = Buffer.from(b.subarray(at));
    return this;
  }

  /** After the last chunk: whether the bytes were one JSON text. */
  end(): boolean {
    // A space ends a number or literal that ends the text; a token still cut is not JSON.
    this.push(SPACE);
    return this.ok && this.carry === undefined && this.state === AFTER && this.open.length === 0;
  }

  /** Where the bytes not taken yet start (a token cut at the end), or -1 when they are not JSON. */
  private scan(b: Uint8Array, i: number): number {
    const open = this.open;
    for (;;) {
      i = space(b, i);
      if (i === b.length) return i;
      const c = b[i]!;
      const state = this.state;
      if (state === FIRST_VALUE || state === FIRST_KEY) {
        if (c === open[open.length - 1]) {
          open.pop();
          i++;
          this.state = AFTER;
        } else this.state = state === FIRST_KEY ? KEY : VALUE;
        continue;
      }
      if (state === AFTER) {
        const close = open[open.length - 1];
        if (close === undefined) return -1;
        if (c === close) open.pop();
        else if (c === COMMA) this.state = close === CLOSE_OBJECT ? KEY : VALUE;
        else return -1;
        i++;
        continue;
      }
      if (state === VALUE && (c === OPEN_OBJECT || c === OPEN_ARRAY)) {
        open.push(c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY);
        this.state = c === OPEN_OBJECT ? FIRST_KEY : FIRST_VALUE;
        i++;
        continue;
      }
      const end = state === KEY ? key(b, i) : c === QUOTE ? stringEnd(b, i) : scalarEnd(b, i);
      if (end === MORE) return i;
      if (end < 0) return -1;
      this.state = state === KEY ? VALUE : AFTER;
      i = end;
    }
  }
}

/** After a member's key and colon, -1, or MORE. */
function key(b: Uint8Array, i: number): number {
  if (b[i] !== QUOTE) return -1;
  i = stringEnd(b, i);
  if (i < 0) return i;
  i = space(b, i);
  return i === b.length ? MORE : b[i] === COLON ? i + 1 : -1;
}

/** After the string at i, -1 or MORE: no control characters, only JSON's escapes. */
function stringEnd(b: Uint8Array, i: number): number {
  for (let j = i + 1; j < b.length; ) {
    const c = b[j]!;
    if (c === QUOTE) return j + 1;
    if (c < 0x20) return -1;
    if (c !== BACKSLASH) {
      j++;
      continue;
    }
    if (j + 6 > b.length && (j + 1 === b.length || b[j + 1] === 0x75)) return MORE;
    const e = b[j + 1];
    if (e === 0x75 /* u */) {
      for (let k = j + 2; k < j + 6; k++) if (!isHex(b[k])) return -1;
      j += 6;
    } else if (e !== undefined && ESCAPES.has(e)) j += 2;
    else return -1;
  }
  return MORE;
}

function isHex(c: number | undefined): boolean {
  return c !== undefined && ((c >= ZERO && c <= NINE) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46));
}

/** After the number or literal at i, -1, or MORE (a number is cut unless something follows it). */
function scalarEnd(b: Uint8Array, i: number): number {
  const c = b[i];
  let e = i;
  while (e < b.length && (isDigit(b[e]) || b[e] === MINUS || b[e] === DOT || b[e] === 0x2b || b[e] === 0x65 || b[e] === 0x45)) e++;
  if (e === b.length && c !== 0x74 && c !== 0x66 && c !== 0x6e) return MORE;
  if (c === 0x74) return literal(b, i, TRUE);
  if (c === 0x66) return literal(b, i, FALSE);
  if (c === 0x6e) return literal(b, i, NULL);
  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  if (b[i] === MINUS) i++;
  if (b[i] === ZERO) i++;
  else if (isDigit(b[i])) i = digits(b, i);
  else return -1;
  if (b[i] === DOT) {
    if (!isDigit(b[i + 1])) return -1;
    i = digits(b, i + 1);
  }
  if (b[i] === 0x65 || b[i] === 0x45) {
    i++;
    if (b[i] === 0x2b || b[i] === MINUS) i++;
    if (!isDigit(b[i])) return -1;
    i = digits(b, i);
  }
  return i;
}

function literal(b: Uint8Array, i: number, word: Buffer): number {
  for (let k = 0; k < word.length; k++) {
    if (i + k === b.length) return MORE;
    if (b[i + k] !== word[k]) return -1;
  }
  return i + word.length;
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= ZERO && c <= NINE;
}

function digits(b: Uint8Array, i: number): number {
  while (isDigit(b[i])) i++;
  return i;
}
