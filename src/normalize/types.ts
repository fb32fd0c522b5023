// Types shared by the normalizer's modules and by its callers (config loader, crawler, inspect).

export type ListKind = 'calendars' | 'events';

/** A raw path: "schedule.begins", "items[0].name", or [dateField, timeField] for a split date and time. */
export type FieldPath = string | [string, string];

// The model's field names as values too, so the config check and `inspect` list the same fields.
export const CALENDAR_FIELDS = ['id', 'title', 'description', 'url', 'timeZone'] as const;
export type CalendarField = (typeof CALENDAR_FIELDS)[number];
export const EVENT_FIELDS = [
  'id', 'title', 'start', 'end', 'allDay', 'description', 'location', 'url', 'status', 'cancelled',
  'updated', 'created', 'categories', 'organizer', 'image', 'featured',
] as const;
export type EventField = (typeof EVENT_FIELDS)[number];
/** Event fields that may be mapped to a [date, time] pair: when.ts reads only these as two fields. */
export const PAIR_FIELDS: readonly EventField[] = ['start', 'end'];

/**
 * The `fields` block of calfeed.config.json: a mapping wins over detection in every record where its
 * path holds a value. "" means "not mapped" (explain() writes it for fields it could not find).
 */
export interface FieldsConfig {
  calendar?: Partial<Record<CalendarField, FieldPath>>;
  event?: Partial<Record<EventField, FieldPath>>;
  /** Explicit dotted path to the list inside a list response. */
  lists?: { calendars?: string; events?: string };
}

export interface NormalizeOptions {
  /** IANA zone for times without offset (validated by the config loader). */
  timeZone: string;
  /** Language preference for multilingual values, e.g. ['lt', 'en']; then 'en', then the first value. */
  locales: string[];
  fields?: FieldsConfig;
  /** Text fields longer than this are truncated with a warning (default 100_000 characters). */
  maxFieldLength?: number;
}

/**
 * A problem found while normalizing. Stable codes:
 * NO_ID, DUPLICATE_ID, NO_TITLE, NO_START, BAD_TIME, BAD_END, END_BEFORE_START, FIELD_TRUNCATED,
 * BAD_URL, BAD_TIME_ZONE, DETAILS_SHAPE.
 */
export interface Warning {
  code: string;
  message: string;
  calendarId?: string;
  eventId?: string;
}

/** What detection made of sample records, for `calfeed inspect`. */
export interface Explanation {
  fields: Array<{ field: string; path: string | string[] | null; sample?: unknown; note?: string }>;
  unused: string[];
  times: Array<{ field: string; path: string | string[]; reading: string; sample: unknown }>;
  warnings: string[];
  fieldsBlock: FieldsConfig;
}

export const DEFAULT_MAX_FIELD_LENGTH = 100_000;
