// The crawl sink: each document's raw bytes go to staging as its JSON mirror; an event is
// normalized, joined with its history, its page and .ics written (EventFiles) and spooled, leaving
// a small ref in memory. An event taken from the last build's row is spooled as it was, its
// warnings given again. A calendar done (onCalendar) goes to its render while the crawl goes on.

import type { CalendarResult, CrawlSink, DocSource, ListDoc, ListedEvent } from '../crawl/index.js';
import { ListEntries } from '../http/json-list.js';
import type { Calendar, SiteContext } from '../model.js';
import { normalizeCalendars, normalizeEvent, unwrapRecord, type NormalizeOptions } from '../normalize/index.js';
import { paths } from '../paths.js';
import type { Staging } from '../publish/index.js';
import type { RenderContext } from '../render/context.js';
import type { Logger } from '../log.js';
import type { HistoryTracker } from '../state/history.js';
import type { EventFiles } from './event-files.js';
import { eventFacts } from './render-keys.js';
import { RefList } from './ref-list.js';
import { SkippedEvents } from './skipped.js';
import type { CalendarNotes, SavedEvents } from '../state/build-store.js';
import type { EventSpool } from './spool.js';

interface CalendarState {
  calendar: Calendar;
  /** The events its list names, and the list's entries (until the calendar is done). */
  listed: ReadonlyMap<string, ListedEvent>;
  entries: ListEntries;
  events: RefList;
  /** What reading its events gave besides the events: replayed for each event taken from its row. */
  notes: CalendarNotes;
}

/** What the last build's notes say of one calendar's events, by event id. */
interface StoredNotes {
  /** Events it could not read: why, as [warning code, message]. */
  unreadable: Map<string, [string, string]>;
  warnings: Map<string, string[]>;
}

const NOTHING_LISTED: ReadonlyMap<string, ListedEvent> = new Map();
const NO_ENTRIES = ListEntries.of([]);
// The codes of warnings that mean an event is skipped (normalizeEvent).
const SKIPPED = new Set(['NO_ID', 'NO_START', 'BAD_TIME']);

/** Collects the model while writing the mirror into staging. */
export class Collector implements CrawlSink {
  private readonly byId = new Map<string, CalendarState>();
  readonly calendars: Calendar[] = [];
  /** Events the portal listed, and those that could not be read (no id, no start, bad time). */
  listed = 0;
  unreadable: string[] = [];
  /** Calendars taken whole: list unchanged, every event from its row (only counted: it is no separate path). */
  wholeCalendars = 0;
  /** How many events were taken from the last build's rows (their files kept as published). */
  reusedEvents = 0;
  private readonly skipped: SkippedEvents;

  constructor(
    private readonly staging: Staging,
    private readonly normalize: NormalizeOptions,
    private readonly site: SiteContext,
    private readonly ctx: RenderContext,
    private readonly log: Logger,
    private readonly history: HistoryTracker,
    private readonly eventFiles: EventFiles,
    private readonly spool: EventSpool,
    /** The last build's events, when its output and state are known to be current (checkUpToDate). */
    private readonly saved?: SavedEvents,
    /** Renders a calendar's files once the crawler says it is done, while the crawl of the others goes on. */
    private readonly renderCalendar?: (calendar: Calendar, events: RefList) => Promise<void>,
  ) {
    this.skipped = new SkippedEvents(log);
  }

  /** Fails the build when too many listed events could not be read (SkippedEvents.check). */
  checkUnreadable(maxRatio: number): void {
    this.skipped.check(this.listed, this.unreadable, maxRatio, this.normalize.fields?.event?.start);
  }

  /** What reading each calendar's events gave besides the events, by calendar id. */
  notes(): Map<string, CalendarNotes> {
    return new Map([...this.byId].map(([id, state]) => [id, state.notes]));
  }

  /** Spooled events of every calendar (with their history), in the order their details arrived. */
  events(): Map<string, RefList> {
    return new Map([...this.byId].map(([id, state]) => [id, state.events]));
  }

  published(relPath: string): Promise<Buffer | undefined> {
    return this.staging.readPublished(relPath);
  }

  async onCalendars(doc: ListDoc, segments: Map<string, string>): Promise<void> {
    await this.writeDoc(paths.calendarsMirror(), doc.bytes, doc.source);
    const { calendars, warnings } = normalizeCalendars(doc.entries.toArray(), this.normalize);
    for (const w of warnings) this.log.warn(w.message);
    for (const calendar of calendars) {
      // The crawler's segments are the ones the mirror paths use; keep pages on the same ones.
      const slug = segments.get(calendar.id) ?? calendar.slug;
      const withSlug = { ...calendar, slug };
      this.calendars.push(withSlug);
      this.byId.set(calendar.id, { calendar: withSlug, listed: NOTHING_LISTED, entries: NO_ENTRIES, events: new RefList(calendar.id), notes: { warnings: [], unreadable: [] } });
    }
  }

  async onEvents(calendarId: string, doc: ListDoc, events: ReadonlyMap<string, ListedEvent>): Promise<void> {
    const state = this.state(calendarId);
    await this.writeDoc(paths.eventsMirror(state.calendar.slug), doc.bytes, doc.source);
    state.listed = events;
    state.entries = doc.entries;
  }

  async onDetails(calendarId: string, eventId: string, doc: { bytes: Buffer; json: unknown; source: DocSource }): Promise<void> {
    const state = this.state(calendarId);
    const { segment } = this.listedEvent(state, eventId);
    // Not awaited before the event's own files: its writes then reach the writer thread together,
    // in fewer and larger batches (each batch wakes the thread).
    const mirror = this.writeDoc(paths.detailsMirror(state.calendar.slug, segment), doc.bytes, doc.source);
    let details: unknown;
    try {
      details = unwrapRecord(doc.json);
    } catch (error) {
      this.warn(state, eventId, `Calendar "${calendarId}", event "${eventId}": details are not an object (${(error as Error).message}); using the list entry.`);
    }
    await Promise.all([mirror, this.add(state, eventId, details)]);
  }

  async onDetailsFailed(calendarId: string, eventId: string, error: Error): Promise<void> {
    const state = this.state(calendarId);
    this.log.warn(`Calendar "${calendarId}", event "${eventId}": details failed, publishing it from its list entry. ${error.message}`);
    await this.add(state, eventId, undefined);
  }

  /**
   * An event's row stands for it when the store is vouched for, its calendar is the same, and its
   * files are still published, or it could not be read then (nor can it now, from the same inputs).
   */
  async hasStoredRow(calendarId: string, eventId: string): Promise<boolean> {
    const state = this.state(calendarId);
    const notes = this.storedNotes(state.calendar);
    const unreadable = notes?.unreadable.has(eventId) === true;
    if (!unreadable && !(notes && this.saved!.rows.ref(calendarId, eventId))) return false;
    const { segment } = this.listedEvent(state, eventId);
    const { slug } = state.calendar;
    const files = unreadable ? [] : [paths.eventPage(slug, segment), paths.eventIcs(slug, segment)];
    for (const file of [paths.detailsMirror(slug, segment), ...files]) if (!(await this.staging.isPublished(file))) return false;
    return true;
  }

  /** Take an event from its row (hasStoredRow): its mirror and files kept, its warnings given again. */
  async onStored(calendarId: string, eventId: string): Promise<void> {
    const state = this.state(calendarId);
    const notes = this.storedNotes(state.calendar)!;
    const { segment } = this.listedEvent(state, eventId);
    const { slug } = state.calendar;
    await this.staging.keep(paths.detailsMirror(slug, segment));
    const warnings = notes.warnings.get(eventId) ?? [];
    const unreadable = notes.unreadable.get(eventId);
    this.listed++;
    if (unreadable) {
      this.skip(state, eventId, unreadable, warnings);
      return;
    }
    await this.staging.keep(paths.eventPage(slug, segment));
    await this.staging.keep(paths.eventIcs(slug, segment));
    const { rows: stored } = this.saved!;
    state.events.push(this.spool.copy(stored.spool, stored.ref(calendarId, eventId)!));
    this.history.markSeen(calendarId, eventId);
    this.reusedEvents++;
    this.skipped.read();
    for (const message of warnings) this.warn(state, eventId, message);
  }

  async onCalendar(result: CalendarResult): Promise<void> {
    const state = this.state(result.calendarId);
    if (result.listUnchanged && result.events > 0 && result.stored === result.events) this.wholeCalendars++;
    state.listed = NOTHING_LISTED;
    state.entries = NO_ENTRIES;
    await this.renderCalendar?.(state.calendar, state.events);
  }

  onWarning(message: string): void {
    this.log.warn(message);
  }

  private async add(state: CalendarState, eventId: string, details: unknown): Promise<void> {
    const { index, segment } = this.listedEvent(state, eventId);
    const { event, warnings } = normalizeEvent(state.entries.take(index), details, state.calendar, segment, this.normalize);
    this.listed++;
    if (!event) {
      const why = warnings.findLast((w) => SKIPPED.has(w.code)) ?? warnings.at(-1);
      const message = why?.message ?? `event "${eventId}" of calendar "${state.calendar.id}" could not be read`;
      this.skip(state, eventId, [why?.code ?? 'UNREADABLE', message], warnings.map((w) => w.message));
      return;
    }
    this.skipped.read();
    for (const w of warnings) this.warn(state, eventId, w.message);
    const { event: withHistory, rendered } = this.history.observe(event);
    // Serialized once, for the render fingerprint and for the spool.
    const json = JSON.stringify(withHistory);
    // Feed items are kept only where the calendar's feeds take every event; in a bigger one most
    // never reach a feed, which renders those it lists (EventSpool.items).
    const output = await this.eventFiles.write(state.calendar, withHistory, rendered, state.listed.size <= this.site.feedLimit, json);
    state.events.push(this.spool.add(withHistory, output, eventFacts(this.ctx, state.calendar, withHistory, this.site), json));
  }

  /** An event that cannot be read: why ([warning code, message]) and its warnings, recorded with its calendar. */
  private skip(state: CalendarState, eventId: string, [code, message]: readonly [string, string], warnings: readonly string[]): void {
    for (const w of warnings) state.notes.warnings.push([eventId, w]);
    state.notes.unreadable.push([eventId, code, message]);
    this.unreadable.push(message);
    this.skipped.skip(code, warnings);
  }

  // The last build's notes of a calendar's events, made when first needed; null when there are
  // none, or the calendar is not the same as then (its events may not stand in for a new reading).
  private readonly stored = new Map<string, StoredNotes | null>();
  private storedNotes(calendar: Calendar): StoredNotes | null {
    let found = this.stored.get(calendar.id);
    if (found === undefined) {
      const before = this.saved?.calendars.find((c) => c.id === calendar.id);
      const notes = this.saved?.notes.get(calendar.id);
      found = null;
      if (before && notes && JSON.stringify(before) === JSON.stringify(calendar)) {
        found = { unreadable: new Map(), warnings: new Map() };
        for (const [eventId, code, message] of notes.unreadable) found.unreadable.set(eventId, [code, message]);
        for (const [eventId, message] of notes.warnings) found.warnings.set(eventId, [...(found.warnings.get(eventId) ?? []), message]);
      }
      this.stored.set(calendar.id, found);
    }
    return found;
  }

  /** A warning about one of a calendar's events, given now and recorded with the calendar. */
  private warn(state: CalendarState, eventId: string, message: string): void {
    state.notes.warnings.push([eventId, message]);
    this.log.warn(message);
  }

  private listedEvent(state: CalendarState, eventId: string): ListedEvent {
    const listed = state.listed.get(eventId);
    if (listed === undefined) throw new Error(`internal: event "${eventId}" is not listed in calendar "${state.calendar.id}"`);
    return listed;
  }

  private state(calendarId: string): CalendarState {
    const state = this.byId.get(calendarId);
    if (!state) throw new Error(`internal: calendar "${calendarId}" was not in the calendar list`);
    return state;
  }

  private async writeDoc(relPath: string, bytes: Buffer, source: DocSource): Promise<void> {
    if (source === 'fetched') await this.staging.write(relPath, bytes);
    else await this.staging.keep(relPath);
  }
}
