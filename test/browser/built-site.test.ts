// Issue 6 on a real build: `calfeed build` from the demo portal in its hostile mode (so the data
// attacks as well), served by the real `calfeed serve` command, in Debian's headless Chromium.
// site.test.ts covers the same pages on the fixed sample model, where exact texts can be asserted.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { launchChromium, openRecordingPage, startWidgetHost, type PageRecord } from '../support/browser.js';
import { CLI, runCli } from '../support/cli.js';

let work: string;
let portal: DemoPortal;
let serve: ChildProcess;
let siteUrl: string;
let host: { url: string; close(): Promise<void> };
let browser: Browser;
const record: PageRecord = { problems: [], dialogs: [] };
const { problems, dialogs } = record;

/** A free loopback port: the site URL must be known before the build writes its links. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Run `calfeed serve` and wait for its "Serving" line. */
function startServe(dir: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', '--dir', dir, '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`calfeed serve did not start: ${out}`)), 20_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('Serving')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('exit', (code) => reject(new Error(`calfeed serve exited with ${code}: ${out}`)));
  });
}

function openPage(timezoneId = 'Europe/Vilnius'): Promise<Page> {
  return openRecordingPage(browser, record, { locale: 'en-US', timezoneId });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-built-'));
  portal = await startDemoPortal({ faults: 'hostile' });
  const port = await freePort();
  siteUrl = `http://127.0.0.1:${port}/`;
  const build = await runCli(['build', '--base-url', portal.url, '--out', join(work, 'site'), '--cache-dir', join(work, 'cache'), '--site-url', siteUrl, '--quiet'], {
    env: { CALFEED_TOKEN: portal.tokens.university },
    cwd: work,
  });
  expect(build.code, build.stderr).toBe(0);
  serve = await startServe(join(work, 'site'), port);
  host = await startWidgetHost(work, siteUrl, { lang: 'en', title: 'News' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  serve?.kill('SIGTERM');
  await host?.close();
  await portal?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('a real build served by calfeed serve', () => {
  it('every calendar page and the index load without console errors or dialogs, hostile titles shown as text', async () => {
    const manifest = JSON.parse(await readFile(join(work, 'site', 'manifest.json'), 'utf8')) as { calendars: Array<{ slug: string }> };
    expect(manifest.calendars.length).toBeGreaterThan(5);
    const page = await openPage();
    await page.goto(siteUrl);
    expect(await page.locator('h1').count()).toBe(1);
    let hostileShown = 0;
    for (const cal of manifest.calendars) {
      await page.goto(`${siteUrl}calendars/${cal.slug}/`);
      const text = await page.locator('main').innerText();
      if (text.includes('<script>')) hostileShown++;
      // The only scripts are calfeed's own file and JSON data: nothing inline from the portal.
      expect(await page.locator('script:not([src]):not([type="application/ld+json"])').count(), cal.slug).toBe(0);
    }
    expect(hostileShown).toBeGreaterThan(0);
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('subscribe links point to the feeds of the calendar, served with their content types', async () => {
    const page = await openPage();
    await page.goto(`${siteUrl}calendars/science/`);
    const hrefs = await page.locator('a').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
    const base = `${siteUrl}calendars/science/`;
    expect(hrefs).toContain(`webcal://${base.slice('http://'.length)}calendar.ics`);
    expect(hrefs).toContain(`https://calendar.google.com/calendar/r?cid=${encodeURIComponent(`webcal://${base.slice('http://'.length)}calendar.ics`)}`);
    for (const [file, type] of [
      ['rss.xml', 'application/rss+xml'],
      ['atom.xml', 'application/atom+xml'],
      ['feed.json', 'application/feed+json'],
    ] as const) {
      expect(hrefs).toContain(base + file);
      const res = await page.request.get(base + file);
      expect([res.status(), res.headers()['content-type']?.split(';')[0]], file).toEqual([200, type]);
    }
    const ics = await page.request.get(base + 'calendar.ics');
    expect([ics.status(), ics.headers()['content-type']]).toEqual([200, 'text/calendar; charset=utf-8']);
    const mirror = await page.request.get(`${siteUrl}event-calendars`);
    expect([mirror.status(), mirror.headers()['content-type']?.split(';')[0], mirror.headers()['access-control-allow-origin']]).toEqual([200, 'application/json', '*']);
    expect(problems).toEqual([]);
  });

  it("an event page shows the visitor's own time next to the calendar's", async () => {
    const page = await openPage('America/New_York');
    await page.goto(`${siteUrl}calendars/science/`);
    const hrefs = await page.locator('main a[href*="events/"]').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
    let timed = 0;
    for (const href of hrefs) {
      await page.goto(href);
      // All-day events have no visitor's time: a day is the same day everywhere.
      if ((await page.locator('[data-calfeed-local]').count()) === 0) continue;
      await page.locator('.local-time').waitFor({ state: 'visible' });
      // Named in the page's language (standard or daylight time by the event's date), not by its IANA id.
      expect(await page.locator('[data-calfeed-local-zone]').textContent()).toMatch(/^Eastern (Standard|Daylight) Time$/);
      expect(await page.locator('[data-calfeed-local-time]').textContent()).toMatch(/\d{1,2}:\d{2}/);
      timed++;
    }
    expect(timed).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it('widget.js on a page of another origin shows the calendar\'s upcoming events', async () => {
    const page = await openPage();
    await page.goto(host.url);
    await page.locator('#events .calfeed-event').first().waitFor();
    const titles = await page.locator('#events .calfeed-title').allTextContents();
    expect(titles.length).toBeGreaterThan(0);
    for (const title of titles) expect(title.trim()).not.toBe('');
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
  });
});
