// The crawl sink: what the build does with each document as it arrives. Raw bytes go straight to
// the staging folder as the JSON mirror (so no raw body is held longer than one callback), the
// parsed JSON is normalized into the model right away, joined with its history, the event's own
// page and .ics are written then and there (EventFiles), and the event goes to the spool for the
// calendar-level render, leaving only a small ref in memory (in a RefList, no object per event).
// The last event of a calendar in hands the calendar to that render (onCalendarDone), while the
// crawl of the other calendars goes on.

import type { CrawlSink, DocSource, ListDoc } from '../crawl/index.js';
import type { Calendar, FeedEvent, SiteContext } from '../model.js';
import { normalizeCalendars, normalizeEvent, rawId, unwrapRecord, type NormalizeOptions, type Warning } from '../normalize/index.js';
import { paths } from '../paths.js';
import type { Staging } from '../publish/index.js';
import type { Logger } from '../log.js';
import type { HistoryTracker } from '../state/history.js';
import type { EventFiles } from './event-files.js';
import { eventFacts } from './render-keys.js';
import { RefList } from './ref-list.js';
import type { SavedSpool } from './saved-spool.js';
import type { EventRef, EventSpool } from './spool.js';

interface CalendarState {
  calendar: Calendar;
  /** Raw list entries waiting for their details, by event id. */
  pending: Map<string, unknown>;
  segments: Map<string, string>;
  events: RefList;
  /** Details being handled now; -1 until the event list has arrived, and once the calendar is done. */
  handling: number;
}

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
  // The last build's spooled events of a calendar by id, made when first needed; null when the
  // calendar is not the same as then (its events may not stand in for a new reading).
  private readonly savedRefs = new Map<string, Map<string, EventRef> | null>();

  constructor(
    private readonly staging: Staging,
    private readonly normalize: NormalizeOptions,
    private readonly site: SiteContext,
    private readonly log: Logger,
    private readonly history: HistoryTracker,
    private readonly eventFiles: EventFiles,
    private readonly spool: EventSpool,
    /** The last build's events, when its output and state are known to be current (checkUpToDate). */
    private readonly saved?: SavedSpool,
    /**
     * Called once per calendar, as soon as every event it lists is spooled (or found unreadable):
     * the build renders its calendar files then, while the crawl of the other calendars goes on.
     */
    private readonly onCalendarDone?: (calendar: Calendar, events: RefList) => Promise<void>,
  ) {}

  /**
   * Take a calendar's events as the last build spooled them, when the crawler found its event list
   * and every event's details unchanged: same calendar, same events, so normalizing them again
   * would give the same bytes. False when the last build's spool cannot stand in for them (no
   * spool, another calendar record, or a listed event it lacks that was not unreadable then).
   */
  async reuseCalendar(calendarId: string, eventIds: readonly string[]): Promise<boolean> {
    const saved = this.saved;
    const state = this.state(calendarId);
    const refs = this.savedRefsOf(state.calendar);
    if (!saved || !refs) return false;
    const listed = new Set(eventIds);
    // Every spooled event is still listed; a listed one the spool lacks was unreadable then, and
    // is again (same entry, same details, same settings).
    for (const id of refs.keys()) if (!listed.has(id)) return false;
    for (const ref of refs.values()) this.takeSaved(saved, state, ref);
    state.pending.clear();
    state.segments = new Map();
    this.reused.push(state.calendar.slug);
    await this.done(state);
    return true;
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
    const { calendars, warnings } = normalizeCalendars(doc.items, this.normalize);
    this.report(warnings);
    for (const calendar of calendars) {
      // The crawler's segments are the ones the mirror paths use; keep pages on the same ones.
      const slug = segments.get(calendar.id) ?? calendar.slug;
      const withSlug = { ...calendar, slug };
      this.calendars.push(withSlug);
      this.byId.set(calendar.id, { calendar: withSlug, pending: new Map(), segments: new Map(), events: new RefList(calendar.id), handling: -1 });
    }
  }

  async onEvents(calendarId: string, doc: ListDoc, segments: Map<string, string>): Promise<void> {
    const state = this.state(calendarId);
    await this.writeDoc(paths.eventsMirror(state.calendar.slug), doc.bytes, doc.source);
    state.segments = segments;
    for (const item of doc.items) {
      const id = rawId(item, 'event', this.normalize.fields);
      if (id !== undefined) state.pending.set(id, item);
    }
    state.handling = 0;
    if (state.pending.size === 0) await this.done(state);
  }

  async onDetails(calendarId: string, eventId: string, doc: { bytes: Buffer; json: unknown; source: DocSource }): Promise<void> {
    const state = this.state(calendarId);
    const slug = this.slug(state, eventId);
    state.handling++;
    await this.writeDoc(paths.detailsMirror(state.calendar.slug, slug), doc.bytes, doc.source);
    if (doc.source !== 'reused' || !(await this.reuseEvent(state, eventId, slug))) {
      let details: unknown;
      try {
        details = unwrapRecord(doc.json);
      } catch (error) {
        this.log.warn(`Calendar "${calendarId}", event "${eventId}": details are not an object (${(error as Error).message}); using the list entry.`);
      }
      await this.add(state, eventId, slug, details);
    }
    await this.settled(state);
  }

  async onDetailsFailed(calendarId: string, eventId: string, error: Error): Promise<void> {
    const state = this.state(calendarId);
    this.log.warn(`Calendar "${calendarId}", event "${eventId}": details failed, publishing it from its list entry. ${error.message}`);
    state.handling++;
    await this.add(state, eventId, this.slug(state, eventId), undefined);
    await this.settled(state);
  }

  /**
   * An event's details are handled (spooled, or found unreadable). The calendar is done when no
   * listed event waits for its details (see arrived()) and none is being handled: an event whose
   * details never come (which the crawler does not allow) leaves it to the end of the build.
   */
  private async settled(state: CalendarState): Promise<void> {
    state.handling--;
    if (state.handling === 0 && state.pending.size === 0) await this.done(state);
  }

  private async done(state: CalendarState): Promise<void> {
    state.handling = -1;
    await this.onCalendarDone?.(state.calendar, state.events);
  }

  /**
   * An event whose list entry and details are the ones the last build read ('reused'): the event
   * that build spooled stands for it, bytes as they are, when its calendar and path are the same
   * and its page and .ics are still published (they are kept). False when it cannot.
   */
  private async reuseEvent(state: CalendarState, eventId: string, slug: string): Promise<boolean> {
    const ref = this.savedRefsOf(state.calendar)?.get(eventId);
    if (!ref || !this.saved) return false;
    const before = JSON.parse(this.saved.spool.json(ref)) as FeedEvent;
    if (before.slug !== slug || before.calendarSlug !== state.calendar.slug) return false;
    const page = paths.eventPage(state.calendar.slug, slug);
    const ics = paths.eventIcs(state.calendar.slug, slug);
    if (!(await this.staging.isPublished(page)) || !(await this.staging.isPublished(ics))) return false;
    this.arrived(state, eventId);
    await this.staging.keep(page);
    await this.staging.keep(ics);
    this.takeSaved(this.saved, state, ref);
    return true;
  }

  /** Spool an event as the last build spooled it, seen again, its files kept by the caller. */
  private takeSaved(saved: SavedSpool, state: CalendarState, ref: EventRef): void {
    state.events.push(this.spool.copy(saved.spool, ref));
    this.history.markSeen(ref.calendarId, ref.id);
    this.listed++;
    this.reusedEvents++;
  }

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

  /** An event's details (or their failure) arrived: it waits no more; returns its list entry. */
  private arrived(state: CalendarState, eventId: string): unknown {
    const entry = state.pending.get(eventId);
    state.pending.delete(eventId);
    // Every listed event of the calendar has arrived (the crawler asks for the details of each id
    // it listed, once): its segments are not needed again, and would stay for the rest of the build.
    if (state.pending.size === 0) state.segments = new Map();
    return entry;
  }

  private async add(state: CalendarState, eventId: string, slug: string, details: unknown): Promise<void> {
    const entry = this.arrived(state, eventId);
    const { event, warnings } = normalizeEvent(entry ?? {}, details, state.calendar, slug, this.normalize);
    this.report(warnings);
    this.listed++;
    if (!event) {
      this.unreadable.push(warnings[warnings.length - 1]?.message ?? `event "${eventId}" of calendar "${state.calendar.id}" could not be read`);
      return;
    }
    const { event: withHistory, rendered } = this.history.observe(event);
    // Serialized once, for the render fingerprint and for the spool.
    const json = JSON.stringify(withHistory);
    // The VEVENT is rendered once: the same text goes into the event's .ics and every calendar.ics.
    const vevent = await this.eventFiles.write(state.calendar, withHistory, rendered, json);
    state.events.push(this.spool.add(withHistory, vevent, eventFacts(state.calendar, withHistory, this.site), json));
  }

  private slug(state: CalendarState, eventId: string): string {
    const slug = state.segments.get(eventId);
    if (slug === undefined) throw new Error(`internal: no path segment for event "${eventId}" of calendar "${state.calendar.id}"`);
    return slug;
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
