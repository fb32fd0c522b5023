// What makes a body unusable before JSON.parse sees it: bytes that are not UTF-8 (silently turned
// into U+FFFD), and JSON nested so deep that every recursive step after parsing overflows the stack.

import { isUtf8 } from 'node:buffer';

/** Deeper than any API's records; deep enough to be an attack or a bug at the portal. */
export const MAX_JSON_DEPTH = 256;

/** Why a body cannot be read as JSON text (undefined: it can be). */
export function jsonTextProblem(body: Buffer): string | undefined {
  if (!isUtf8(body)) return `the body is not valid UTF-8 (the first bad byte is at offset ${firstInvalidByte(body)})`;
  const depth = nestingBeyond(body, MAX_JSON_DEPTH);
  if (depth !== undefined) return `the JSON is nested more than ${MAX_JSON_DEPTH} levels deep (at byte ${depth})`;
  return undefined;
}

// Brackets outside strings, counted on the bytes (multi-byte UTF-8 never contains these ASCII
// codes); the offset at which the depth passes `max`, or undefined.
function nestingBeyond(body: Buffer, max: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}

// The offset of the first byte that breaks UTF-8 (the body is known to hold one): each character's
// length from its lead byte, the character itself checked by isUtf8 (overlong forms, surrogates).
function firstInvalidByte(body: Buffer): number {
  for (let i = 0; i < body.length; ) {
    const b = body[i]!;
    const n = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (n === 0 || (n > 1 && !isUtf8(body.subarray(i, i + n)))) return i;
    i += n;
  }
  return body.length;
}
