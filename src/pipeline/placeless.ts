// Google lists a page as an event only when its structured data has a location: the build names
// the upcoming events the portal gives none, in one warning (one per event would bury the rest).

import type { SiteContext } from '../model.js';
import { ownClock } from '../render/clock.js';
import { isUpcomingRef } from './render-keys.js';
import { compareRefs, type EventRef } from './spool.js';

/** How many events the warning names; it counts the rest. */
const NAMED = 10;

/**
 * The warning for the upcoming events, cancelled ones aside, that have no location, naming the
 * soonest (in compareRefs order: the same whatever order the crawl spooled them in); undefined
 * when there are none.
 */
export function placelessWarning(events: ReadonlyMap<string, Iterable<EventRef>>, site: SiteContext): string | undefined {
  const placeless: EventRef[] = [];
  for (const refs of events.values()) {
    for (const ref of refs) if (ref.placeless && !ref.cancelled && isUpcomingRef(ref, site)) placeless.push(ref);
  }
  const count = placeless.length;
  if (count === 0) return undefined;
  const named = placeless.sort(compareRefs).slice(0, NAMED).map((ref) => `event "${ref.id}" of calendar "${ref.calendarId}"`);
  const rest = count > NAMED ? ` and ${count - NAMED} more` : '';
  const subject = count === 1 ? '1 upcoming event has' : `${count} upcoming events have`;
  return (
    `${subject} no location, so search engines will not list ${count === 1 ? 'it' : 'them'} as events (Google's Event ` +
    `structured data requires one); add a place or an online address at the portal: ${named.join(', ')}${rest}.`
  );
}

/**
 * The build's warnings about the site as built, and until when they hold: which events are
 * upcoming depends on "now", so a rebuild that finds nothing changed may repeat them only until then.
 */
export function siteWarnings(events: ReadonlyMap<string, Iterable<EventRef>>, site: SiteContext): { warnings: string[]; until: number } {
  const own = ownClock(site);
  const warning = placelessWarning(events, own);
  return { warnings: warning === undefined ? [] : [warning], until: own.clock.changesAt };
}
