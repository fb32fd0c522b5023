// Turning a 2xx body into JSON, or into an error that shows what came instead (an HTML error page
// with status 200 is the classic). The mirror keeps the bytes as they were; this only reads them.

import { ResponseError, requestLabel, statusLine } from './errors.js';
import type { FetchResult } from './client.js';
import { jsonTextOf } from '../json-bytes.js';
import { escapePortal } from '../safe-text.js';
import { jsonTextProblem } from './json-text.js';
import { parsedList, shapeOf, type JsonList } from './json-list.js';
import { bodySnippet, redact } from './redact.js';

/** Parses a response body as JSON; ResponseError naming the URL, content type and first bytes otherwise. */
export function parseJson(result: FetchResult, token: string | undefined): unknown {
  const type = result.contentType ?? 'no Content-Type';
  const fail = (what: string, cause?: unknown): ResponseError =>
    new ResponseError(
      result.url,
      `${requestLabel(result.url)}: ${what} (${statusLine(result.status)}, ${type}). ` +
        `Body starts with: ${bodySnippet(result.body, token)}. Check --base-url and the portal's status.`,
      { cause },
    );
  if (result.body.length === 0) throw fail('expected JSON but the body is empty');
  const problem = jsonTextProblem(result.body);
  if (problem !== undefined) throw fail(problem);
  // A UTF-8 byte-order mark is legal in the wild but not for JSON.parse; the mirror keeps it.
  const text = jsonTextOf(result.body);
  try {
    return JSON.parse(text);
  } catch (error) {
    const looksHtml = /^\s*</.test(text);
    // V8 quotes the body in its message, raw: newlines, ANSI escapes and all.
    const detail = escapePortal(redact((error as Error).message, token));
    throw fail(looksHtml ? 'expected JSON but got an HTML page' : `the body is not valid JSON (${detail})`, error);
  }
}

/** Reads a list body (see json-list.ts): the entries kept as text; the errors of parseJson. */
export function parseJsonList(result: FetchResult, token: string | undefined): JsonList {
  const shaped = result.body.length > 0 && jsonTextProblem(result.body) === undefined ? shapeOf(result.body) : undefined;
  // Anything the shape reader does not take is parsed whole: JSON.parse says what is wrong, or takes it.
  return shaped ?? parsedList(parseJson(result, token));
}
