// The crawl sink: what the build does with each document as it arrives. Raw bytes go straight to
// the staging folder as the JSON mirror (so no raw body is held longer than one callback), the
// parsed JSON is normalized into the model right away, joined with its history, the event's own
// page and .ics are written then and there (EventFiles), and the event goes to the spool for the
// calendar-level render, leaving only a small ref in memory (in a RefList, no object per event).
// When the crawler says a calendar is done (onCalendarDone, once per calendar), the calendar goes to
// that render while the crawl of the other calendars goes on.

import type { CrawlSink, DocSource, ListDoc, ListedEvent } from '../crawl/index.js';
import { ListEntries } from '../http/json-list.js';
import type { Calendar, FeedEvent, SiteContext } from '../model.js';
import { normalizeCalendars, normalizeEvent, unwrapRecord, type NormalizeOptions, type Warning } from '../normalize/index.js';
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
import type { EventRef, EventSpool } from './spool.js';

interface CalendarState {
  calendar: Calendar;
  /** The events its list names, and the list's entries (until the calendar is done). */
  listed: ReadonlyMap<string, ListedEvent>;
  entries: ListEntries;
  events: RefList;
  /** What reading its events gave besides the events: replayed when the calendar is taken whole. */
  notes: CalendarNotes;
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
  /** Calendars whose events were taken from the last build's spool (reuseCalendar), by slug. */
  readonly reused: string[] = [];
  /** How many events were taken from it, in those calendars or one by one (their files kept as published). */
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

  /**
   * Take a calendar's events as the last build spooled them, when the crawler found its event list
   * and every event's details unchanged: same calendar, same events, so normalizing them again
   * would give the same bytes, and the same warnings, which are given again. False when the last
   * build's spool cannot stand in for them (no spool, another calendar record, or a listed event
   * it lacks that was not unreadable then).
   */
  async reuseCalendar(calendarId: string, eventIds: readonly string[]): Promise<boolean> {
    const saved = this.saved;
    const state = this.state(calendarId);
    const refs = this.savedRefsOf(state.calendar);
    const notes = saved?.notes.get(calendarId);
    if (!saved || !refs || !notes) return false;
    const listed = new Set(eventIds);
    // Every spooled event is still listed; the listed ones the spool lacks were unreadable then,
    // and are again (same entry, same details, same settings).
    for (const id of refs.keys()) if (!listed.has(id)) return false;
    if (refs.size + notes.unreadable.length !== listed.size) return false;
    for (const ref of refs.values()) this.takeSaved(saved, state, ref);
    for (const [eventId, message] of notes.warnings) this.warn(state, eventId, message);
    this.listed += notes.unreadable.length;
    for (const message of notes.unreadable) this.markUnreadable(state, message);
    this.reused.push(state.calendar.slug);
    return true;
  }

  /** What reading each calendar's events gave besides the events, by calendar id. */
  notes(): Map<string, CalendarNotes> {
    return new Map([...this.byId].map(([id, state]) => [id, state.notes]));
  }

  /** Spooled events of every calendar (with their history), in the order their details arrived. */
  events(): Map<string, RefList> {
    return new Map([...this.byId].map(([id, state]) => [id, state.events]));
  }

  /** How many events are spooled. */
  get spooled(): number {
    let count = 0;
    for (const state of this.byId.values()) count += state.events.length;
    return count;
  }

  published(relPath: string): Promise<Buffer | undefined> {
    return this.staging.readPublished(relPath);
  }

  async onCalendars(doc: ListDoc, segments: Map<string, string>): Promise<void> {
    await this.writeDoc(paths.calendarsMirror(), doc.bytes, doc.source);
    const { calendars, warnings } = normalizeCalendars(doc.entries.toArray(), this.normalize);
    this.report(warnings);
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
    await this.writeDoc(paths.detailsMirror(state.calendar.slug, segment), doc.bytes, doc.source);
    if (doc.source === 'reused' && (await this.reuseEvent(state, eventId, segment))) return;
    let details: unknown;
    try {
      details = unwrapRecord(doc.json);
    } catch (error) {
      this.warn(state, eventId, `Calendar "${calendarId}", event "${eventId}": details are not an object (${(error as Error).message}); using the list entry.`);
    }
    await this.add(state, eventId, details);
  }

  async onDetailsFailed(calendarId: string, eventId: string, error: Error): Promise<void> {
    const state = this.state(calendarId);
    this.log.warn(`Calendar "${calendarId}", event "${eventId}": details failed, publishing it from its list entry. ${error.message}`);
    await this.add(state, eventId, undefined);
  }

  async onCalendarDone(calendarId: string): Promise<void> {
    const state = this.state(calendarId);
    state.listed = NOTHING_LISTED;
    state.entries = NO_ENTRIES;
    await this.renderCalendar?.(state.calendar, state.events);
  }

  onWarning(message: string): void {
    this.log.warn(message);
  }

  private async add(state: CalendarState, eventId: string, details: unknown): Promise<void> {
    const { index, segment } = this.listedEvent(state, eventId);
    const { event, warnings } = normalizeEvent(state.entries.at(index), details, state.calendar, segment, this.normalize);
    this.listed++;
    if (!event) {
      const why = warnings.findLast((w) => SKIPPED.has(w.code)) ?? warnings.at(-1);
      for (const w of warnings) state.notes.warnings.push([eventId, w.message]);
      this.markUnreadable(state, why?.message ?? `event "${eventId}" of calendar "${state.calendar.id}" could not be read`);
      this.skipped.skip(why?.code ?? 'UNREADABLE', warnings.map((w) => w.message));
      return;
    }
    this.skipped.read();
    for (const w of warnings) this.warn(state, eventId, w.message);
    const { event: withHistory, rendered } = this.history.observe(event);
    // Serialized once, for the render fingerprint and for the spool.
    const json = JSON.stringify(withHistory);
    // The VEVENT is rendered once: the same text goes into the event's .ics and every calendar.ics.
    const output = await this.eventFiles.write(state.calendar, withHistory, rendered, json);
    state.events.push(this.spool.add(withHistory, output, eventFacts(this.ctx, state.calendar, withHistory, this.site), json));
  }

  /**
   * An event whose list entry and details are the ones the last build read ('reused'): the event
   * that build spooled stands for it, bytes as they are, with the warnings reading it gave then,
   * when its calendar and path are the same and its page and .ics are still published (they are
   * kept). False when it cannot: the event is then read again.
   */
  private async reuseEvent(state: CalendarState, eventId: string, segment: string): Promise<boolean> {
    const saved = this.saved;
    const ref = this.savedRefsOf(state.calendar)?.get(eventId);
    const notes = saved?.notes.get(state.calendar.id);
    if (!saved || !ref || !notes) return false;
    const before = JSON.parse(saved.spool.json(ref)) as FeedEvent;
    if (before.slug !== segment || before.calendarSlug !== state.calendar.slug) return false;
    const page = paths.eventPage(state.calendar.slug, segment);
    const ics = paths.eventIcs(state.calendar.slug, segment);
    if (!(await this.staging.isPublished(page)) || !(await this.staging.isPublished(ics))) return false;
    await this.staging.keep(page);
    await this.staging.keep(ics);
    this.takeSaved(saved, state, ref);
    for (const message of this.savedWarnings(state.calendar.id, notes).get(eventId) ?? []) this.warn(state, eventId, message);
    return true;
  }

  /** Spool an event as the last build spooled it, seen again, its files kept by the caller. */
  private takeSaved(saved: SavedEvents, state: CalendarState, ref: EventRef): void {
    state.events.push(this.spool.copy(saved.spool, ref));
    this.history.markSeen(ref.calendarId, ref.id);
    this.listed++;
    this.reusedEvents++;
    this.skipped.read();
  }

  // The last build's spooled events of a calendar by id, made when first needed; null when the
  // calendar is not the same as then (its events may not stand in for a new reading).
  private readonly savedRefs = new Map<string, Map<string, EventRef> | null>();
  private savedRefsOf(calendar: Calendar): Map<string, EventRef> | null {
    let refs = this.savedRefs.get(calendar.id);
    if (refs === undefined) {
      const before = this.saved?.calendars.find((c) => c.id === calendar.id);
      const list = this.saved?.events.get(calendar.id);
      refs = before && list && JSON.stringify(before) === JSON.stringify(calendar) ? new Map(list.map((r) => [r.id, r])) : null;
      this.savedRefs.set(calendar.id, refs);
    }
    return refs;
  }

  // The last build's warnings of a calendar's events, by event id, made when first needed.
  private readonly warningsByEvent = new Map<string, Map<string, string[]>>();
  private savedWarnings(calendarId: string, notes: CalendarNotes): Map<string, string[]> {
    let byEvent = this.warningsByEvent.get(calendarId);
    if (byEvent === undefined) {
      byEvent = new Map();
      for (const [eventId, message] of notes.warnings) byEvent.set(eventId, [...(byEvent.get(eventId) ?? []), message]);
      this.warningsByEvent.set(calendarId, byEvent);
    }
    return byEvent;
  }

  /** A warning about one of a calendar's events, given now and recorded with the calendar. */
  private warn(state: CalendarState, eventId: string, message: string): void {
    state.notes.warnings.push([eventId, message]);
    this.log.warn(message);
  }

  private markUnreadable(state: CalendarState, message: string): void {
    state.notes.unreadable.push(message);
    this.unreadable.push(message);
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

  private report(warnings: Warning[]): void {
    for (const w of warnings) this.log.warn(w.message);
  }
}
