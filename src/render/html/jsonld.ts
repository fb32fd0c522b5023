// schema.org Event JSON-LD for search engines. The JSON goes inside a <script> element, where the
// HTML parser ends the element at the first "</script" whatever the JSON means, so every character
// that could start markup is written as a \u escape: still the same JSON, but inert as HTML.

import type { Calendar, EventLocation, FeedEvent } from '../../model.js';
import { isCancelled } from '../../model.js';
import { absoluteUrl, paths } from '../../paths.js';
import type { RenderContext } from '../context.js';
import { htmlToText } from '../text.js';
import { isoInZone } from './format.js';
import { safeHttpUrl } from './links.js';

/** JSON text that is safe to place verbatim inside an HTML <script> element: `chars` as \u escapes. */
export function escapeJsonForScript(json: string, chars = /[<>&\u2028\u2029]/g): string {
  return json.replace(chars, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** The schema.org Event object for one event (plain data; see eventJsonLd for the script text). */
export function eventSchema(ctx: RenderContext, cal: Calendar, e: FeedEvent, siteUrl: string, zone: string): Record<string, unknown> {
  const when = e.when;
  const startDate = when.kind === 'allDay' ? when.startDate : isoInZone(ctx, when.start, zone);
  const endDate =
    when.kind === 'allDay' ? when.endDate : when.end === undefined ? undefined : isoInZone(ctx, when.end, zone);
  const schema: Record<string, unknown> = {
    '@context': 'https://schema.org',
    '@type': 'Event',
    name: e.title,
    startDate,
    ...(endDate === undefined ? {} : { endDate }),
    eventStatus: isCancelled(e) ? 'https://schema.org/EventCancelled' : 'https://schema.org/EventScheduled',
    url: absoluteUrl(siteUrl, paths.eventPage(cal.slug, e.slug)),
  };
  if (e.description) schema.description = htmlToText(ctx, e.description);
  if (e.location) Object.assign(schema, whereSchema(ctx, e.location));
  const image = safeHttpUrl(ctx, e.image);
  if (image) schema.image = [image];
  if (e.organizer?.name || e.organizer?.email) {
    schema.organizer = {
      '@type': 'Organization',
      ...(e.organizer.name ? { name: e.organizer.name } : {}),
      ...(e.organizer.email ? { email: e.organizer.email } : {}),
    };
  }
  const sameAs = safeHttpUrl(ctx, e.url);
  if (sameAs) schema.sameAs = sameAs;
  return schema;
}

/**
 * Where the event happens, as Google's Event rich results require: a VirtualLocation for a web
 * address, else a Place whose address is the portal's parts, its address text, or the location text.
 */
function whereSchema(ctx: RenderContext, location: EventLocation): Record<string, unknown> {
  const online = safeHttpUrl(ctx, /^https?:\/\/\S+$/i.test(location.text) ? location.text : undefined);
  if (online) {
    return { eventAttendanceMode: 'https://schema.org/OnlineEventAttendanceMode', location: { '@type': 'VirtualLocation', url: online } };
  }
  const parts = location.addressParts;
  const address = parts ? { '@type': 'PostalAddress', ...parts } : (location.address ?? location.text);
  return {
    eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
    location: { '@type': 'Place', name: location.name ?? location.text, address },
  };
}

/** The JSON-LD text for an event page's <script type="application/ld+json">. */
export function eventJsonLd(ctx: RenderContext, cal: Calendar, e: FeedEvent, siteUrl: string, zone: string): string {
  return escapeJsonForScript(JSON.stringify(eventSchema(ctx, cal, e, siteUrl, zone)));
}
