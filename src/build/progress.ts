// Progress of a crawl as one line: a bar on a terminal, a plain line in CI logs. Pure: the caller
// passes the elapsed time, so the text is testable.

import type { CrawlProgress } from '../crawl/index.js';

const BAR_WIDTH = 20;

/** One progress line: calendars, details, requests per second and an ETA once it can be estimated. */
export function formatProgress(p: CrawlProgress, elapsedMs: number, bar: boolean): string {
  const seconds = Math.max(elapsedMs / 1000, 0.001);
  const rate = p.requests / seconds;
  const detailsLeft = Math.max(p.eventsTotal - p.detailsDone, 0);
  const perDetail = p.detailsDone > 0 ? seconds / p.detailsDone : undefined;
  // Details dominate the request count; until all event lists are in, the total is a lower bound.
  const eta = perDetail !== undefined && p.calendarsDone === p.calendarsTotal && p.calendarsTotal > 0 ? ` ETA ${formatDuration(detailsLeft * perDetail)}` : '';
  const fraction = p.eventsTotal > 0 ? p.detailsDone / p.eventsTotal : 0;
  const prefix = bar ? `[${'#'.repeat(Math.round(fraction * BAR_WIDTH)).padEnd(BAR_WIDTH, '.')}] ` : '';
  return `${prefix}calendars ${p.calendarsDone}/${p.calendarsTotal}, details ${p.detailsDone}/${p.eventsTotal}, ${p.requests} requests (${rate.toFixed(0)}/s)${eta}`;
}

function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  const m = Math.floor(seconds / 60);
  return `${m}m${String(Math.ceil(seconds - m * 60)).padStart(2, '0')}s`;
}
