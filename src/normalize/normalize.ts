// Raw records -> the model (src/model.ts). Pure: no clock, no network, no disk. Problems become
// warnings with stable codes; a record is only skipped when it cannot be published at all (no id,
// no readable start).

import type { Calendar, CalendarEvent } from '../model.js';
import { assignSegments } from '../paths.js';
import { unwrapRecord } from './envelope.js';
import { isObject, mergeRecords, type RawRecord } from './record.js';
import { idHit, resolveCalendar, resolveEvent } from './resolve.js';
import type { FieldsConfig, NormalizeOptions, Warning } from './types.js';

/** The raw id of a calendar or event record (string form), used by the crawler to build request URLs, or undefined. */
export function rawId(record: unknown, kind: 'calendar' | 'event', fields?: FieldsConfig): string | undefined {
  if (!isObject(record)) return undefined;
  return idHit(record, kind, kind === 'calendar' ? fields?.calendar?.id : fields?.event?.id).id;
}

/** Calendars from a list: ids stringified, slugs assigned with assignSegments, duplicates dropped and records without id skipped, each with a warning. */
export function normalizeCalendars(items: unknown[], opts: NormalizeOptions): { calendars: Calendar[]; warnings: Warning[] } {
  const warnings: Warning[] = [];
  const kept: Array<Omit<Calendar, 'slug'>> = [];
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (!isObject(item)) {
      warnings.push({ code: 'NO_ID', message: `calendar #${index + 1} of the list is not an object (${JSON.stringify(item)?.slice(0, 40)}); skipped` });
      return;
    }
    const resolved = resolveCalendar(item, opts);
    if (resolved.id === undefined) {
      warnings.push({ code: 'NO_ID', message: `calendar #${index + 1} of the list ("${resolved.title}") has no id; skipped (set fields.calendar.id)` });
      return;
    }
    const calendarId = resolved.id;
    if (seen.has(calendarId)) {
      warnings.push({ code: 'DUPLICATE_ID', calendarId, message: `calendar id "${calendarId}" appears more than once; only the first is kept` });
      return;
    }
    seen.add(calendarId);
    for (const p of resolved.problems) warnings.push({ ...p, calendarId, message: `calendar "${calendarId}": ${p.message}` });
    const calendar: Omit<Calendar, 'slug'> = { id: calendarId, title: resolved.title, timeZone: resolved.timeZone };
    if (resolved.description !== undefined) calendar.description = resolved.description;
    if (resolved.url !== undefined) calendar.url = resolved.url;
    kept.push(calendar);
  });
  const slugs = assignSegments(kept.map((c) => c.id));
  return { calendars: kept.map((c) => ({ ...c, slug: slugs.get(c.id)! })), warnings };
}

/**
 * One event from its list entry merged with its details (details win; undefined when details
 * failed, then detailsMissing = true). Returns the event, or only warnings when it must be skipped
 * (no id, no start, unreadable start). Wall times are read in the calendar's zone.
 */
export function normalizeEvent(
  entry: unknown,
  details: unknown | undefined,
  calendar: Calendar,
  slug: string,
  opts: NormalizeOptions,
): { event?: CalendarEvent; warnings: Warning[] } {
  const warnings: Warning[] = [];
  const calendarId = calendar.id;
  const entryRecord: RawRecord = isObject(entry) ? entry : {};
  let detailsRecord: RawRecord | undefined;
  if (details !== undefined) {
    try {
      detailsRecord = unwrapRecord(details);
    } catch (error) {
      warnings.push({ code: 'DETAILS_SHAPE', calendarId, message: `calendar "${calendarId}": ${(error as Error).message} Using the list entry only.` });
    }
  }
  // The id comes from the list entry when it has one: that is the id the details were fetched by and the slug was made from.
  const mappedId = opts.fields?.event?.id;
  const eventId = idHit(entryRecord, 'event', mappedId).id ?? (detailsRecord ? idHit(detailsRecord, 'event', mappedId).id : undefined);
  const prefix = `event "${eventId ?? '?'}" of calendar "${calendarId}": `;
  const resolved = resolveEvent(mergeRecords(entryRecord, detailsRecord), opts, calendar.timeZone);
  for (const p of resolved.problems) {
    const skip = p.code === 'NO_START' || p.code === 'BAD_TIME';
    warnings.push({ code: p.code, calendarId, ...(eventId !== undefined && { eventId }), message: prefix + p.message + (skip ? '; skipped' : '') });
  }
  if (eventId === undefined) {
    warnings.push({ code: 'NO_ID', calendarId, message: `${prefix}the event ("${resolved.title}") has no id; skipped (set fields.event.id)` });
    return { warnings };
  }
  if (!resolved.when) return { warnings };

  const event: CalendarEvent = {
    calendarId,
    calendarSlug: calendar.slug,
    id: eventId,
    slug,
    title: resolved.title,
    when: resolved.when,
    status: resolved.status,
    categories: resolved.categories,
  };
  if (resolved.description !== undefined) event.description = resolved.description;
  if (resolved.location !== undefined) event.location = resolved.location;
  if (resolved.url !== undefined) event.url = resolved.url;
  if (resolved.organizer !== undefined) event.organizer = resolved.organizer;
  if (resolved.image !== undefined) event.image = resolved.image;
  if (resolved.featured) event.featured = true;
  if (resolved.updated !== undefined) event.updated = resolved.updated;
  if (resolved.created !== undefined) event.created = resolved.created;
  if (detailsRecord === undefined) event.detailsMissing = true;
  return { event, warnings };
}
