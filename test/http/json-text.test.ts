import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, jsonTextProblem } from '../../src/http/json-text.js';

describe('jsonTextProblem', () => {
  it('accepts UTF-8 of every length, and brackets inside strings however many', () => {
    expect(jsonTextProblem(Buffer.from('{"t":"Ąžuolas 🌳 ☃ é","x":"' + '['.repeat(10_000) + '"}'))).toBeUndefined();
    expect(jsonTextProblem(Buffer.from('"\\"[[[["'))).toBeUndefined();
    expect(jsonTextProblem(Buffer.from('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH)))).toBeUndefined();
  });

  it('names the first byte that is not UTF-8: a stray byte, a cut character, an overlong form, a surrogate', () => {
    const at = (prefix: string, bad: number[], rest = '"') => Buffer.concat([Buffer.from(prefix), Buffer.from(bad), Buffer.from(rest)]);
    for (const bad of [[0xff], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80]]) {
      expect(jsonTextProblem(at('"Ą ok ', bad))).toBe(`the body is not valid UTF-8 (the first bad byte is at offset ${Buffer.byteLength('"Ą ok ')})`);
    }
  });

  it('refuses nesting deeper than the limit, saying where', () => {
    const deep = Buffer.from(' {"a":' + '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH) + '}');
    expect(jsonTextProblem(deep)).toBe(`the JSON is nested more than ${MAX_JSON_DEPTH} levels deep (at byte ${6 + MAX_JSON_DEPTH - 1})`);
  });
});
