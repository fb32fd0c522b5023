// Events between the crawl and the calendar-level render, kept on disk instead of in memory.
//
// Calendar pages, feeds and calendar.ics need every event of a calendar, and the combined files
// need every event of the site, but only after the crawl. Holding 100,000 events as objects took
// gigabytes, so each event is appended to a spool file as it arrives (its JSON, then its VEVENT
// text, rendered once) and only a small EventRef stays in memory: enough to sort, select and
// window events, and to read one back. The calendar-level render then loads one calendar at a time,
// and streams the combined calendar.ics VEVENT by VEVENT.
//
// The file lives inside the staging folder (same disk as --out, never a RAM-backed /tmp), so a
// failed or killed build's spool goes wherever its staging folder goes; it is deleted before the
// staging folder is checked and published.

import path from 'node:path';
import { AppendFile } from '../append-file.js';
import type { FeedEvent } from '../model.js';

/** What stays in memory of a spooled event. */
export interface EventRef {
  readonly calendarId: string;
  readonly id: string;
  /** Start and exclusive end instants, epoch ms, in the event's zone (all-day: local midnights). */
  readonly start: number;
  readonly end: number;
  /** eventStamp(event): dates a feed that has no items. */
  readonly stamp: number;
  /** pageSpan(calendar, event, site): what calendar pages split events at "now" by (isUpcoming). */
  readonly pageStart: number;
  readonly pageEnd: number;
  /** isCancelled(event): a cancelled upcoming event is not counted on index.html. */
  readonly cancelled: boolean;
  /** Where the event's JSON and then its VEVENT text are in the spool, in bytes. */
  readonly at: number;
  readonly jsonBytes: number;
  readonly veventBytes: number;
}

/** What the build works out about an event as it spools it: the ref's fields besides its place in the file. */
export type RefFacts = Omit<EventRef, 'calendarId' | 'id' | 'at' | 'jsonBytes' | 'veventBytes'>;

/** Orders refs like sortByStart orders events: start, then calendar id, then event id (code units). */
export function compareRefs(a: Pick<EventRef, 'start' | 'calendarId' | 'id'>, b: Pick<EventRef, 'start' | 'calendarId' | 'id'>): number {
  return a.start - b.start || compareStrings(a.calendarId, b.calendarId) || compareStrings(a.id, b.id);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** An append-only file of events; not safe to read from while another call is writing. */
export class EventSpool {
  private readonly data: AppendFile;

  private constructor(readonly file: string) {
    this.data = new AppendFile(file);
  }

  /** A new spool file in folder (the staging folder). */
  static create(folder: string): EventSpool {
    return new EventSpool(path.join(folder, `.calfeed-spool-${process.pid}`));
  }

  /** Append an event (`eventJson`: its JSON.stringify, when the caller has it) and its VEVENT text; returns its ref. */
  add(event: FeedEvent, vevent: string, facts: RefFacts, eventJson = JSON.stringify(event)): EventRef {
    // Properties are evaluated in order: the JSON is appended at `at`, the VEVENT right after it.
    return {
      calendarId: event.calendarId,
      id: event.id,
      start: facts.start,
      end: facts.end,
      stamp: facts.stamp,
      pageStart: facts.pageStart,
      pageEnd: facts.pageEnd,
      cancelled: facts.cancelled,
      at: this.data.size,
      jsonBytes: this.data.append(eventJson),
      veventBytes: this.data.append(vevent),
    };
  }

  /** The events of refs, in the order given. */
  events(refs: readonly EventRef[]): FeedEvent[] {
    return refs.map((ref) => JSON.parse(this.json(ref)) as FeedEvent);
  }

  /** The event of a ref as spooled: JSON.stringify(event). */
  json(ref: EventRef): string {
    return this.data.read(ref.at, ref.jsonBytes).toString('utf8');
  }

  /** Everything spooled for a ref, as stored: its JSON, then its VEVENT text (UTF-8). */
  record(ref: EventRef): Buffer {
    return this.data.read(ref.at, ref.jsonBytes + ref.veventBytes);
  }

  /** The VEVENT text of a ref, as UTF-8 bytes. */
  vevent(ref: EventRef): Buffer {
    return this.data.read(ref.at + ref.jsonBytes, ref.veventBytes);
  }

  /** Close and delete the file (idempotent). */
  dispose(): void {
    this.data.dispose();
  }
}
