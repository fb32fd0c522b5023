// What one feed item says about an event: its title line, its HTML body and the machine-readable
// extension the widget reads. Shared by RSS, Atom and JSON Feed so the three agree.

import { isCancelled, type FeedEvent, type SiteContext } from '../../model.js';
import { absoluteUrl, paths } from '../../paths.js';
import type { RenderContext } from '../context.js';
import type { PageText } from '../html/messages.js';
import { sanitizeHtml } from '../sanitize.js';
import { escapeHtml, stripControl } from '../text.js';
import { uriValue } from '../ical/lines.js';
import { eventEndMs, eventStartMs, formatWhenLong, formatWhenShort } from './when.js';

/** Absolute URLs of an event's own outputs. */
export function eventLinks(ctx: RenderContext, event: FeedEvent, site: SiteContext): { page: string; ics: string; portal?: string } {
  const portal = uriValue(ctx, event.url);
  return {
    page: absoluteUrl(site.siteUrl, paths.eventPage(event.calendarSlug, event.slug)),
    ics: absoluteUrl(site.siteUrl, paths.eventIcs(event.calendarSlug, event.slug)),
    ...(portal ? { portal } : {}),
  };
}

export type EventLinks = ReturnType<typeof eventLinks>;

/** Media types of the image formats feed readers show, by file extension. */
const IMAGE_TYPES: Record<string, string> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif' };

/** The media type of an image file extension (any case), if readers show that format. */
export function imageType(extension: string): string | undefined {
  return Object.hasOwn(IMAGE_TYPES, extension.toLowerCase()) ? IMAGE_TYPES[extension.toLowerCase()] : undefined;
}

export interface EventImage {
  url: string;
  type?: string;
}

/**
 * The event's image as an http(s) URL, with its media type when its file name tells it (an RSS
 * enclosure must state one; an image URL without a known extension goes only where none is needed).
 */
export function eventImage(ctx: RenderContext, event: FeedEvent): EventImage | undefined {
  const url = uriValue(ctx, event.image);
  if (url === undefined) return undefined;
  const extension = /\.([a-z0-9]+)$/i.exec(new URL(url).pathname)?.[1];
  const type = extension === undefined ? undefined : imageType(extension);
  return type === undefined ? { url } : { url, type };
}

/**
 * Plain-text item title: the event's own date first (readers sort and show items by their
 * publication date, so the title is where the event's date must be visible), then the title.
 */
export function itemTitle(ctx: RenderContext, event: FeedEvent, site: SiteContext, zone: string, text: PageText): string {
  const title = `${formatWhenShort(ctx, event, site.locale, zone)} — ${stripControl(event.title).trim()}`;
  return isCancelled(event) ? text.t('feed.cancelledTitle', { title }) : title;
}

/** The item body as HTML: cancellation notice, when (with zone), where, the image (eventImage), description, links. */
export function itemBody(ctx: RenderContext, event: FeedEvent, links: EventLinks, site: SiteContext, zone: string, image: EventImage | undefined, text: PageText): string {
  const t = (key: string): string => escapeHtml(text.t(key));
  const parts: string[] = [];
  if (isCancelled(event)) parts.push(`<p><strong>${t('event.cancelled')}</strong></p>`);
  parts.push(`<p><strong>${t('feed.when')}</strong> ${escapeHtml(formatWhenLong(ctx, event, site.locale, zone))}</p>`);
  const where = event.location?.text ? stripControl(event.location.text).trim() : '';
  if (where) parts.push(`<p><strong>${t('feed.where')}</strong> ${escapeHtml(where)}</p>`);
  // Readers that ignore enclosures still show an image in the body.
  if (image) parts.push(`<p><img src="${escapeHtml(image.url)}" alt=""></p>`);
  // Relative links in the portal's HTML are relative to the event's portal page.
  if (event.description) parts.push(sanitizeHtml(ctx, event.description, links.portal));
  const more = [`<a href="${escapeHtml(links.page)}">${t('feed.eventPage')}</a>`, `<a href="${escapeHtml(links.ics)}">${t('feed.addToCalendar')}</a>`];
  if (links.portal) more.unshift(`<a href="${escapeHtml(links.portal)}" rel="noopener">${t('feed.onPortal')}</a>`);
  parts.push(`<p>${more.join(' · ')}</p>`);
  return parts.join('\n');
}

/** The `_calfeed` JSON Feed extension the widget renders from: ISO strings, no HTML. */
export interface CalfeedItemExtension {
  calendarId: string;
  eventId: string;
  /** The event's own title, plain text (the item title also carries the date). */
  title: string;
  /** ISO instant the event starts (all-day: midnight in its zone). */
  start: string;
  /** ISO instant the event ends, exclusive; null for a timed event without an end. */
  end: string | null;
  allDay: boolean;
  /** `YYYY-MM-DD` for all-day events, else null. */
  startDate: string | null;
  /** Last day, inclusive, `YYYY-MM-DD`, for all-day events, else null. */
  endDate: string | null;
  timeZone: string;
  location: string | null;
  status: 'confirmed' | 'tentative' | 'cancelled';
  /** The event on the portal, else our event page. */
  url: string;
  /** Absolute URL of the event's .ics. */
  ics: string;
}

/** Machine-readable facts for JSON Feed consumers such as widget.js. */
export function calfeedExtension(ctx: RenderContext, event: FeedEvent, links: EventLinks, zone: string): CalfeedItemExtension {
  const allDay = event.when.kind === 'allDay';
  const hasEnd = allDay || (event.when.kind === 'timed' && event.when.end !== undefined);
  return {
    calendarId: event.calendarId,
    eventId: event.id,
    title: stripControl(event.title).trim(),
    start: new Date(eventStartMs(ctx, event, zone)).toISOString(),
    end: hasEnd ? new Date(eventEndMs(ctx, event, zone)).toISOString() : null,
    allDay,
    startDate: event.when.kind === 'allDay' ? event.when.startDate : null,
    endDate: event.when.kind === 'allDay' ? event.when.endDate : null,
    timeZone: zone,
    location: event.location?.text ? stripControl(event.location.text).trim() || null : null,
    status: isCancelled(event) ? 'cancelled' : event.status,
    url: links.portal ?? links.page,
    ics: links.ics,
  };
}
