// The bytes of JSON's structure, for the readers that walk UTF-8 bodies without decoding them
// (src/http/json-list.ts, src/publish/json-check.ts, content-check.ts): every one is ASCII, and no byte of a
// multi-byte UTF-8 character is ever one of them.

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;

/** How many bytes of a UTF-8 byte-order mark `b` starts with (3 or 0): legal in the wild, not for JSON.parse. */
export function bomLength(b: Uint8Array): number {
  return b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
}

/** A UTF-8 body's text for JSON.parse: without its byte-order mark (which a mirror keeps). */
export function jsonTextOf(bytes: Buffer): string {
  return bytes.toString('utf8', bomLength(bytes));
}

/** Space as JSON has it: space, line feed, carriage return, tab (no other). */
export function isJsonSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The first index at or after `i` that is not JSON space. */
export function skipJsonSpace(b: Uint8Array, i: number): number {
  while (isJsonSpace(b[i])) i++;
  return i;
}
