import { describe, expect, it } from 'vitest';
import { formatProgress } from '../../src/pipeline/progress.js';
import type { CrawlProgress } from '../../src/crawl/index.js';

describe('formatProgress', () => {
  const p = { calendarsTotal: 4, calendarsDone: 4, eventsTotal: 1000, detailsDone: 250, requests: 255 };

  it('shows counts, the share read, request rate and an ETA from the details pace once every list is in', () => {
    // 250 details in 10 s -> 750 left at 25/s = 30 s.
    expect(formatProgress(p, 10_000, false)).toBe('calendars 4/4, events 250 read of 1,000 (25%), 255 requests (26/s) ETA 30s');
  });

  it('draws a bar on a terminal', () => {
    expect(formatProgress(p, 10_000, true)).toMatch(/^\[#####\.{15}\] calendars/);
  });

  it('shows events known so far, with no percentage, bar or ETA, while the first lists arrive', () => {
    const line = formatProgress({ calendarsTotal: 20, calendarsDone: 3, eventsTotal: 2000, detailsDone: 1234, requests: 1240 }, 10_000, true);
    expect(line).toBe('calendars 3/20, events 1,234 read of 2,000 known so far, 1,240 requests (124/s)');
  });

  it('estimates an ETA before every list is in, once a quarter of the calendars are listed', () => {
    // 5 of 20 calendars hold 500 events: about 2,000 in all; 400 read in 10 s -> 1,600 left at 40/s.
    const line = formatProgress({ calendarsTotal: 20, calendarsDone: 5, eventsTotal: 500, detailsDone: 400, requests: 405 }, 10_000, false);
    expect(line).toMatch(/known so far, .* ETA ~40s$/);
  });

  it('writes minutes without a 60th second', () => {
    expect(formatProgress({ ...p, detailsDone: 1, requests: 1 }, 119_950 / 999, false)).toMatch(/ETA 2m00s$/);
  });
});

// Issue 20: as calendars were found the bar went 95% -> 68% -> 54%, and the ETA came only at the end.
describe('progress never goes backwards', () => {
  /** The snapshots a crawl gives: each calendar listed, then its details read, before the next list. */
  function crawlSnapshots(eventsPerCalendar: number[]): CrawlProgress[] {
    const out: CrawlProgress[] = [];
    const p: CrawlProgress = { calendarsTotal: eventsPerCalendar.length, calendarsDone: 0, eventsTotal: 0, detailsDone: 0, requests: 1 };
    out.push({ ...p });
    for (const events of eventsPerCalendar) {
      p.calendarsDone++;
      p.eventsTotal += events;
      p.requests++;
      out.push({ ...p });
      for (let i = 0; i < events; i++) {
        p.detailsDone++;
        p.requests++;
        out.push({ ...p });
      }
    }
    return out;
  }

  const snapshots = crawlSnapshots([40, 15, 25, 3, 60, 10, 30, 12]);
  const lines = snapshots.map((s, i) => formatProgress(s, (i + 1) * 50, true));
  const percents = lines.map((l) => /\((\d+)%\)/.exec(l)?.[1]).filter((x) => x !== undefined).map(Number);
  const bars = lines.map((l) => /^\[(#*)\.*\]/.exec(l)?.[1]?.length).filter((x) => x !== undefined);

  it('shows a percentage and a bar that never decrease, and reach 100%', () => {
    expect(percents.length).toBeGreaterThan(0);
    for (let i = 1; i < percents.length; i++) expect(percents[i], lines.join('\n')).toBeGreaterThanOrEqual(percents[i - 1]!);
    for (let i = 1; i < bars.length; i++) expect(bars[i], lines.join('\n')).toBeGreaterThanOrEqual(bars[i - 1]!);
    expect(percents.at(-1)).toBe(100);
    expect(bars.at(-1)).toBe(20);
  });

  it('says how many events are known so far while calendars are still being listed', () => {
    expect(lines[2]).toMatch(/^calendars 1\/8, events 1 read of 40 known so far, /);
  });

  it('gives an ETA well before the last calendar is listed', () => {
    const lastListed = snapshots.findIndex((s) => s.calendarsDone === s.calendarsTotal);
    const firstEta = lines.findIndex((l) => / ETA /.test(l));
    expect(firstEta).toBeGreaterThan(0);
    expect(firstEta).toBeLessThan(lastListed / 2);
  });
});
