// Whether bytes are JSON, without making its values: JSON.parse of a 26 MB event list (the mirror
// of one calendar of 100,000 events) makes its text and every object at once, about 150 MB of the
// writer thread's heap, to be thrown away. This walks the bytes once, holding only the open
// brackets. It answers as JSON.parse would (any depth, like V8's); a "no" is worded by JSON.parse.

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
  const n = b.length;
  let i = bomLength(b);
  const open: number[] = [];
  for (;;) {
    // A value starts at i (space allowed).
    i = space(b, i);
    const c = b[i];
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      const close = c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY;
      i = space(b, i + 1);
      if (b[i] === close) i++;
      else {
        open.push(close);
        if (close === CLOSE_OBJECT && (i = key(b, i)) < 0) return false;
        continue;
      }
    } else if ((i = c === QUOTE ? stringEnd(b, i) : scalarEnd(b, i)) < 0) return false;
    // A value ended at i: close what it closes, then the next member or element, or the end.
    for (;;) {
      i = space(b, i);
      const close = open[open.length - 1];
      if (close === undefined) return i === n;
      if (b[i] === close) {
        open.pop();
        i++;
        continue;
      }
      if (b[i] !== COMMA) return false;
      i++;
      if (close === CLOSE_OBJECT && (i = key(b, space(b, i))) < 0) return false;
      break;
    }
  }
}

/** After a member's key and colon, or -1. */
function key(b: Uint8Array, i: number): number {
  if (b[i] !== QUOTE) return -1;
  i = stringEnd(b, i);
  if (i < 0) return -1;
  i = space(b, i);
  return b[i] === COLON ? i + 1 : -1;
}

/** After the string at i, or -1: no control characters, only JSON's escapes. */
function stringEnd(b: Uint8Array, i: number): number {
  for (let j = i + 1; j < b.length; ) {
    const c = b[j]!;
    if (c === QUOTE) return j + 1;
    if (c < 0x20) return -1;
    if (c !== BACKSLASH) {
      j++;
      continue;
    }
    const e = b[j + 1];
    if (e === 0x75 /* u */) {
      for (let k = j + 2; k < j + 6; k++) if (!isHex(b[k])) return -1;
      j += 6;
    } else if (e !== undefined && ESCAPES.has(e)) j += 2;
    else return -1;
  }
  return -1;
}

function isHex(c: number | undefined): boolean {
  return c !== undefined && ((c >= ZERO && c <= NINE) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46));
}

/** After the number or literal at i, or -1. */
function scalarEnd(b: Uint8Array, i: number): number {
  const c = b[i];
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
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) return -1;
  return i + word.length;
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= ZERO && c <= NINE;
}

function digits(b: Uint8Array, i: number): number {
  while (isDigit(b[i])) i++;
  return i;
}
