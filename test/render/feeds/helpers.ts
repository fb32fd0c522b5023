// Shared helpers for the feed renderer tests: flatten the sample model and parse iCalendar with
// ical.js, the parser Thunderbird uses.

import ICAL from 'ical.js';
import type { FeedEvent, SiteModel } from '../../../src/model.js';

/** Every event of a model, in calendar order. */
export function allEvents(model: SiteModel): FeedEvent[] {
  return [...model.events.values()].flat();
}

/** Parse an iCalendar stream; throws if ical.js rejects it. */
export function parseIcs(text: string): { calendar: ICAL.Component; vevents: ICAL.Component[] } {
  const calendar = new ICAL.Component(ICAL.parse(text));
  return { calendar, vevents: calendar.getAllSubcomponents('vevent') };
}

/** The parsed VEVENT with this UID (throws when missing, so a test cannot pass on undefined). */
export function veventByUid(vevents: ICAL.Component[], uid: string): ICAL.Component {
  const found = vevents.find((v) => v.getFirstPropertyValue('uid') === uid);
  if (!found) throw new Error(`no VEVENT with UID ${uid}`);
  return found;
}

/** Unfolded content lines (RFC 5545 3.1), for asserting the exact text of a property. */
export function unfoldedLines(text: string): string[] {
  return text.replace(/\r\n[ \t]/g, '').split('\r\n').filter((l) => l !== '');
}

/** The first unfolded line that starts with a property name (and ';' or ':'). */
export function line(text: string, name: string): string | undefined {
  return unfoldedLines(text).find((l) => l.startsWith(name + ':') || l.startsWith(name + ';'));
}

/** A DATE or DATE-TIME property as an ICAL.Time (throws for anything else). */
export function timeOf(component: ICAL.Component, name: string): ICAL.Time {
  const value = component.getFirstPropertyValue(name);
  if (!(value instanceof ICAL.Time)) throw new Error(`${name} is not a date-time`);
  return value;
}
