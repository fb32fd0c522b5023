// Which raw field holds which model field: candidate names in order of preference, and explicit
// `fields` mappings (which always win). Names are matched with normKey(), so each candidate covers
// its camelCase, snake_case and kebab-case spellings.

import { siblingLangMap } from './i18n.js';
import { formatPath, isObject, keyIndex, normKey, parsePath, resolvePath, type RawRecord } from './record.js';
import type { CalendarField, EventField, FieldPath } from './types.js';

export const CALENDAR_CANDIDATES: Record<CalendarField, string[]> = {
  id: ['eventCalendarId', 'calendarId', 'id', 'uuid', 'guid', 'key', 'slug'],
  title: ['title', 'name', 'summary', 'subject', 'label', 'displayName', 'calendarName', 'calendarTitle'],
  description: ['description', 'details', 'body', 'content', 'text', 'about', 'summaryText'],
  url: ['url', 'link', 'href', 'webUrl', 'permalink', 'htmlUrl', 'website', 'pageUrl'],
  timeZone: ['timeZone', 'tz', 'zone', 'timeZoneId', 'ianaTimeZone', 'tzid'],
};

// For an event, `calendarId` is the calendar it belongs to, never its own id: it is not a candidate.
export const EVENT_CANDIDATES: Record<Exclude<EventField, 'start' | 'end'>, string[]> = {
  id: ['eventId', 'id', 'uuid', 'guid', 'uid', 'key'],
  title: ['title', 'name', 'summary', 'subject', 'label', 'heading', 'eventTitle', 'eventName', 'displayName'],
  allDay: ['allDay', 'isAllDay', 'wholeDay', 'isWholeDay', 'fullDay', 'isFullDay', 'allDayEvent'],
  description: ['description', 'details', 'body', 'content', 'text', 'descriptionHtml', 'longDescription', 'shortDescription', 'abstract', 'excerpt', 'teaser'],
  location: ['location', 'place', 'venue', 'address', 'room', 'where', 'locationName', 'venueName'],
  url: ['url', 'link', 'href', 'webUrl', 'permalink', 'htmlUrl', 'eventUrl', 'pageUrl', 'website'],
  status: ['status', 'eventStatus', 'state'],
  cancelled: ['cancelled', 'canceled', 'isCancelled', 'isCanceled'],
  updated: ['updatedAt', 'updated', 'modified', 'lastModified', 'modifiedAt', 'lastUpdated', 'dateModified', 'updatedOn', 'modifiedOn', 'lastModifiedAt'],
  created: ['createdAt', 'created', 'published', 'publishedAt', 'dateCreated', 'datePublished', 'createdOn', 'publishedOn'],
  categories: ['categories', 'tags', 'category', 'keywords', 'topics'],
  organizer: ['organizer', 'organiser', 'contact', 'host', 'organizedBy', 'organizerName', 'contactEmail', 'organizerEmail'],
  image: ['image', 'imageUrl', 'thumbnail', 'picture', 'photo', 'coverImage', 'cover', 'banner', 'thumbnailUrl', 'img'],
  featured: ['featured', 'isFeatured', 'highlighted', 'isHighlighted', 'highlight', 'promoted', 'isPromoted', 'pinned', 'sticky'],
};

/** Start candidates: full date-times first, then dates, then times of day (combined with a date). */
export const START_CANDIDATES = [
  'startDateTime', 'startsAt', 'startAt', 'start', 'startDate', 'dateFrom', 'from', 'begin', 'beginsAt', 'dtstart',
  'startTime', 'timeFrom', 'fromTime', 'beginTime', 'date', 'eventDate', 'day', 'time',
];
export const END_CANDIDATES = [
  'endDateTime', 'endsAt', 'endAt', 'end', 'endDate', 'dateTo', 'to', 'until', 'finish', 'endsOn', 'dtend',
  'endTime', 'timeTo', 'toTime', 'finishTime',
];

/** A raw field found for a model field. */
export interface Hit {
  /** Dotted path as spelled in the data. */
  path: string;
  value: unknown;
  /** Top-level raw keys this hit consumed (for "unused fields"). */
  keys: string[];
  note?: string;
}

/** The first segment of a path as a key. */
function topKey(segments: ReadonlyArray<string | number>): string[] {
  return segments.length > 0 && typeof segments[0] === 'string' ? [segments[0]] : [];
}

/** Follows an explicit mapping, or gives the language siblings of a missing last segment (`title_en`...). */
export function explicitHit(record: RawRecord, path: string, multilingual: boolean): Hit | undefined {
  const found = resolvePath(record, path);
  if (found) return { path: formatPath(found.segments), value: found.value, keys: topKey(found.segments) };
  if (!multilingual) return undefined;
  const segments = parsePath(path);
  const last = segments.pop();
  if (typeof last !== 'string') return undefined;
  const parent = segments.length === 0 ? { value: record as unknown, segments: [] } : resolvePath(record, formatPath(segments));
  if (!parent || !isObject(parent.value)) return undefined;
  const siblings = siblingLangMap(parent.value, last);
  if (!siblings) return undefined;
  const keys = segments.length === 0 ? siblings.keys : topKey(parent.segments);
  return { path: formatPath([...parent.segments, last]), value: siblings.map, keys, note: `language siblings: ${siblings.keys.join(', ')}` };
}

/**
 * Finds a model field: the explicit mapping where its path exists in this record ('' is unmapped),
 * else the first candidate whose value `accept`s, else (multilingual) a candidate's language siblings.
 */
export function findField(
  record: RawRecord,
  explicit: FieldPath | undefined,
  candidates: readonly string[],
  accept: (value: unknown) => boolean,
  multilingual = false,
): Hit | undefined {
  const mapped = Array.isArray(explicit) ? explicit[0] : explicit;
  if (mapped !== undefined && mapped !== '') {
    const hit = explicitHit(record, mapped, multilingual);
    if (hit && hit.value !== null && hit.value !== undefined) return hit;
  }
  // keyOf() per candidate, with the index and folded names looked up once per call (a hot path).
  const index = keyIndex(record);
  const folds = foldedNames(candidates);
  for (let i = 0; i < candidates.length; i++) {
    const candidate = candidates[i]!;
    const key = Object.hasOwn(record, candidate) ? candidate : index.get(folds[i]!);
    if (key !== undefined && accept(record[key])) return { path: key, value: record[key], keys: [key] };
  }
  if (!multilingual) return undefined;
  for (const candidate of candidates) {
    const siblings = siblingLangMap(record, candidate);
    if (siblings && accept(siblings.map)) {
      return { path: candidate, value: siblings.map, keys: siblings.keys, note: `language siblings: ${siblings.keys.join(', ')}` };
    }
  }
  return undefined;
}

/** Every candidate present in a record, in candidate order (each raw key once). */
export function presentCandidates(record: RawRecord, candidates: readonly string[]): Hit[] {
  const hits: Hit[] = [];
  const seen = new Set<string>();
  const index = keyIndex(record);
  const folds = foldedNames(candidates);
  for (let i = 0; i < candidates.length; i++) {
    const candidate = candidates[i]!;
    const key = Object.hasOwn(record, candidate) ? candidate : index.get(folds[i]!);
    if (key === undefined || seen.has(key) || record[key] === null || record[key] === undefined) continue;
    seen.add(key);
    hits.push({ path: key, value: record[key], keys: [key] });
  }
  return hits;
}

// normKey() of each name of a candidate list, by list (the lists are this module's constants).
const foldedLists = new WeakMap<readonly string[], string[]>();
function foldedNames(candidates: readonly string[]): string[] {
  let folds = foldedLists.get(candidates);
  if (folds === undefined || folds.length !== candidates.length) {
    folds = candidates.map(normKey);
    foldedLists.set(candidates, folds);
  }
  return folds;
}
