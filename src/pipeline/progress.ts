// Progress of a crawl as one line: a bar on a terminal, a plain line in CI logs. The total grows
// until the last list is in, so a percentage (and a bar) shows only from then, when it can only grow.

import type { CrawlProgress } from '../crawl/index.js';

const BAR_WIDTH = 20;

/** One progress line: calendars, events read, requests per second and an ETA once it can be estimated. */
export function formatProgress(p: CrawlProgress, elapsedMs: number, bar: boolean): string {
  const seconds = Math.max(elapsedMs / 1000, 0.001);
  const rate = p.requests / seconds;
  const listed = p.calendarsTotal > 0 && p.calendarsDone === p.calendarsTotal;
  const calendars = `calendars ${p.calendarsDone}/${p.calendarsTotal}`;
  const requests = `${count(p.requests)} requests (${rate.toFixed(0)}/s)${eta(p, seconds, listed)}`;
  if (!listed) return `${calendars}, events ${count(p.detailsDone)} read of ${count(p.eventsTotal)} known so far, ${requests}`;
  const fraction = p.eventsTotal > 0 ? Math.min(p.detailsDone / p.eventsTotal, 1) : 1;
  // Floored, so 100% means done.
  const percent = Math.floor(fraction * 100);
  const prefix = bar ? `[${'#'.repeat(Math.floor(fraction * BAR_WIDTH)).padEnd(BAR_WIDTH, '.')}] ` : '';
  return `${prefix}${calendars}, events ${count(p.detailsDone)} read of ${count(p.eventsTotal)} (${percent}%), ${requests}`;
}

/**
 * Time left at the pace of the events read so far. Once every list is in, the total is known;
 * before, it is estimated from the events per calendar listed so far (marked "~"), once a quarter
 * of the calendars are listed: fewer are too few a sample.
 */
function eta(p: CrawlProgress, seconds: number, listed: boolean): string {
  if (p.detailsDone === 0) return '';
  const perEvent = seconds / p.detailsDone;
  if (listed) return ` ETA ${formatDuration(Math.max(p.eventsTotal - p.detailsDone, 0) * perEvent)}`;
  if (p.calendarsDone === 0 || p.calendarsDone * 4 < p.calendarsTotal) return '';
  const estimated = (p.eventsTotal / p.calendarsDone) * p.calendarsTotal;
  return ` ETA ~${formatDuration(Math.max(estimated - p.detailsDone, 0) * perEvent)}`;
}

const count = (n: number): string => n.toLocaleString('en-US');

function formatDuration(seconds: number): string {
  const whole = Math.ceil(seconds);
  if (whole < 60) return `${whole}s`;
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
}
