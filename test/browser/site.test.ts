// The built pages in a real browser: Debian's Chromium driven by playwright-core, pages served by
// `calfeed serve`'s preview server (the widget embedded from another origin: widget.test.ts).
// Screenshots for the README and docs/pages.md are taken here.

import { join } from 'node:path';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTS, HOSTILE, startSampleBench, type SampleBench } from '../support/sample-site.js';

let bench: SampleBench;
let site: { url: string };
let shots: string;
let problems: string[];
let dialogs: string[];
const openPage = (options?: BrowserContextOptions): Promise<Page> => bench.openPage(options);

beforeAll(async () => {
  bench = await startSampleBench();
  site = { url: bench.siteUrl };
  ({ shots } = bench);
  ({ problems, dialogs } = bench.record);
});

afterAll(async () => {
  await bench?.close();
});

describe('pages in Chromium', () => {
  it('a calendar page has working subscribe links and a copy button, and no console errors', async () => {
    const page = await openPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(site.url).origin });
    await page.goto(site.url + 'calendars/science/');
    const hrefs = await page.$$eval('a', (as) => as.map((a) => a.getAttribute('href')));
    const ics = site.url + 'calendars/science/calendar.ics';
    const webcal = ics.replace('http://', 'webcal://');
    expect(hrefs).toContain(webcal);
    expect(hrefs).toContain('https://calendar.google.com/calendar/r?cid=' + encodeURIComponent(webcal));
    expect(hrefs).toContain(`https://outlook.live.com/calendar/0/addfromweb?url=${encodeURIComponent(ics)}&name=Faculty%20of%20Science`);
    for (const [name, type] of [['rss.xml', 'application/rss+xml'], ['atom.xml', 'application/atom+xml'], ['feed.json', 'application/feed+json'], ['calendar.ics', 'text/calendar']] as const) {
      const url = site.url + 'calendars/science/' + name;
      if (name !== 'calendar.ics') expect(hrefs).toContain(url);
      const res = await page.request.get(url);
      expect(res.status(), url).toBe(200);
      expect(res.headers()['content-type'], url).toContain(type);
    }
    await page.screenshot({ path: join(shots, 'calendar.png'), fullPage: true });
    // The copy button appears only with JavaScript, and copies the https address.
    const button = page.locator('button[data-calfeed-copy]');
    await button.click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(ics);
    expect(await button.textContent()).toBe('Copied');
    // Day headings and the cancelled marker are what a visitor sees.
    expect(await page.locator('.day h3').allTextContents()).toEqual([
      'Wednesday, March 25, 2026',
      'Monday, March 30, 2026',
      'Monday, April 6, 2026',
    ]);
    expect(await page.locator('.is-cancelled .event-title').textContent()).toBe('Cancelled Lab tour');
    expect(problems).toEqual([]);
  });

  it("an event page shows the time in the calendar's zone and in the visitor's zone", async () => {
    // The visitor's zone by its name in the page's language, not its IANA id.
    for (const [zone, name, local] of [
      ['America/New_York', 'Eastern Daylight Time', /^Wednesday, March 25, 2026(,| at) 11:00\sAM\s–\s1:00\sPM$/],
      ['Asia/Tokyo', 'Japan Standard Time', /^Thursday, March 26, 2026(,| at) 12:00\s–\s2:00\sAM$/],
    ] as const) {
      const page = await openPage({ timezoneId: zone });
      await page.goto(site.url + 'calendars/science/events/e1.html');
      expect(await page.locator('.facts time').first().textContent()).toMatch(/^Wednesday, March 25, 2026, 5:00\s–\s7:00\sPM$/);
      await page.locator('.local-time').waitFor({ state: 'visible' });
      expect(await page.locator('[data-calfeed-local-zone]').textContent()).toBe(name);
      expect(await page.locator('[data-calfeed-local-time]').textContent()).toMatch(local);
      const ics = await page.request.get(new URL(await page.locator('.actions a').first().getAttribute('href') ?? '', page.url()).href);
      expect([ics.status(), ics.headers()['content-type']]).toEqual([200, 'text/calendar; charset=utf-8']);
    }
    expect(problems).toEqual([]);
  });

  it('hostile titles are shown as text and never run', async () => {
    const page = await openPage();
    await page.goto(site.url + `calendars/${ARTS}/events/x1.html`);
    expect(await page.locator('h1').textContent()).toBe(HOSTILE);
    await page.goto(site.url + `calendars/${ARTS}/events/a1.html`);
    expect(await page.locator('h1').textContent()).toBe('Choir concert <script>alert(1)</script>');
    await page.goto(site.url + `calendars/${ARTS}/`);
    expect(await page.locator('.event-title a').allTextContents()).toEqual([HOSTILE, 'Choir concert <script>alert(1)</script>']);
    await page.goto(site.url + `calendars/${ARTS}/widget.html`);
    expect(await page.locator('.event-title a').allTextContents()).toContain(HOSTILE);
    expect(await page.locator('main img').count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
  });
});
