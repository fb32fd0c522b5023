// Fingerprints of what the calendar-level and site-level files are rendered from, so a rebuild can
// keep a group whose inputs are unchanged. A fingerprint hashes every input a renderer reads but
// the clock (what was taken from it holds until the instant kept beside it, calendar-files.ts): it
// may change when the bytes do not (one render), never stay when they change. Events are hashed as
// spooled (JSON, then VEVENT), read back from the spool.

import { createHash, type Hash } from 'node:crypto';
import { eventStamp, isCancelled, type Calendar, type Category, type FeedEvent, type SiteContext } from '../model.js';
import type { RenderContext } from '../render/context.js';
import { isUpcoming, pageSpan, type CategoryCount } from '../render/html/index.js';
import { eventEndMs, eventStartMs } from '../render/syndication/when.js';
import type { EventRef, RefFacts } from './spool.js';

/** Bump when what a fingerprint covers changes, so fingerprints of an older scheme never match. */
const SCHEME = 'calfeed render inputs 2';

/** A calendar.ics entry as the build orders them: a spooled event's VEVENT, or a removed event's `text`. */
export interface IcsEntryKey {
  readonly start: number;
  readonly calendarId: string;
  readonly id: string;
  readonly text?: string;
}

/**
 * What the build keeps in memory of a spooled event of `cal` to order it and take every "now"
 * decision about it (feed and iCalendar windows, pages, counts, warnings) without reading it back.
 */
export function eventFacts(ctx: RenderContext, cal: Calendar, event: FeedEvent, site: SiteContext): RefFacts {
  const page = pageSpan(ctx, cal, event, site);
  return {
    start: eventStartMs(ctx, event, cal.timeZone),
    end: eventEndMs(ctx, event, cal.timeZone),
    stamp: eventStamp(event),
    pageStart: page.start,
    pageEnd: page.end,
    cancelled: isCancelled(event),
    placeless: !event.location,
    categories: event.categories,
  };
}

/** Everything each calendar-level and site-level file depends on besides calendars and events. */
export function renderEnvironment(site: SiteContext, templates: string): string {
  // Every site setting but the clock, so one added to SiteContext is covered without a change here.
  const { clock: _clock, ...settings } = site;
  return JSON.stringify([SCHEME, settings, templates, ...dateDataVersions()]);
}

/**
 * Versions of the runtime's ICU, time-zone and Unicode data: dates on pages and in feeds are
 * formatted with them, and a Node.js upgrade may change them without any calfeed setting changing.
 */
export function dateDataVersions(): Array<string | null> {
  const { icu, tz, unicode } = process.versions;
  return [icu ?? null, tz ?? null, unicode ?? null];
}

export interface CalendarKeyInput {
  /** renderEnvironment(). */
  environment: string;
  /** JSON.stringify of the build's calendar list (the renderers are given all of it). */
  calendars: string;
  cal: Calendar;
  /** The calendar's spooled events, in compareRefs order. */
  refs: Iterable<EventRef>;
  /** Its calendar.ics entries, in file order (in the iCalendar window at site.now). */
  ics: readonly IcsEntryKey[];
  /** A ref's spooled bytes (EventSpool.recordView), hashed at once. */
  record: (ref: EventRef) => Buffer;
}

export interface CalendarKeys {
  /** Its events as spooled: what of it search.json is rendered from (with "now"). */
  events: string;
  /** What all of the calendar's own files (calendar.ics, feeds, pages) are rendered from. */
  files: string;
  /** What its share of the combined calendar.ics is: its entries and their VEVENTs. */
  ics: string;
}

/** The fingerprints of one calendar's files. */
export function calendarKeys(input: CalendarKeyInput): CalendarKeys {
  const data = createHash('sha256');
  addEvents(data, input.refs, input.record);
  const events = data.digest('base64url');

  const ics = createHash('sha256').update(SCHEME).update(events);
  addEntries(ics, input.ics);
  const icsKey = ics.digest('base64url');

  const files = keyHash('calendar', input.environment, input.calendars, JSON.stringify(input.cal), events, icsKey);
  return { events, files: files.digest('base64url'), ics: icsKey };
}

/** index.html's upcoming count of a calendar (upcomingCount of its events), from its refs. */
export function upcomingOfRefs(refs: Iterable<EventRef>, site: SiteContext): number {
  let count = 0;
  for (const ref of refs) if (!ref.cancelled && isUpcomingRef(ref, site)) count++;
  return count;
}

/** Whether pages list a spooled event as upcoming now (isUpcoming of its page span). */
export function isUpcomingRef(ref: EventRef, site: SiteContext): boolean {
  return isUpcoming({ start: ref.pageStart, end: ref.pageEnd }, site.clock);
}

/**
 * What the combined calendar.ics is rendered from: the calendar list (its header names them), each
 * calendar's calendarKeys().ics in list order, and the entries of calendars no longer listed.
 */
export function combinedIcsKey(environment: string, calendars: string, calendarIcs: readonly string[], unlisted: readonly IcsEntryKey[]): string {
  const hash = keyHash('calendar.ics', environment, calendars, ...calendarIcs);
  addEntries(hash, unlisted);
  return hash.digest('base64url');
}

/**
 * What the combined feeds are rendered from: the events chosen for them, else the date of the
 * newest event (renderFeeds dates a feed by its items when it has any).
 */
export function combinedFeedsKey(environment: string, calendars: string, selected: readonly EventRef[], newest: number, record: (ref: EventRef) => Buffer): string {
  const hash = keyHash('feeds', environment, calendars, selected.length ? '' : String(newest));
  for (const ref of selected) bytesField(hash, record(ref));
  return hash.digest('base64url');
}

/** What index.html is rendered from: the calendars and categories, each one's upcoming count, and the events it lists. */
export function indexKey(environment: string, calendars: string, upcoming: readonly number[], categories: readonly CategoryCount[], shown: readonly EventRef[], record: (ref: EventRef) => Buffer): string {
  const hash = keyHash('index', environment, calendars, upcoming.join(','), JSON.stringify(categories));
  for (const ref of shown) bytesField(hash, record(ref));
  return hash.digest('base64url');
}

export interface CategoryKeyInput {
  environment: string;
  calendars: string;
  category: Category;
  /** The category's live events, in compareRefs order. */
  refs: Iterable<EventRef>;
  /** Its calendar.ics entries, in file order. */
  ics: readonly IcsEntryKey[];
  record: (ref: EventRef) => Buffer;
}

/** What a category's files are rendered from: the category, its events as spooled, its calendar.ics entries. */
export function categoryFilesKey(input: CategoryKeyInput): string {
  const hash = keyHash('category', input.environment, input.calendars, JSON.stringify(input.category));
  addEvents(hash, input.refs, input.record);
  addEntries(hash, input.ics);
  return hash.digest('base64url');
}

/** What categories/index.html is rendered from: every category with its upcoming count. */
export function categoriesKey(environment: string, counts: readonly CategoryCount[]): string {
  return keyHash('categories', environment, JSON.stringify(counts)).digest('base64url');
}

/** What search.json is rendered from: the calendars and each one's events (calendarKeys().events), in list order. */
export function searchIndexKey(environment: string, calendars: string, calendarEvents: readonly string[]): string {
  return keyHash('search', environment, calendars, ...calendarEvents).digest('base64url');
}

// A fingerprint's hash begun with the scheme, what it is of (`kind`) and its text inputs.
function keyHash(kind: string, ...parts: string[]): Hash {
  const hash = createHash('sha256');
  for (const part of [SCHEME, kind, ...parts]) field(hash, part);
  return hash;
}

// Every event as spooled, then whose each is, so the entries hashed after name records unambiguously.
function addEvents(hash: Hash, refs: Iterable<EventRef>, record: (ref: EventRef) => Buffer): void {
  const ids: string[] = [];
  for (const ref of refs) {
    ids.push(ref.calendarId, ref.id);
    bytesField(hash, record(ref));
  }
  field(hash, JSON.stringify(ids));
}

// Each value goes in as a JSON string, which ends unambiguously and keeps a lone surrogate (an id
// may hold one) distinct, where UTF-8 would turn every one into U+FFFD: no two different lists of
// values hash alike.
function field(hash: Hash, text: string): void {
  hash.update(JSON.stringify(text));
}

// Bytes go in with their length first, for the same reason.
function bytesField(hash: Hash, bytes: Buffer): void {
  hash.update(`${bytes.length}:`).update(bytes);
}

// A spooled event's VEVENT is in its record, hashed with the calendar's events; a removed one's text
// goes in here. One JSON text for all entries: hashing a value at a time cost more than the hash.
function addEntries(hash: Hash, entries: readonly IcsEntryKey[]): void {
  field(hash, JSON.stringify(entries.map((e) => [String(e.start), e.calendarId, e.id, e.text ?? null])));
}
