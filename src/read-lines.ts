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
  const lines = new LineSplitter(onLine, maxPartial);
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) if (!lines.push(chunk)) return { accepted: false, tail: '' };
  } finally {
    stream.destroy();
  }
  return { accepted: true, tail: lines.end() };
}

/** readLines on bytes read by the caller, a chunk at a time (one read that does more than split lines). */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private rest = '';

  constructor(
    private readonly onLine: (text: string) => boolean,
    private readonly maxPartial: () => number,
  ) {}

  /** Feed the next chunk; false once a line was refused or an unfinished line grew too long. */
  push(chunk: Buffer): boolean {
    const text = this.rest + this.decoder.write(chunk);
    let from = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
      if (!this.onLine(text.slice(from, nl))) return false;
      from = nl + 1;
    }
    this.rest = text.slice(from);
    return this.rest.length <= this.maxPartial();
  }

  /** After the last chunk: the text after the last newline. */
  end(): string {
    return this.rest + this.decoder.end();
  }
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
