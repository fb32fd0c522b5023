// What a list names: the calendars of the calendar list, and a calendar's events by id (the first
// entry of each id counts), each with the path segment its files are published under.

import type { ListEntries } from '../http/json-list.js';
import { rawId, type FieldsConfig } from '../normalize/index.js';
import { assignSegments } from '../paths.js';
import { entryHash } from './cache.js';

/** One event of a calendar's list: the entry that counts for its id (the first), and its path segment. */
export interface ListedEvent {
  /** Its entry's place in the list's entries (ListDoc.entries). */
  index: number;
  /** Hash of the entry, what the cache keys the freshness of its details on. */
  hash: string;
  segment: string;
}

export interface CalendarRef {
  id: string;
  segment: string;
  title: string | undefined;
}

/** A calendar's listed events by id, the first entry of each id winning; `onDuplicates` hears of the rest. */
export function listedEvents(entries: ListEntries, fields: FieldsConfig | undefined, onDuplicates: (ids: string[]) => void): Map<string, ListedEvent> {
  // Each entry is parsed here for its id and hash, and again when its details arrive: never all at once.
  const listed = new Map<string, ListedEvent>();
  const duplicates = new Set<string>();
  for (let index = 0; index < entries.length; index++) {
    const entry = entries.at(index);
    const id = rawId(entry, 'event', fields);
    if (id === undefined) continue;
    if (listed.has(id)) duplicates.add(id);
    else listed.set(id, { index, hash: entryHash(entry), segment: '' });
  }
  if (duplicates.size > 0) onDuplicates([...duplicates]);
  const segments = assignSegments(listed.keys());
  for (const [id, event] of listed) event.segment = segments.get(id)!;
  return listed;
}

export function duplicatesWarning(calendar: CalendarRef, ids: string[]): string {
  const shown = ids.slice(0, 5).map((id) => JSON.stringify(id)).join(', ');
  const more = ids.length > 5 ? ` and ${ids.length - 5} more` : '';
  return `Calendar "${calendar.id}" lists ${ids.length === 1 ? 'an event id' : `${ids.length} event ids`} more than once (${shown}${more}); the first entry of each is used.`;
}

export function calendarRefs(items: unknown[], fields: FieldsConfig | undefined, published: ReadonlyMap<string, string> | undefined): CalendarRef[] {
  const byId = new Map<string, unknown>();
  for (const item of items) {
    const id = rawId(item, 'calendar', fields);
    if (id !== undefined && !byId.has(id)) byId.set(id, item);
  }
  const segments = assignSegments(byId.keys(), published);
  return [...byId].map(([id, item]) => ({ id, segment: segments.get(id)!, title: guessTitle(item) }));
}

/** A calendar's title for error messages only (the normalizer owns real field detection). */
function guessTitle(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  for (const [key, value] of Object.entries(item)) {
    if (!/^(title|name|label|summary)$/i.test(key)) continue;
    // A string, or the first text of an object (a language map).
    const texts = typeof value === 'object' && value !== null ? Object.values(value) : [value];
    const text = texts.find((v): v is string => typeof v === 'string' && v.trim() !== '');
    if (text) return text.trim();
  }
  return undefined;
}

