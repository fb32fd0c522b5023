// "Now" as renderers see it. Every decision taken from the time (feed or iCalendar window, upcoming
// or past, a page's today) asks reached() or holdsUntil(), which remember the first instant after
// now at which an answer would change. Until then the same input renders the same bytes, so a
// rebuild can keep its files; the renderer that decides is the one that says how long it holds.

export interface Clock {
  readonly now: number;
  /** The first instant after `now` at which an answer given so far may turn out otherwise (Infinity: none). */
  changesAt: number;
}

/** A clock at `now` that has given no answer yet. */
export function clockAt(now: number): Clock {
  return { now, changesAt: Infinity };
}

/** The same settings with a clock of their own: one per group of files rendered together. */
export function ownClock<T extends { clock: Clock }>(site: T): T {
  return { ...site, clock: clockAt(site.clock.now) };
}

/**
 * Whether instant `t` has come (now >= t). One that has not is remembered: the answer changes
 * then. An instant that is not a number has come (as comparisons with NaN go), and stays so.
 */
export function reached(clock: Clock, t: number): boolean {
  if (!(t > clock.now)) return true;
  if (t < clock.changesAt) clock.changesAt = t;
  return false;
}

/** An answer taken from `now` some other way (say, the day it is in a zone) holds until `t`. */
export function holdsUntil(clock: Clock, t: number): void {
  if (t < clock.changesAt) clock.changesAt = t;
}
