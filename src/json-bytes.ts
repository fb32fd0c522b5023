// The bytes of JSON's structure, for the readers that walk UTF-8 bodies without decoding them
// (src/http/json-list.ts, src/publish/json-check.ts): every one is ASCII, and no byte of a
// multi-byte UTF-8 character is ever one of them.

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;

/** Space as JSON has it: space, line feed, carriage return, tab (no other). */
export function isJsonSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The first index at or after `i` that is not JSON space. */
export function skipJsonSpace(b: Uint8Array, i: number): number {
  while (isJsonSpace(b[i])) i++;
  return i;
}
