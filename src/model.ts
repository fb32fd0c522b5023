// The model every renderer reads. The normalizer builds it from raw portal JSON; the build-state
// step adds what only history can tell (first seen, sequence, removed events). Renderers never see
// raw JSON, so a portal's dialect is invisible past src/normalize.

import type { Clock } from './render/clock.js';

/** When an event happens: an instant range, or whole days. */
export type EventWhen =
  | {
      kind: 'timed';
      /** Epoch milliseconds, UTC. */
      start: number;
      /** Epoch milliseconds, UTC; absent when the portal gives no end. */
      end?: number;
    }
  | {
      kind: 'allDay';
      /** First day, `YYYY-MM-DD`. */
      startDate: string;
      /** Last day, inclusive, `YYYY-MM-DD` (a one-day event has endDate === startDate). */
      endDate: string;
    };

/** An address as the portal gave it in parts, by schema.org PostalAddress's names. */
export interface EventAddressParts {
  /** Street lines, joined with ", ". */
  streetAddress?: string;
  postalCode?: string;
  addressLocality?: string;
  addressRegion?: string;
  addressCountry?: string;
}

export interface EventLocation {
  name?: string;
  address?: string;
  /** Present when the portal gave the address as an object of parts. */
  addressParts?: EventAddressParts;
  /** One line for text formats: "name, address", or whichever exists. */
  text: string;
}

export interface EventOrganizer {
  name?: string;
  email?: string;
}

export type EventStatus = 'confirmed' | 'tentative' | 'cancelled';

/**
 * A category found across calendars: its identity (categoryKey in src/paths.ts), its folder
 * (categorySlug) and the name shown for it, the spelling most of its events use.
 */
export interface Category {
  key: string;
  slug: string;
  name: string;
}

/** Whether the owner of a feed or calendar file is a category (else a calendar). */
export function isCategory(owner: Calendar | Category): owner is Category {
  return 'key' in owner;
}

/** A calendar as renderers see it. */
export interface Calendar {
  /** The portal's id, as a string (numbers are stringified). */
  id: string;
  /** Safe single path segment for this id (see src/paths.ts). */
  slug: string;
  title: string;
  /** Portal HTML or text; renderers sanitize or convert it. */
  description?: string;
  /** Link to the calendar on the portal, if the portal gives one. */
  url?: string;
  /** IANA zone used to show this calendar's times. */
  timeZone: string;
  /** When the portal stopped listing it (src/state/calendars.ts); absent for a listed calendar. */
  removedAt?: number;
}

/** One event, list entry and details merged (details win). */
export interface CalendarEvent {
  /** Portal id of the calendar this event belongs to. */
  calendarId: string;
  /** Safe path segment of the calendar. */
  calendarSlug: string;
  /** Portal id of the event, as a string. */
  id: string;
  /** Safe single path segment for this id (see src/paths.ts). */
  slug: string;
  title: string;
  when: EventWhen;
  /** Portal HTML (untrusted, unsanitized) or plain text. Renderers go through src/render/sanitize. */
  description?: string;
  location?: EventLocation;
  /** Link to the event on the portal. */
  url?: string;
  status: EventStatus;
  categories: string[];
  organizer?: EventOrganizer;
  /** The portal marks it to be shown first (featured, highlighted, promoted); absent otherwise. */
  featured?: true;
  /** Image URL, if the portal gives one. */
  image?: string;
  /** Epoch ms: the portal's last-updated time, if it gives one. */
  updated?: number;
  /** Epoch ms: the portal's created/published time, if it gives one. */
  created?: number;
  /** Whether the details request failed and the event comes from its list entry only. */
  detailsMissing?: boolean;
}

/** What build state adds to an event: facts that need memory of earlier builds. */
export interface EventHistory {
  /** Epoch ms when calfeed first saw this event. */
  firstSeen: number;
  /** Epoch ms when calfeed first saw the current version of its content. */
  changedAt: number;
  /** RFC 5545 SEQUENCE: 0 at first sight, +1 each time the content changes. */
  sequence: number;
  /** Epoch ms when the event vanished from the API; set only on removed events. */
  removedAt?: number;
}

/** An event ready to render: model plus history. */
export interface FeedEvent extends CalendarEvent, EventHistory {}

/** Helpers that every format uses the same way, so they agree with each other. */
export const eventStamp = (e: FeedEvent): number => e.updated ?? e.changedAt;
// calfeed may first see an event long after the portal last changed it; a publication date later
// than the last change reads as nonsense (Atom readers show <published>, iCalendar has CREATED).
export const eventPublished = (e: FeedEvent): number => e.created ?? Math.min(e.firstSeen, eventStamp(e));
export const isCancelled = (e: Pick<FeedEvent, 'status' | 'removedAt'>): boolean => e.status === 'cancelled' || e.removedAt !== undefined;

/**
 * What a calendar's list pages (index, past, widget) show of an event. A calendar of 100,000
 * events is rendered from these, not from whole events with their descriptions and details.
 */
export type ListEvent = Pick<FeedEvent, 'calendarId' | 'id' | 'slug' | 'title' | 'when' | 'status' | 'removedAt'> & { location?: Pick<EventLocation, 'text'> };

/** An event's ListEvent: the same values, nothing else. */
export function listEvent(e: ListEvent): ListEvent {
  const { calendarId, id, slug, title, when, status, removedAt, location } = e;
  return { calendarId, id, slug, title, when, status, ...(removedAt !== undefined ? { removedAt } : {}), ...(location ? { location: { text: location.text } } : {}) };
}

/** A link of the site's header or footer: its text, and an http(s) URL or a path on the site. */
export interface SiteLink {
  label: string;
  url: string;
}

/** Options every renderer shares. All pure data (the clock too: it is the instant and what was read of it), no disk. */
export interface SiteContext {
  /** Absolute public URL of the output folder, always ending with '/'. */
  siteUrl: string;
  /** Title of the combined feeds and the index page. */
  title: string;
  /** BCP 47 locale for dates (the first of --locale). */
  locale: string;
  /** The whole --locale list: page text comes from the first with a message catalog (default: [locale]). */
  locales?: readonly string[];
  /** Logo in the pages' header: an absolute URL, or a path on the site's host. */
  logo?: string;
  /** Brand colour, #rgb or #rrggbb (CSS --calfeed-primary). */
  primaryColor?: string;
  /** Links in every page's header and footer (--header-link, --footer-link). */
  headerLinks?: readonly SiteLink[];
  footerLinks?: readonly SiteLink[];
  /** Default IANA zone (calendars may override). */
  timeZone: string;
  /**
   * "Now", passed in so renders are reproducible; read only through reached() and holdsUntil()
   * (src/render/clock.ts), which remember until when each answer holds.
   */
  clock: Clock;
  /** Most items in RSS/Atom/JSON Feed. */
  feedLimit: number;
  /** iCalendar keeps events that ended up to this many days ago. */
  icalPastDays: number;
  /** How often calendar apps should refresh, in minutes. */
  refreshMinutes: number;
  /** calfeed version, for PRODID and generator tags. */
  version: string;
}

/** Everything one build renders. */
export interface SiteModel {
  calendars: Calendar[];
  /** Events per calendar id, including removed ones kept as cancelled (removedAt set). */
  events: Map<string, FeedEvent[]>;
}
