// Asking the portal whether any list changed since the last build, before anything else is read or
// rendered: the calendar list and every calendar's event list, page by page, as conditional
// requests where the portal gave validators (else plain GETs compared by hash). Probing stops at the
// first changed list. What it learnt is handed to the crawl (see ListContext), so a build that goes
// on anyway makes no request twice.

import { CalfeedError } from '../errors.js';
import type { FetchResult, PortalClient } from '../http/client.js';
import { sha256, type DocEntry } from './cache.js';

/** A list document as the last build recorded it: its mirror path and the pages it came from. */
export interface ListRecord {
  mirrorPath: string;
  entry: DocEntry;
}

export interface ProbeResult {
  /** The first list found changed (or that could not be checked), with why; undefined: none. */
  changed?: { mirrorPath: string; why: string };
  /** Lists found unchanged: mirror path -> the SHA-256 of the mirror they confirm. */
  confirmed: Map<string, string>;
  /** First pages fetched and found changed: mirror path -> the response (the crawl starts from it). */
  firstPages: Map<string, FetchResult & { json: unknown }>;
}

/**
 * Probe `lists` (the calendar list first, alone: the event lists are only worth asking about when
 * the calendars are the same) with up to client.concurrency requests at a time.
 */
export async function probeLists(client: PortalClient, lists: readonly ListRecord[], signal?: AbortSignal): Promise<ProbeResult> {
  const result: ProbeResult = { confirmed: new Map(), firstPages: new Map() };
  const [first, ...rest] = lists;
  if (first === undefined) return result;
  await probeOne(client, first, result, signal);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (result.changed === undefined && next < rest.length) await probeOne(client, rest[next++]!, result, signal);
  };
  if (result.changed === undefined) await Promise.all(Array.from({ length: Math.max(1, Math.min(client.concurrency, rest.length)) }, worker));
  return result;
}

async function probeOne(client: PortalClient, list: ListRecord, result: ProbeResult, signal: AbortSignal | undefined): Promise<void> {
  const { mirrorPath, entry } = list;
  for (const [i, page] of entry.pages.entries()) {
    let response: FetchResult & { json: unknown };
    try {
      const validators = page.etag || page.lastModified ? { etag: page.etag, lastModified: page.lastModified } : undefined;
      response = await client.getJson(page.url, validators, { signal });
    } catch (error) {
      // The crawl makes the same request and reports the failure in its own words (with the
      // calendar's title); an interruption is the caller's to report.
      if (signal?.aborted || (error instanceof CalfeedError && error.code === 'INTERRUPTED')) throw error;
      result.changed ??= { mirrorPath, why: `${page.url} could not be checked (${(error as Error).message})` };
      return;
    }
    // A 200 with the same bytes (a portal without validators) is as good as a 304.
    if (response.notModified || sha256(response.body) === page.sha256) continue;
    result.changed ??= { mirrorPath, why: `${page.url} changed` };
    if (i === 0) result.firstPages.set(mirrorPath, response);
    return;
  }
  result.confirmed.set(mirrorPath, entry.sha256);
}
