// A malformed config file is located by line and column, whichever kind of message V8 gives.
import { describe, expect, it } from 'vitest';
import { locateJsonError } from '../../src/config/json-error.js';

function locate(text: string) {
  try {
    JSON.parse(text);
  } catch (error) {
    return locateJsonError(text, error as Error);
  }
  throw new Error('expected invalid JSON');
}

describe('locateJsonError', () => {
  it.each([
    // V8 gives no position for an unexpected token, and quotes the text instead.
    ['{\n  "out": "x",\n  "title": }\n', { line: 3, column: 12, reason: "Unexpected token '}'" }],
    ['{\n  "a": [1, 2,, 3]\n}', { line: 2, column: 14, reason: "Unexpected token ','" }],
    // V8 gives "at position N" for these.
    ['{\n  "out": "x",\n  "title": "y"\n  "locale": "en"\n}', { line: 4, column: 3, reason: "Expected ',' or '}' after property value" }],
    ['{\n  "out": "x",\n}', { line: 3, column: 1, reason: 'Expected double-quoted property name' }],
    ['{"a": 1} x', { line: 1, column: 10, reason: 'Unexpected non-whitespace character after JSON' }],
    ['{\n  "out": "x",\n', { line: 3, column: 1, reason: 'the file ends before the JSON does' }],
    ['', { line: 1, column: 1, reason: 'the file ends before the JSON does' }],
  ])('locates the error in %j', (text, where) => {
    expect(locate(text)).toEqual(where);
  });
});
