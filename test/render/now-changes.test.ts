// Each decision a renderer takes from "now" goes through the site's clock, which remembers when it
// next turns out otherwise; a rebuild relies on it to know that nothing it would render has
// changed. Checked against the predicates themselves on random input: the same answer everywhere
// from "now" until that instant, and another answer at it.

import { describe, expect, it } from 'vitest';
import type { Calendar, SiteContext } from '../../src/model.js';
import { dayKeyOf, nextDayKeyAt } from '../../src/render/html/format.js';
import { clockAt, type Clock } from '../../src/render/clock.js';
import { isUpcoming } from '../../src/render/html/index.js';
import { pageToday } from '../../src/render/html/view.js';
import { inIcalWindow } from '../../src/render/ical/index.js';
import { inFeedWindow } from '../../src/render/syndication/index.js';
import { seeded } from './soup.js';
import { createRenderContext } from '../../src/render/context.js';

const ctx = createRenderContext();

const DAY = 86_400_000;
const BASE = Date.UTC(2026, 2, 29, 0, 30); // a DST weekend in Europe

function site(now: number, icalPastDays = 7): SiteContext {
  return { siteUrl: 'https://e.example/', title: 'T', locale: 'en', timeZone: 'Europe/Vilnius', clock: clockAt(now), feedLimit: 10, icalPastDays, refreshMinutes: 60, version: 'test' };
}

/** Until when the answer `decide` takes from a clock at `now` holds, as that clock recorded it. */
function changesAt(now: number, decide: (clock: Clock) => unknown): number {
  const clock = clockAt(now);
  decide(clock);
  return clock.changesAt;
}

/** The same for a decision taken from the site settings at `now`. */
function siteChangesAt(now: number, decide: (site: SiteContext) => unknown, icalPastDays?: number): number {
  return changesAt(now, (clock) => decide({ ...site(now, icalPastDays), clock }));
}

/**
 * That `decide(t)` is the same for every t in [now, changesAt) (its ends and random points checked)
 * and differs at changesAt when that is finite.
 */
function holdsUntil(decide: (t: number) => unknown, now: number, changesAt: number, random: () => number): void {
  expect(changesAt).toBeGreaterThan(now);
  const first = decide(now);
  const last = Number.isFinite(changesAt) ? changesAt - 1 : now + 400 * DAY;
  for (const t of [now, last, ...Array.from({ length: 8 }, () => now + Math.floor(random() * (last - now + 1)))]) {
    expect(decide(t), `at ${t} (now ${now}, changes at ${changesAt})`).toEqual(first);
  }
  if (Number.isFinite(changesAt)) expect(decide(changesAt), `at ${changesAt}`).not.toEqual(first);
}

/** An instant near `now`: often exactly on it or a millisecond away, where off-by-ones hide. */
function near(now: number, random: () => number): number {
  const r = random();
  if (r < 0.15) return now;
  if (r < 0.3) return now + (random() < 0.5 ? 1 : -1);
  return now + Math.floor((random() - 0.5) * 20 * DAY);
}

describe('when the decisions taken from "now" change', () => {
  const random = seeded(5);

  it('feed window (inFeedWindow)', () => {
    for (let i = 0; i < 500; i++) {
      const now = BASE + Math.floor(random() * 30 * DAY);
      const end = near(now, random);
      holdsUntil((t) => inFeedWindow(end, site(t)), now, siteChangesAt(now, (s) => inFeedWindow(end, s)), random);
    }
  });

  it('iCalendar window (inIcalWindow)', () => {
    for (let i = 0; i < 500; i++) {
      const now = BASE + Math.floor(random() * 30 * DAY);
      const pastDays = Math.floor(random() * 10);
      const end = near(now - pastDays * DAY, random);
      holdsUntil((t) => inIcalWindow(end, site(t, pastDays)), now, siteChangesAt(now, (s) => inIcalWindow(end, s), pastDays), random);
    }
  });

  it('upcoming or past on calendar pages (isUpcoming)', () => {
    for (let i = 0; i < 500; i++) {
      const now = BASE + Math.floor(random() * 30 * DAY);
      const start = near(now, random);
      // Usually after the start, sometimes equal to it (a point in time), rarely before (bad data).
      const r = random();
      const end = r < 0.1 ? start : r < 0.15 ? start - Math.floor(random() * DAY) : start + Math.floor(random() * 3 * DAY);
      const span = { start, end };
      holdsUntil((t) => isUpcoming(span, clockAt(t)), now, changesAt(now, (clock) => isUpcoming(span, clock)), random);
    }
  });

  it("a calendar page's today (pageToday), in zones with DST, odd offsets and DST at midnight", () => {
    const zones = ['Europe/Vilnius', 'UTC', 'America/Sao_Paulo', 'America/Havana', 'America/Santiago', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/St_Johns', 'Asia/Gaza'];
    for (let i = 0; i < 400; i++) {
      const zone = zones[i % zones.length]!;
      // Across ten years, so DST transitions of every kind are among the instants.
      const now = Date.UTC(2020, 0, 1) + Math.floor(random() * 3650 * DAY);
      const cal: Calendar = { id: 'c', slug: 'c', title: 'C', timeZone: zone };
      const at = siteChangesAt(now, (s) => pageToday(ctx, cal, s));
      holdsUntil((t) => pageToday(ctx, cal, site(t)), now, at, random);
      expect(at - now).toBeLessThanOrEqual(2 * DAY);
    }
  });

  it('the next day begins where dayKeyOf says so, also on the day a zone skips midnight', () => {
    // Cuba and Chile have moved their clocks at midnight: the day starts at 01:00 then.
    for (const [zone, iso] of [
      ['America/Havana', '2024-03-09T12:00:00Z'],
      ['America/Santiago', '2024-09-07T12:00:00Z'],
      ['Europe/Vilnius', '2026-03-28T12:00:00Z'],
    ] as const) {
      const now = Date.parse(iso);
      const at = nextDayKeyAt(ctx, now, zone);
      expect(dayKeyOf(ctx, at - 1, zone)).toBe(dayKeyOf(ctx, now, zone));
      expect(dayKeyOf(ctx, at, zone)).not.toBe(dayKeyOf(ctx, now, zone));
    }
  });
});
