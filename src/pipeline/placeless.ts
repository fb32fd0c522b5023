// Google lists a page as an event only when its Event structured data has a location, and calfeed
// can give one only when the portal does: editors fix that at the portal, so the build names the
// upcoming events that lack one. In one warning, not one per event: a portal with thousands of them
// would bury every other warning (and past MAX_RECORDED_WARNINGS no rebuild is ever up to date).

import type { SiteContext } from '../model.js';
import { isUpcomingRef } from './render-keys.js';
import type { EventRef } from './spool.js';

/** How many events the warning names; it counts the rest. */
const NAMED = 10;

/**
 * The warning for the upcoming events, cancelled ones aside, that have no location, naming the
 * first few by calendar in the order given; undefined when there are none.
 */
export function placelessWarning(events: ReadonlyMap<string, Iterable<EventRef>>, site: SiteContext): string | undefined {
  const named = new Map<string, string[]>();
  let count = 0;
  for (const [calendarId, refs] of events) {
    for (const ref of refs) {
      if (!ref.placeless || ref.cancelled || !isUpcomingRef(ref, site)) continue;
      if (++count > NAMED) continue;
      let ids = named.get(calendarId);
      if (!ids) named.set(calendarId, (ids = []));
      ids.push(`"${ref.id}"`);
    }
  }
  if (count === 0) return undefined;
  const which = [...named].map(([calendarId, ids]) => `calendar "${calendarId}": ${ids.length === 1 ? 'event' : 'events'} ${ids.join(', ')}`);
  const rest = count > NAMED ? ` and ${count - NAMED} more` : '';
  const subject = count === 1 ? '1 upcoming event has' : `${count} upcoming events have`;
  return (
    `${subject} no location, so search engines will not list ${count === 1 ? 'it' : 'them'} as events (Google's Event ` +
    `structured data requires one); add a place or an online address at the portal: ${which.join('; ')}${rest}.`
  );
}
