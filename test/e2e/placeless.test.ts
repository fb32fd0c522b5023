// The build's warning for upcoming events without a location (issue 19: editors fix them at the
// portal), checked against what the published site says, through every way a build can go: a crawl,
// a rebuild that finds nothing changed, one rendered from the build store's events as time passes,
// and a crawl after a change at the portal.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { buildAt, type BuildAt } from '../support/build-at.js';

const NOW = Date.parse('2026-03-02T09:00:00Z');
const DAY = 86_400_000;

let work: string;
let portal: DemoPortal;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-placeless-'));
  portal = await startDemoPortal({ now: NOW });
});
afterAll(async () => {
  await portal?.close();
  await rm(work, { recursive: true, force: true });
});

interface SearchEntry {
  url: string;
  place?: string;
  cancelled: boolean;
}

/**
 * The published site's own account: search.json's upcoming events that are not cancelled and have
 * no place, as [calendar, event] (the demo's slugs are its ids), each page's JSON-LD without a location.
 */
async function placelessOnSite(site: string): Promise<Array<[string, string]>> {
  const { events } = JSON.parse(await readFile(join(site, 'search.json'), 'utf8')) as { events: SearchEntry[] };
  const found: Array<[string, string]> = [];
  for (const e of events) {
    if (e.cancelled || e.place) continue;
    const [, calendar, id] = /^calendars\/([^/]+)\/events\/([^/]+)\.html$/.exec(e.url)!;
    const html = await readFile(join(site, e.url), 'utf8');
    const ld = JSON.parse(/<script type="application\/ld\+json">([^<]*)<\/script>/.exec(html)![1]!) as Record<string, unknown>;
    expect(ld.location, e.url).toBeUndefined();
    found.push([calendar!, id!]);
  }
  return found;
}

/** The events a placeless warning names, as [calendar, event]; its count. */
function named(warnings: string[]): { count: number; events: Array<[string, string]> } | undefined {
  const mine = warnings.filter((w) => /upcoming events? ha(s|ve) no location/.test(w));
  expect(mine.length, warnings.join('\n')).toBeLessThanOrEqual(1);
  if (mine.length === 0) return undefined;
  const events = [...mine[0]!.matchAll(/event "([^"]+)" of calendar "([^"]+)"/g)].map((m): [string, string] => [m[2]!, m[1]!]);
  return { count: Number(/^(\d+) upcoming/.exec(mine[0]!)![1]), events };
}

// What the crawl says when every listed event was taken from the last build's row.
const ALL_FROM_STORE = /(\d+) of \1 events unchanged at the portal, taken from the last build as they were/;

const sorted = (pairs: Array<[string, string]>): Array<[string, string]> => [...pairs].sort((a, b) => (a.join('/') < b.join('/') ? -1 : 1));

describe('the warning for upcoming events without a location', () => {
  it('names what the site shows as upcoming without a place, once, whether the build crawled, found nothing changed or took every event from its store', async () => {
    // Details re-checked only yearly: weeks on, a rebuild still takes every event from the store.
    const run: BuildAt = { portal, work, site: join(work, 'site'), cache: join(work, 'cache'), now: NOW, flags: { detailsMaxAge: '365d' } };
    const at = async (now: number) => {
      const built = await buildAt({ ...run, now });
      const site = await placelessOnSite(run.site);
      return { ...built, site, warned: named(built.summary.warnings) };
    };

    const cold = await at(NOW);
    expect(cold.site.length).toBeGreaterThan(1);
    expect(sorted(cold.warned!.events)).toEqual(sorted(cold.site));
    expect(cold.warned!.count).toBe(cold.site.length);

    // Nothing changed: the record's warning, as it was.
    const same = await at(NOW);
    expect(same.summary.upToDate).toBe(true);
    expect(same.summary.warnings).toEqual(cold.summary.warnings);

    // A day on: every event from the store, the warning worked out again, not repeated too.
    const dayOn = await at(NOW + DAY);
    expect(dayOn.log).toMatch(ALL_FROM_STORE);
    expect(dayOn.summary.warnings).toEqual(cold.summary.warnings);

    // Fifty days on, one of them has happened: the warning follows the clock.
    const later = await at(NOW + 50 * DAY);
    expect(later.log).toMatch(ALL_FROM_STORE);
    expect(later.site.length).toBeLessThan(cold.site.length);
    expect(sorted(later.warned!.events)).toEqual(sorted(later.site));

    // A change at the portal: a crawl, the same account.
    portal.changeEvents(2);
    const changed = await at(NOW + 50 * DAY);
    expect(changed.log).not.toMatch(ALL_FROM_STORE);
    expect(changed.summary.warnings).toEqual(later.summary.warnings);

    // When all of them have happened, no warning.
    const past = await at(NOW + 400 * DAY);
    expect(past.site).toEqual([]);
    expect(past.warned).toBeUndefined();
  });
});
