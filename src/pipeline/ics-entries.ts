// The VEVENTs of a calendar.ics (a calendar's, a category's or the combined one): which events, in
// what order, and the file as pieces, each VEVENT read from the spool or rendered for a removed event.

import type { FeedEvent, SiteContext } from '../model.js';
import type { RenderContext } from '../render/context.js';
import { ICS_FOOTER, inIcalWindow, veventText } from '../render/ical/index.js';
import { eventEndMs, eventStartMs } from '../render/syndication/when.js';
import { compareRefs, type EventRef, type EventSpool } from './spool.js';

/** A VEVENT of a calendar.ics: a spooled event's, or a removed event's rendered now. */
export interface IcsEntry {
  start: number;
  calendarId: string;
  id: string;
  /** Where its VEVENT is spooled: not the whole ref, which would keep an object per event alive (20 MB at 100,000). */
  ref?: VeventSpan;
  text?: string;
}

type VeventSpan = Pick<EventRef, 'at' | 'jsonBytes' | 'veventBytes'>;

/** A calendar's calendar.ics entries in the iCalendar window, live and removed, in start order. */
export function icsEntries(ctx: RenderContext, refs: Iterable<EventRef>, removed: readonly FeedEvent[], zone: string, site: SiteContext): IcsEntry[] {
  const entries = liveEntries(refs, site);
  for (const event of removed) {
    const end = eventEndMs(ctx, event, zone);
    if (!inIcalWindow(end, site)) continue;
    entries.push({ start: eventStartMs(ctx, event, zone), calendarId: event.calendarId, id: event.id, text: veventText(ctx, event, site) });
  }
  return entries.sort(compareRefs);
}

/** The calendar.ics entries of live events: those in the iCalendar window, in the order given. */
export function liveEntries(refs: Iterable<EventRef>, site: SiteContext, into: IcsEntry[] = []): IcsEntry[] {
  for (const { start, end, calendarId, id, at, jsonBytes, veventBytes } of refs) if (inIcalWindow(end, site)) into.push({ start, calendarId, id, ref: { at, jsonBytes, veventBytes } });
  return into;
}

/** A calendar.ics as pieces: header, each entry's VEVENT, footer (staging gathers them into blocks). */
export function* icsChunks(header: string, entries: readonly IcsEntry[], spool: EventSpool): Generator<string | Buffer> {
  yield header;
  for (const entry of entries) yield entry.text ?? spool.vevent(entry.ref!);
  yield ICS_FOOTER;
}
