// iCalendar feeds (RFC 5545 with the RFC 7986 calendar properties and the X-WR-* ones Apple,
// Google and Outlook read). Pure: the same model and site context give the same bytes.

import { isCategory, type Calendar, type Category, type FeedEvent, type SiteContext } from '../../model.js';
import { absoluteUrl, paths } from '../../paths.js';
import { reached } from '../clock.js';
import type { RenderContext } from '../context.js';
import { calendarList, htmlToText, stripControl } from '../text.js';
import { veventLines } from './event.js';
import { durationValue, escapeText, serialize } from './lines.js';

const DAY_MS = 86_400_000;

interface CalendarHeader {
  name: string;
  description: string;
  timeZone: string;
  /** Absolute URL of the .ics file itself. */
  source: string;
}

/** The lines every VCALENDAR calfeed writes starts with. */
function preamble(site: SiteContext): string[] {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', `PRODID:-//calfeed//calfeed ${escapeText(stripControl(site.version))}//EN`, 'CALSCALE:GREGORIAN', 'METHOD:PUBLISH'];
}

function headerLines(header: CalendarHeader, site: SiteContext): string[] {
  const name = escapeText(stripControl(header.name));
  const description = escapeText(header.description);
  const refresh = durationValue(site.refreshMinutes);
  const lines = [...preamble(site), `NAME:${name}`, `X-WR-CALNAME:${name}`];
  if (description) lines.push(`DESCRIPTION:${description}`, `X-WR-CALDESC:${description}`);
  lines.push(
    // Every time is UTC; the zone only tells apps which zone the calendar "lives" in for display.
    `X-WR-TIMEZONE:${escapeText(stripControl(header.timeZone))}`,
    // RFC 7986 for new clients, X-PUBLISHED-TTL for Outlook and older Apple Calendar.
    `REFRESH-INTERVAL;VALUE=DURATION:${refresh}`,
    `X-PUBLISHED-TTL:${refresh}`,
    `URL;VALUE=URI:${header.source}`,
    `SOURCE;VALUE=URI:${header.source}`,
  );
  return lines;
}

/** Whether an event ending at endMs (exclusive, epoch ms) is still in the iCalendar window now. */
export function inIcalWindow(endMs: number, site: SiteContext): boolean {
  // Past events stay a while so "what was that talk last week" still works in calendar apps.
  return !reached(site.clock, endMs + site.icalPastDays * DAY_MS + 1);
}

/**
 * The VCALENDAR header of a calendar's, a category's or (cal null) the combined calendar.ics: the
 * file is this, veventText() of each event in the window by start, then ICS_FOOTER.
 */
export function icsHeader(ctx: RenderContext, cal: Calendar | Category | null, calendars: Calendar[], site: SiteContext): string {
  const header: CalendarHeader = !cal
    ? {
        name: site.title,
        description: calendars.length ? `${stripControl(site.title)}: ${calendarList(calendars)}` : '',
        timeZone: site.timeZone,
        source: absoluteUrl(site.siteUrl, paths.site('calendar.ics')),
      }
    : isCategory(cal)
      ? {
          // A category's events come from every calendar: the site's zone, as the combined file.
          name: cal.name,
          description: `${stripControl(site.title)}: ${stripControl(cal.name)}`,
          timeZone: site.timeZone,
          source: absoluteUrl(site.siteUrl, paths.category(cal.slug, 'calendar.ics')),
        }
      : {
          name: cal.title,
          description: cal.description ? htmlToText(ctx, cal.description) : '',
          timeZone: cal.timeZone,
          source: absoluteUrl(site.siteUrl, paths.calendar(cal.slug, 'calendar.ics')),
        };
  return serialize(headerLines(header, site));
}

/** The line that ends every calendar file. */
export const ICS_FOOTER = serialize(['END:VCALENDAR']);

/** One serialized VEVENT: the same text in the event's own .ics and in every calendar.ics. */
export function veventText(ctx: RenderContext, event: FeedEvent, site: SiteContext): string {
  return serialize(veventLines(ctx, event, site));
}

/**
 * One event's .ics (paths.eventIcs) for "add to calendar" buttons: a VCALENDAR with METHOD:PUBLISH
 * and one VEVENT. `vevent` is veventText(ctx, event, site) when the caller has it already.
 */
export function renderEventIcs(ctx: RenderContext, event: FeedEvent, site: SiteContext, vevent = veventText(ctx, event, site)): string {
  // No X-WR-CALNAME here: with it, Outlook and Apple Calendar offer to create a new calendar
  // for a single event instead of adding the event to one the user already has.
  return serialize(preamble(site)) + vevent + ICS_FOOTER;
}
