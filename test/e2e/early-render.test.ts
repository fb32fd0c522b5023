// Issue 5: a calendar's own files (calendar.ics, feeds, pages) are rendered as soon as all of its
// events are in, while the crawl of the other calendars goes on, so the network's waits are used
// and little is left for the end of the build. The portal here holds one calendar's details back
// until the other calendar's files are in the staging folder: a build that renders every calendar
// at the end never gets there (and the test fails when the wait gives up).

import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { snapshotTree } from '../support/tree.js';
import { buildAt } from '../support/build-at.js';
import { makeEvents, startPortal, type Portal } from '../crawl/portal.js';

const TOKEN = 'early-render-token';
let dir: string;
let portal: Portal | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'calfeed-early-'));
});

afterEach(async () => {
  await portal?.close();
  portal = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** Whether a staging folder beside `site` holds this file yet. */
async function staged(site: string, relPath: string): Promise<boolean> {
  const parent = join(site, '..');
  for (const name of await readdir(parent)) {
    if (!name.includes('.calfeed-staging-')) continue;
    try {
      await stat(join(parent, name, relPath));
      return true;
    } catch {
      // not yet
    }
  }
  return false;
}

it("renders a calendar's files while another calendar's details are still on their way", async () => {
  const site = join(dir, 'site');
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  portal = await startPortal({
    token: TOKEN,
    calendars: [
      { id: 'quick', title: 'Quick' },
      { id: 'slow', title: 'Slow' },
    ],
    events: new Map([
      ['quick', makeEvents('quick', 3)],
      ['slow', makeEvents('slow', 2)],
    ]),
    holdDetails: (calendarId) => (calendarId === 'slow' ? held : undefined),
  });
  const building = buildAt({
    portal: { url: portal.url, timeZone: 'UTC', tokens: { university: TOKEN } },
    work: dir,
    site,
    cache: join(dir, 'cache'),
    now: Date.UTC(2024, 9, 1, 12),
  });
  const early: string[] = [];
  try {
    // Bounded: with rendering left to the end, the files never appear while "slow" is held.
    for (let i = 0; i < 1000 && early.length === 0; i++) {
      if (await staged(site, 'calendars/quick/rss.xml')) early.push('calendars/quick/rss.xml');
      else await new Promise((resolve) => setTimeout(resolve, 10));
    }
    for (const name of ['calendar.ics', 'atom.xml', 'feed.json', 'index.html', 'past.html', 'widget.html']) {
      if (await staged(site, `calendars/quick/${name}`)) early.push(`calendars/quick/${name}`);
    }
    // The other calendar's, and the combined files, wait for its events.
    expect(await staged(site, 'calendars/slow/rss.xml')).toBe(false);
    expect(await staged(site, 'rss.xml')).toBe(false);
  } finally {
    release();
  }
  const { summary } = await building;
  expect(early).toHaveLength(7);
  expect(summary.events).toBe(5);
  const files = await snapshotTree(site);
  for (const calendar of ['quick', 'slow']) {
    for (const name of ['calendar.ics', 'rss.xml', 'atom.xml', 'feed.json', 'index.html', 'past.html', 'widget.html']) {
      expect(files.has(`calendars/${calendar}/${name}`)).toBe(true);
    }
  }
  expect(files.has('rss.xml')).toBe(true);
});
