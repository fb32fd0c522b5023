// One event's details, as cheaply as the cache allows: not requested at all when its list entry is
// unchanged and it was checked recently; a conditional request when the published copy is trusted;
// a full GET otherwise. "Trusted" always means: the published bytes still hash to what we recorded.

import { jsonTextOf } from '../json-bytes.js';
import { apiPaths } from './api-paths.js';
import { ResponseError, requestLabel } from '../http/errors.js';
import { sha256, type EventEntry } from './cache.js';
import type { DocSource, ListContext } from './list.js';

export interface DetailsRequest {
  calendarId: string;
  eventId: string;
  /** Hash of the event's list entry in this crawl. */
  entry: string;
  mirrorPath: string;
  now: number;
  maxAgeMs: number;
}

export interface DetailsDoc {
  bytes: Buffer;
  json: unknown;
  source: DocSource;
}

/**
 * Whether an event's details, last checked as `seen` records, need not be asked for: its list
 * entry is the same and they were checked less than maxAgeMs ago (and not in the future).
 */
export function isFresh(seen: EventEntry, req: Pick<DetailsRequest, 'entry' | 'now' | 'maxAgeMs'>): boolean {
  const age = req.now - seen.checkedAt;
  return seen.entry === req.entry && age >= 0 && age < req.maxAgeMs;
}

/** Fetches, revalidates or reuses one event's details, recording the outcome in the cache. */
export async function fetchDetails(ctx: ListContext, req: DetailsRequest): Promise<DetailsDoc> {
  const { cache, client } = ctx;
  const url = client.keyFor(apiPaths.details(req.calendarId, req.eventId));
  const previous = cache.previousDoc(req.mirrorPath);
  const page = previous?.pages.length === 1 && previous.pages[0]?.url === url ? previous.pages[0] : undefined;
  const published = page ? await ctx.published(req.mirrorPath) : undefined;
  const trusted = previous && page && published && sha256(published) === previous.sha256 ? { previous, page, published } : undefined;

  if (trusted) {
    const seen = cache.previousEvent(req.calendarId, req.eventId);
    const json = seen && isFresh(seen, req) ? parsePublished(trusted.published) : undefined;
    if (seen && json?.ok) {
      cache.recordDoc(req.mirrorPath, trusted.previous);
      cache.recordEvent(req.calendarId, req.eventId, seen);
      return { bytes: trusted.published, json: json.value, source: 'reused' };
    }
  }

  const validators = trusted && (trusted.page.etag || trusted.page.lastModified) ? trusted.page : undefined;
  const result = await client.getJson(url, validators && { etag: validators.etag, lastModified: validators.lastModified }, { signal: ctx.signal });
  if (result.notModified) {
    const json = trusted && validators ? parsePublished(trusted.published) : undefined;
    if (!trusted || !json?.ok) {
      throw new ResponseError(result.url, `${requestLabel(result.url)}: 304 Not Modified, but there is no published copy to reuse.`, result.contentType, '');
    }
    cache.recordDoc(req.mirrorPath, trusted.previous);
    cache.recordEvent(req.calendarId, req.eventId, { entry: req.entry, checkedAt: req.now });
    return { bytes: trusted.published, json: json.value, source: 'not-modified' };
  }
  const hash = sha256(result.body);
  cache.recordDoc(req.mirrorPath, { sha256: hash, pages: [{ url, etag: result.etag, lastModified: result.lastModified, sha256: hash }] });
  cache.recordEvent(req.calendarId, req.eventId, { entry: req.entry, checkedAt: req.now });
  return { bytes: result.body, json: result.json, source: 'fetched' };
}

function parsePublished(bytes: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(jsonTextOf(bytes)) };
  } catch {
    return { ok: false };
  }
}
