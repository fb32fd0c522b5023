// Reading a file line by line without holding it whole: the crawl cache and the manifest run to
// tens of megabytes at 100,000 events.

import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/**
 * Feed each line of a UTF-8 file to `onLine` until it returns false. `maxPartial()` bounds how long
 * an unfinished line may grow (a file in another layout has one huge line). Returns whether every
 * line was accepted, and the text after the last newline.
 */
export async function readLines(file: string, onLine: (text: string) => boolean, maxPartial: () => number): Promise<{ accepted: boolean; tail: string }> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const text = rest + decoder.write(chunk);
      let from = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
        if (!onLine(text.slice(from, nl))) return { accepted: false, tail: '' };
        from = nl + 1;
      }
      rest = text.slice(from);
      if (rest.length > maxPartial()) return { accepted: false, tail: '' };
    }
  } finally {
    stream.destroy();
  }
  return { accepted: true, tail: rest + decoder.end() };
}

/** One member line written by entryLines (`"key":value`, a trailing comma allowed); undefined if it is not one. */
export function parseEntryLine(text: string): [string, unknown] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(`{${text.endsWith(',') ? text.slice(0, -1) : text}}`);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const entries = Object.entries(parsed);
  return entries.length === 1 ? entries[0] : undefined;
}
