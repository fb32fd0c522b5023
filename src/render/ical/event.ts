// One VEVENT. Every value comes from the model and its build history, never from the clock, so the
// same data gives the same bytes and calendar apps see no phantom updates.

import { eventPublished, eventStamp, isCancelled, type FeedEvent, type SiteContext } from '../../model.js';
import { absoluteUrl, paths } from '../../paths.js';
import type { RenderContext } from '../context.js';
import { htmlToText, stripControl } from '../text.js';
import { dateValue, escapeText, paramValue, uriValue, utcDateTime } from './lines.js';
import { addDays } from '../../calendar-date.js';

/**
 * Percent-encode everything but RFC 3986 unreserved characters: injective ('%' is encoded too), and
 * free of '/', '@', ',', ';', '\' and whitespace, so UID parts need no escaping and cannot run
 * together. A lone surrogate becomes %uXXXX, a form the byte encoding never produces.
 */
function encodeIdPart(id: string): string {
  // Most ids are plain already (numbers, slugs): nothing to encode.
  if (UNRESERVED.test(id)) return id;
  let out = '';
  for (const ch of id) {
    const code = ch.codePointAt(0) ?? 0;
    if (/^[A-Za-z0-9\-._~]$/.test(ch)) out += ch;
    else if (code >= 0xd800 && code <= 0xdfff) out += '%u' + code.toString(16).toUpperCase().padStart(4, '0');
    else for (const byte of Buffer.from(ch, 'utf8')) out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

const UNRESERVED = /^[A-Za-z0-9\-._~]*$/;

/** The site's host name, lower case, for UIDs; a site URL that does not parse keeps its text. */
function siteHost(ctx: RenderContext, site: SiteContext): string {
  // One site URL per build, asked once per VEVENT: parsed once.
  if (ctx.siteHost?.siteUrl !== site.siteUrl) ctx.siteHost = { siteUrl: site.siteUrl, host: parseHost(site.siteUrl) };
  return ctx.siteHost.host;
}

function parseHost(siteUrl: string): string {
  try {
    return new URL(siteUrl).host.toLowerCase();
  } catch {
    return encodeIdPart(siteUrl);
  }
}

/** The stable UID of an event: from calendar id + event id + the site host, identical across builds. */
export function eventUid(ctx: RenderContext, event: FeedEvent, site: SiteContext): string {
  // Ids, not path slugs: a slug can change when a case-twin id appears, a portal id does not.
  return `${encodeIdPart(event.calendarId)}/${encodeIdPart(event.id)}@${siteHost(ctx, site)}`;
}

/** STATUS value: removed events are cancelled so subscribed apps drop them. */
function status(event: FeedEvent): string {
  if (isCancelled(event)) return 'CANCELLED';
  return event.status === 'tentative' ? 'TENTATIVE' : 'CONFIRMED';
}

/** A plain ASCII address that is safe inside a mailto: URI as is; anything else gets no ORGANIZER rather than a broken one. */
function organizerEmail(email: string | undefined): string | undefined {
  const trimmed = email?.trim();
  return trimmed && /^[A-Za-z0-9!$&'*+\-/=^_`{|}~.]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(trimmed) ? trimmed : undefined;
}

/** Clean a model string for a TEXT value: control characters out, then RFC 5545 escaping. */
function text(value: string): string {
  return escapeText(stripControl(value));
}

/** The unfolded content lines of one VEVENT. */
export function veventLines(ctx: RenderContext, event: FeedEvent, site: SiteContext): string[] {
  const lines = ['BEGIN:VEVENT', `UID:${eventUid(ctx, event, site)}`];
  // DTSTAMP and LAST-MODIFIED are the same instant.
  const stamp = utcDateTime(eventStamp(event));
  lines.push(`DTSTAMP:${stamp}`);
  if (event.when.kind === 'allDay') {
    // DTEND of a DATE event is exclusive (RFC 5545 3.6.1): the day after the last day.
    lines.push(`DTSTART;VALUE=DATE:${dateValue(event.when.startDate)}`);
    lines.push(`DTEND;VALUE=DATE:${dateValue(addDays(event.when.endDate, 1))}`);
  } else {
    lines.push(`DTSTART:${utcDateTime(event.when.start)}`);
    // No end, no DTEND (nor an invented DURATION): RFC 5545 reads that as ending when it starts,
    // and calendar apps import it so, rather than showing an end the portal never gave.
    if (event.when.end !== undefined && event.when.end > event.when.start) {
      lines.push(`DTEND:${utcDateTime(event.when.end)}`);
    }
  }
  lines.push(`CREATED:${utcDateTime(eventPublished(event))}`);
  lines.push(`LAST-MODIFIED:${stamp}`);
  lines.push(`SEQUENCE:${Math.max(0, Math.trunc(event.sequence))}`);
  lines.push(`STATUS:${status(event)}`);
  lines.push(`SUMMARY:${text(event.title)}`);
  const description = event.description ? htmlToText(ctx, event.description) : '';
  if (description) lines.push(`DESCRIPTION:${text(description)}`);
  const location = event.location?.text ? stripControl(event.location.text).trim() : '';
  if (location) lines.push(`LOCATION:${escapeText(location)}`);
  const url = uriValue(ctx, event.url) ?? absoluteUrl(site.siteUrl, paths.eventPage(event.calendarSlug, event.slug));
  lines.push(`URL;VALUE=URI:${url}`);
  const categories = event.categories.map((c) => stripControl(c).trim()).filter((c) => c !== '');
  // Each item is escaped on its own: a comma inside a category must not split it in two.
  if (categories.length) lines.push(`CATEGORIES:${categories.map(escapeText).join(',')}`);
  const email = organizerEmail(event.organizer?.email);
  if (email) {
    const name = stripControl(event.organizer?.name ?? '').trim();
    lines.push(`ORGANIZER${name ? `;CN=${paramValue(name)}` : ''}:mailto:${email}`);
  }
  lines.push('END:VEVENT');
  return lines;
}
