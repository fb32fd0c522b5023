import { describe, expect, it } from 'vitest';
import { formatProgress } from '../../src/build/progress.js';

describe('formatProgress', () => {
  const p = { calendarsTotal: 4, calendarsDone: 4, eventsTotal: 1000, detailsDone: 250, requests: 255 };

  it('shows counts, request rate and an ETA from the details pace', () => {
    // 250 details in 10 s -> 750 left at 25/s = 30 s.
    expect(formatProgress(p, 10_000, false)).toBe('calendars 4/4, details 250/1000, 255 requests (26/s) ETA 30s');
  });

  it('draws a bar on a terminal', () => {
    expect(formatProgress(p, 10_000, true)).toMatch(/^\[#####\.{15}\] calendars/);
  });

  it('gives no ETA while event lists are still arriving', () => {
    expect(formatProgress({ ...p, calendarsDone: 2 }, 10_000, false)).not.toMatch(/ETA/);
  });
});
