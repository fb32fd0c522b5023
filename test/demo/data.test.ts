// The curated set must hold every case issue 2 lists, for any "today".

import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { curatedSource } from '../../src/demo/curated.js';
import { DEMO_TIME_ZONE, anchorDay, isoDay, wallParts, wallTime, type DemoEvent } from '../../src/demo/data.js';
import { scaleSource } from '../../src/demo/scale.js';
import { NOW } from './helpers.js';

const DAY = 86_400_000;

describe('demo data', () => {
  it('wall times agree with luxon across both EU DST changes', () => {
    for (const now of [Date.UTC(2026, 2, 1), Date.UTC(2026, 9, 1)]) {
      const anchor = anchorDay(now);
      for (let day = 0; day < 60; day++) {
        for (const [h, m] of [[0, 0], [9, 30], [17, 0], [23, 45]] as const) {
          const expected = DateTime.fromObject({ year: anchor.year, month: anchor.month, day: anchor.day, hour: h, minute: m }, { zone: DEMO_TIME_ZONE })
            .plus({ days: day })
            .toMillis();
          expect(wallTime(anchor, day, h, m)).toBe(expected);
          const iso = DateTime.fromMillis(expected, { zone: DEMO_TIME_ZONE }).toISO({ suppressMilliseconds: true });
          const { local, offset } = wallParts(expected);
          expect(local + offset).toBe(iso);
        }
        expect(isoDay(anchor, day)).toBe(anchor.plus({ days: day }).toISODate());
      }
    }
  });

  it('curated: every case a real portal throws is present', () => {
    const src = curatedSource(NOW);
    const cals = src.calendars();
    expect(cals).toHaveLength(5);
    expect(cals.map((c) => c.id)).toEqual(expect.arrayContaining([42, '7C9E6679-7425-40DE-944B-E07FC1F90AE7']));
    const all: DemoEvent[] = cals.flatMap((c) => src.events(String(c.id)) ?? []);
    for (const c of cals) {
      const n = src.events(String(c.id))?.length ?? 0;
      expect(n).toBeGreaterThanOrEqual(10);
      expect(n).toBeLessThanOrEqual(20);
    }
    const titles = all.map((e) => e.title).join('\n');
    expect(titles).toMatch(/ąčęėįšųūž/);
    expect(titles).toMatch(/Größe/);
    expect(titles).toMatch(/日本語/);
    expect(all.some((e) => /\p{Extended_Pictographic}/u.test(e.title) && Buffer.byteLength(e.title) > 75)).toBe(true);
    const descriptions = all.map((e) => e.description ?? '').join('\n');
    for (const part of ['<p>', '<ul>', '<li>', '<a href=', '<b>', '&amp;']) expect(descriptions).toContain(part);

    const allDay = all.filter((e) => e.when.kind === 'allDay');
    expect(allDay.some((e) => e.when.kind === 'allDay' && e.when.startDate === e.when.endDate)).toBe(true);
    expect(allDay.some((e) => e.when.kind === 'allDay' && Date.parse(e.when.endDate) - Date.parse(e.when.startDate) === 2 * DAY)).toBe(true);
    expect(all.some((e) => e.cancelled)).toBe(true);
    expect(all.some((e) => e.when.kind === 'timed' && e.when.end === undefined)).toBe(true);
    expect(all.some((e) => e.when.kind === 'timed' && e.when.end !== undefined)).toBe(true);
    expect(all.some((e) => typeof e.location === 'string')).toBe(true);
    expect(all.some((e) => typeof e.location === 'object')).toBe(true);
    expect(all.some((e) => e.organizer?.email)).toBe(true);
    expect(all.some((e) => e.organizer && !e.organizer.email)).toBe(true);
    expect(all.every((e) => e.categories.length > 0)).toBe(true);

    // Spread from ~60 days ago to ~120 days ahead, with upcoming events; updated times in the past, whole seconds.
    const starts = all.map((e) => (e.when.kind === 'timed' ? e.when.start : Date.parse(e.when.startDate)));
    expect(Math.min(...starts)).toBeLessThan(NOW - 50 * DAY);
    expect(Math.max(...starts)).toBeGreaterThan(NOW + 110 * DAY);
    expect(starts.filter((s) => s > NOW).length).toBeGreaterThan(all.length / 2);
    expect(all.every((e) => e.updatedAt < NOW && e.updatedAt % 1000 === 0)).toBe(true);
  });

  it('curated: dates move with today, the rest stays', () => {
    const a = curatedSource(NOW).events('science') ?? [];
    const b = curatedSource(NOW + 7 * DAY).events('science') ?? [];
    expect(b.map((e) => e.title)).toEqual(a.map((e) => e.title));
    const [ea, eb] = [a[0], b[0]];
    if (ea?.when.kind !== 'timed' || eb?.when.kind !== 'timed') throw new Error('expected a timed first event');
    expect(eb.when.start - ea.when.start).toBe(7 * DAY);
  });

  it('scale: generates the requested counts lazily and agrees between list and details', () => {
    const src = scaleSource(NOW, 100, 1000);
    expect(src.calendars()).toHaveLength(100);
    const list = src.events('cal-0042') ?? [];
    expect(list).toHaveLength(1000);
    expect(src.eventIds('cal-0042')).toEqual(list.map((e) => String(e.id)));
    const one = list[500];
    expect(src.event('cal-0042', String(one?.id))).toEqual(one);
    expect(src.event('cal-0042', '1')).toBeUndefined();
    expect(src.facultyCalendarIds().size).toBeLessThan(100);
  });
});
