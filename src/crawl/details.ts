// One event's details, as decideReuse answered for them: the published copy without a request, a
// conditional request, or a full GET. The published copy counts only while its bytes still hash to
// what was recorded; else the decision is taken again without the record.

import { jsonTextOf } from '../json-bytes.js';
import { apiPaths } from './api-paths.js';
import type { PortalClient } from '../http/client.js';
import { ResponseError, requestLabel } from '../http/errors.js';
import { sha256 } from './cache.js';
import type { DocSource, ListContext } from './list.js';
import { decideReuse, type EventNow, type Reuse, type StoredEvent } from './reuse.js';

export interface DetailsRequest {
  calendarId: string;
  eventId: string;
  mirrorPath: string;
  stored: StoredEvent;
  known: EventNow;
  /** decideReuse(stored, known), never 'row' (a row needs no details). */
  reuse: Exclude<Reuse, 'row'>;
}

export interface DetailsDoc {
  bytes: Buffer;
  json: unknown;
  source: DocSource;
}

/** An event's details URL as the cache keys it; undefined for an id that cannot be put in a URL (fetchDetails then fails its details, saying why). */
export function detailsKey(client: PortalClient, calendarId: string, eventId: string): string | undefined {
  try {
    return client.keyFor(apiPaths.details(calendarId, eventId));
  } catch {
    return undefined;
  }
}

/** Reuses, revalidates or fetches one event's details, recording the outcome in the cache. */
export async function fetchDetails(ctx: ListContext, req: DetailsRequest): Promise<DetailsDoc> {
  const { cache, client } = ctx;
  const { known, stored } = req;
  const previous = stored.details;
  const published = req.reuse !== 'fetch' ? await ctx.published(req.mirrorPath) : undefined;
  const json = published && previous && sha256(published) === previous.sha256 ? parsePublished(published) : undefined;
  const reuse = json?.ok ? req.reuse : decideReuse({ ...stored, details: undefined }, known);
  if (reuse === 'mirror' && json?.ok) {
    cache.recordDoc(req.mirrorPath, previous!);
    cache.recordEvent(req.calendarId, req.eventId, stored.checked!);
    return { bytes: published!, json: json.value, source: 'reused' };
  }
  const validators = reuse === 'revalidate' ? previous?.pages[0] : undefined;
  // An id that cannot be put in a URL throws here, failing this event's details only.
  const url = known.url ?? client.keyFor(apiPaths.details(req.calendarId, req.eventId));
  const result = await client.getJson(url, validators && { etag: validators.etag, lastModified: validators.lastModified }, { signal: ctx.signal });
  if (result.notModified) {
    if (!validators || !json?.ok) {
      throw new ResponseError(result.url, `${requestLabel(result.url)}: 304 Not Modified, but there is no published copy to reuse.`);
    }
    cache.recordDoc(req.mirrorPath, previous!);
    cache.recordEvent(req.calendarId, req.eventId, { entry: known.entry, checkedAt: known.now });
    return { bytes: published!, json: json.value, source: 'not-modified' };
  }
  const hash = sha256(result.body);
  cache.recordDoc(req.mirrorPath, { sha256: hash, pages: [{ url, etag: result.etag, lastModified: result.lastModified, sha256: hash }] });
  cache.recordEvent(req.calendarId, req.eventId, { entry: known.entry, checkedAt: known.now });
  return { bytes: result.body, json: result.json, source: 'fetched' };
}

function parsePublished(bytes: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(jsonTextOf(bytes)) };
  } catch {
    return { ok: false };
  }
}
