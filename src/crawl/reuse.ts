// The one place that decides, per listed event, how much of the last build can stand for it. Pure:
// the caller gathers the facts and acts on the answer. A calendar taken whole is one whose events
// all answer 'row'.

import type { DocEntry, EventEntry } from './cache.js';

/**
 * - `row`: the last build's row (its event, or its record of being unreadable) stands: no request.
 * - `mirror`: its details as published stand (no request), but are normalized again.
 * - `revalidate`: a conditional request with the recorded validators; a 304 keeps the mirror.
 * - `fetch`: a plain request.
 */
export type Reuse = 'row' | 'mirror' | 'revalidate' | 'fetch';

/** What the last build left of one event. */
export interface StoredEvent {
  /** Its list-entry hash and when its details were checked (the store's E row). */
  checked: EventEntry | undefined;
  /** Its details mirror: the URL and validators it was read with, its hash (the D row). */
  details: DocEntry | undefined;
  /** Its row can be taken: an event of the same calendar record with its page and .ics published, or unreadable then. */
  row: boolean;
}

/** What this build knows of the event. */
export interface EventNow {
  /** The hash of its list entry now (entryHash). */
  entry: string;
  /** Its details URL as the cache keys it (another URL's mirror is another event's); undefined: none. */
  url: string | undefined;
  now: number;
  /** --details-max-age. */
  maxAgeMs: number;
}

/** How much of the last build stands for one event (see Reuse). */
export function decideReuse(stored: StoredEvent, known: EventNow): Reuse {
  const page = stored.details?.pages.length === 1 && known.url !== undefined && stored.details.pages[0]?.url === known.url ? stored.details.pages[0] : undefined;
  if (!page) return 'fetch';
  const age = known.now - (stored.checked?.checkedAt ?? NaN);
  // The same entry, checked within --details-max-age (and not in the future): the details stand.
  if (stored.checked?.entry === known.entry && age >= 0 && age < known.maxAgeMs) return stored.row ? 'row' : 'mirror';
  return page.etag || page.lastModified ? 'revalidate' : 'fetch';
}
