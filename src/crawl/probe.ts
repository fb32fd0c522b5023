// Asking the portal whether any list changed since the last build, before anything else is read:
// every list, page by page, conditionally where the portal gave validators (else compared by hash),
// stopping at the first change. What it learnt goes to the crawl, so no request is made twice.

import { CalfeedError } from '../errors.js';
import type { ListResult, PortalClient } from '../http/client.js';
import { isFatal, type DetailsFailure } from './crawl.js';
import { apiPaths } from './api-paths.js';
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
  firstPages: Map<string, ListResult>;
  /** Details the last build could not read, found still failing moments ago (probeFailedDetails): not asked for again. */
  failing?: DetailsFailure[];
}

/** Probes `lists`: the calendar list first and alone (the event lists matter only if it is the same). */
export async function probeLists(client: PortalClient, lists: readonly ListRecord[], signal?: AbortSignal): Promise<ProbeResult> {
  const result: ProbeResult = { confirmed: new Map(), firstPages: new Map() };
  const [first, ...rest] = lists;
  if (first === undefined) return result;
  await probeOne(client, first, result, signal);
  await probeEach(rest, client.concurrency, () => result.changed !== undefined, (list) => probeOne(client, list, result, signal));
  return result;
}

/** Runs `probe` on each item in order, at most `concurrency` at once, until `done()` says so. */
async function probeEach<T>(items: readonly T[], concurrency: number, done: () => boolean, probe: (item: T, at: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (!done() && next < items.length) {
      const at = next++;
      await probe(items[at]!, at);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
}

/** An interruption (the signal, or the client's INTERRUPTED) is the caller's to report, never a probe's finding. */
function interrupted(error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (error instanceof CalfeedError && error.code === 'INTERRUPTED');
}

async function probeOne(client: PortalClient, list: ListRecord, result: ProbeResult, signal: AbortSignal | undefined): Promise<void> {
  const { mirrorPath, entry } = list;
  const masked = entry.pages.find((p) => !client.replayable(p.url));
  if (masked) {
    // Its link held the token and was stored masked: only the crawl, from page 1, can ask again.
    result.changed ??= { mirrorPath, why: `${masked.url} held the token and cannot be checked as it was` };
    return;
  }
  for (const [i, page] of entry.pages.entries()) {
    let response: ListResult;
    try {
      const validators = page.etag || page.lastModified ? { etag: page.etag, lastModified: page.lastModified } : undefined;
      response = await client.getJsonList(page.url, validators, { signal });
    } catch (error) {
      // The crawl makes the same request and reports the failure in its own words.
      if (interrupted(error, signal)) throw error;
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

/**
 * Ask again for the details the last build could not read ([calendar id, event id]): while all
 * still fail, the same data gives the same output. `readable` names the first that can now be read
 * (or fails fatally, as a rejected token does): the build then reads in full. Else `failures` says why.
 */
export async function probeFailedDetails(
  client: PortalClient,
  failed: ReadonlyArray<readonly [string, string]>,
  signal?: AbortSignal,
): Promise<{ readable?: string; failures: DetailsFailure[] }> {
  let readable: string | undefined;
  // By position, so the failures keep the order the last build listed them in.
  const failures: DetailsFailure[] = [];
  await probeEach(failed, client.concurrency, () => readable !== undefined, async ([calendarId, eventId], at) => {
    const what = `the details of event "${eventId}" in calendar "${calendarId}"`;
    try {
      await client.getJson(client.keyFor(apiPaths.details(calendarId, eventId)), undefined, { signal });
      readable ??= `${what}, which could not be read at the last build, can now be read`;
    } catch (error) {
      if (interrupted(error, signal)) throw error;
      // As in the crawl: a fatal failure means a build (which reports it).
      if (isFatal(error)) readable ??= `${what} could not be checked (${(error as Error).message})`;
      else failures[at] = { calendarId, eventId, message: (error as Error).message };
    }
  });
  return readable === undefined ? { failures: failures.filter((f) => f !== undefined) } : { readable, failures: [] };
}
