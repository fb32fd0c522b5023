// One record -> model values, with a note of which raw field gave each one. normalize() keeps the
// values; explain() keeps the notes. Sharing this step means `calfeed inspect` reports exactly what
// the build will do.

import { IANAZone } from 'luxon';
import type { CalendarEvent, EventLocation, EventWhen } from '../model.js';
import { CALENDAR_CANDIDATES, EVENT_CANDIDATES, findField, type Hit } from './fields.js';
import { isObject, type RawRecord } from './record.js';
import { parseTime, wallToEpoch } from './time.js';
import type { CalendarField, EventField, FieldPath, NormalizeOptions } from './types.js';
import { DEFAULT_MAX_FIELD_LENGTH } from './types.js';
import { boolOf, categoriesOf, httpUrlOf, idOf, isText, locationOf, organizerOf, statusOf, textOf } from './values.js';
import { resolveWhen, type TimeUse } from './when.js';

export interface Problem {
  code: string;
  message: string;
}

/** Which raw field a model field came from (hit undefined: not found). Start and end are in `times`. */
export interface FieldReport {
  field: string;
  hit?: Hit;
}

const present = (v: unknown): boolean => v !== null && v !== undefined && v !== '';

/** Truncates long text with a warning; the limit guards disks and pages against a broken portal. */
function clip(field: string, text: string | undefined, opts: NormalizeOptions, problems: Problem[]): string | undefined {
  const max = opts.maxFieldLength ?? DEFAULT_MAX_FIELD_LENGTH;
  if (text === undefined || text.length <= max) return text;
  problems.push({ code: 'FIELD_TRUNCATED', message: `${field} is ${text.length} characters long; truncated to ${max} (--max-field-length)` });
  return text.slice(0, max);
}

/** The raw id of a record (string form), by mapping or detection. */
export function idHit(record: RawRecord, kind: 'calendar' | 'event', mapped: FieldPath | undefined): { id?: string; hit?: Hit } {
  const candidates = kind === 'calendar' ? CALENDAR_CANDIDATES.id : EVENT_CANDIDATES.id;
  const hit = findField(record, mapped, candidates, (v) => idOf(v) !== undefined);
  return { id: hit ? idOf(hit.value) : undefined, hit };
}

function urlField(field: string, hit: Hit | undefined, opts: NormalizeOptions, problems: Problem[]): string | undefined {
  if (!hit || !present(hit.value)) return undefined;
  const url = httpUrlOf(hit.value, opts.locales);
  if (url === undefined) {
    problems.push({ code: 'BAD_URL', message: `${field} ${JSON.stringify(hit.value).slice(0, 80)} in field "${hit.path}" is not an absolute http(s) URL; ignored` });
    return undefined;
  }
  return clip(field, url, opts, problems);
}

function titleOf(hit: Hit | undefined, opts: NormalizeOptions, problems: Problem[]): string {
  const text = textOf(hit?.value, opts.locales)?.replace(/\s+/g, ' ');
  if (text === undefined) {
    problems.push({ code: 'NO_TITLE', message: hit ? `the title field "${hit.path}" is empty; using "(untitled)"` : 'no title field found; using "(untitled)" (set fields.*.title)' });
    return '(untitled)';
  }
  return clip('title', text, opts, problems)!;
}

/** Which raw field each model field came from: the id's, then `hits` in their order. */
function reportsOf(id: Hit | undefined, hits: Record<string, Hit | undefined>): FieldReport[] {
  return [{ field: 'id', hit: id }, ...Object.entries(hits).map(([field, hit]) => ({ field, hit }))];
}

export interface CalendarResolution {
  id?: string;
  title: string;
  description?: string;
  url?: string;
  timeZone: string;
  reports: FieldReport[];
  problems: Problem[];
}

/** Resolves a calendar record's fields. */
export function resolveCalendar(record: RawRecord, opts: NormalizeOptions): CalendarResolution {
  const mapping = opts.fields?.calendar ?? {};
  const problems: Problem[] = [];
  const find = (field: CalendarField, accept: (v: unknown) => boolean, multilingual = false) =>
    findField(record, mapping[field], CALENDAR_CANDIDATES[field], accept, multilingual);
  const { id, hit: idFound } = idHit(record, 'calendar', mapping.id);
  const hits = {
    title: find('title', isText, true),
    description: find('description', isText, true),
    url: find('url', (v) => isText(v) || isObject(v)),
    timeZone: find('timeZone', (v) => typeof v === 'string' && v.trim() !== ''),
  };
  let timeZone = opts.timeZone;
  const zone = hits.timeZone?.value;
  if (typeof zone === 'string') {
    if (IANAZone.isValidZone(zone.trim())) timeZone = zone.trim();
    else problems.push({ code: 'BAD_TIME_ZONE', message: `time zone ${JSON.stringify(zone)} is not an IANA zone; using ${opts.timeZone}` });
  }
  const result: CalendarResolution = {
    title: titleOf(hits.title, opts, problems),
    timeZone,
    reports: reportsOf(idFound, hits),
    problems,
  };
  if (id !== undefined) result.id = id;
  const description = clip('description', textOf(hits.description?.value, opts.locales), opts, problems);
  if (description !== undefined) result.description = description;
  const url = urlField('url', hits.url, opts, problems);
  if (url !== undefined) result.url = url;
  return result;
}

/** What resolution makes of one record: the event's own fields, id and time possibly missing, plus how they were found. */
export interface EventResolution
  extends Omit<CalendarEvent, 'calendarId' | 'calendarSlug' | 'slug' | 'id' | 'when' | 'detailsMissing'> {
  id?: string;
  when?: EventWhen;
  reports: FieldReport[];
  times: TimeUse[];
  /** Problems; NO_START / BAD_TIME mean the event cannot be published. */
  problems: Problem[];
}

function stampOf(hit: Hit | undefined, zone: string): number | undefined {
  const parsed = hit ? parseTime(hit.value, zone) : undefined;
  if (parsed?.kind === 'instant') return parsed.ms;
  if (parsed?.kind === 'date') return wallToEpoch(parsed.date, { hour: 0, minute: 0, second: 0, millisecond: 0 }, zone);
  return undefined;
}

/** A location with its texts clipped to --max-field-length. */
function clippedLocation(location: EventLocation | undefined, opts: NormalizeOptions, problems: Problem[]): EventLocation | undefined {
  if (!location) return undefined;
  location.text = clip('location', location.text, opts, problems)!;
  if (location.name !== undefined) location.name = clip('location name', location.name, opts, problems);
  if (location.address !== undefined) {
    const address = clip('location address', location.address, opts, problems);
    // Parts of an address too long to keep whole are not worth keeping either.
    if (address !== location.address) delete location.addressParts;
    location.address = address;
  }
  return location;
}

/** Resolves an event record's fields; `zone` reads wall times (the calendar's zone). */
export function resolveEvent(record: RawRecord, opts: NormalizeOptions, zone: string): EventResolution {
  const mapping = opts.fields?.event ?? {};
  const problems: Problem[] = [];
  const find = (field: Exclude<EventField, 'start' | 'end'>, accept: (v: unknown) => boolean, multilingual = false) =>
    findField(record, mapping[field], EVENT_CANDIDATES[field], accept, multilingual);
  const { id, hit: idFound } = idHit(record, 'event', mapping.id);
  const hits = {
    title: find('title', isText, true),
    allDay: find('allDay', (v) => boolOf(v) !== undefined),
    description: find('description', isText, true),
    location: find('location', present, true),
    url: find('url', (v) => isText(v) || isObject(v), true),
    status: find('status', (v) => typeof v === 'string' && v.trim() !== ''),
    cancelled: find('cancelled', (v) => boolOf(v) !== undefined),
    updated: find('updated', (v) => parseTime(v, zone) !== undefined),
    created: find('created', (v) => parseTime(v, zone) !== undefined),
    categories: find('categories', present, true),
    organizer: find('organizer', present),
    image: find('image', (v) => isText(v) || isObject(v)),
    featured: find('featured', (v) => boolOf(v) !== undefined),
  };
  const when = resolveWhen(record, { start: mapping.start, end: mapping.end }, boolOf(hits.allDay?.value), zone);
  problems.push(...when.problems);

  const cancelled = boolOf(hits.cancelled?.value) === true;
  const result: EventResolution = {
    title: titleOf(hits.title, opts, problems),
    status: cancelled ? 'cancelled' : (statusOf(hits.status?.value) ?? 'confirmed'),
    categories: categoriesOf(hits.categories?.value, opts.locales)
      .map((c) => clip('category', c, opts, problems)!)
      .slice(0, 100),
    reports: reportsOf(idFound, hits),
    times: when.uses,
    problems,
  };
  if (id !== undefined) result.id = id;
  if (when.when) result.when = when.when;
  const description = clip('description', textOf(hits.description?.value, opts.locales), opts, problems);
  if (description !== undefined) result.description = description;
  const location = clippedLocation(locationOf(hits.location?.value, opts.locales), opts, problems);
  if (location) result.location = location;
  const url = urlField('url', hits.url, opts, problems);
  if (url !== undefined) result.url = url;
  const organizer = organizerOf(hits.organizer?.value, opts.locales);
  if (organizer) {
    if (organizer.name !== undefined) organizer.name = clip('organizer name', organizer.name, opts, problems);
    result.organizer = organizer;
  }
  const image = urlField('image', hits.image, opts, problems);
  if (image !== undefined) result.image = image;
  if (boolOf(hits.featured?.value) === true) result.featured = true;
  const updated = stampOf(hits.updated, zone);
  if (updated !== undefined) result.updated = updated;
  const created = stampOf(hits.created, zone);
  if (created !== undefined) result.created = created;
  return result;
}
