// The three API paths of the Event Calendar API, relative to the base URL, in one place.

import { CalfeedError } from '../errors.js';

/** An id as one URL path segment; "." and ".." are refused: URL parsers collapse them (%2E too). */
export function urlSegment(id: string, what: 'calendar' | 'event'): string {
  if (id === '.' || id === '..') {
    throw new CalfeedError(
      'RESPONSE',
      `The ${what} id "${id}" cannot be requested: "." and ".." are not usable in a URL path (they would address another API path).`,
    );
  }
  return encodeURIComponent(id);
}

/** Request paths (relative to the base URL) of the three operations. */
export const apiPaths = {
  calendars: (): string => 'event-calendars',
  events: (calendarId: string): string => `event-calendar/${urlSegment(calendarId, 'calendar')}/events`,
  details: (calendarId: string, eventId: string): string =>
    `event-calendar/${urlSegment(calendarId, 'calendar')}/event/${urlSegment(eventId, 'event')}/details`,
};
