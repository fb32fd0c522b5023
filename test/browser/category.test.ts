// Issue 19: a category page of a real build in Chromium (Debian's, through playwright-core): the
// demo portal's build served by `calfeed serve`'s preview server, a visitor going from the home
// page to a category, to one of its events and back through the event's category link. The
// screenshot in the README is taken here.

import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPreviewServer } from '../../src/serve/index.js';
import { launchChromium, openRecordingPage, type PageRecord } from '../support/browser.js';
import { runCli } from '../support/cli.js';

const SCREENSHOTS = process.env.CALFEED_UPDATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('./screenshots/', import.meta.url)) : undefined;

let work: string;
let server: { url: string; close(): Promise<void> };
let browser: Browser;
const record: PageRecord = { problems: [], dialogs: [] };

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-category-'));
  const out = join(work, 'out');
  await mkdir(out);
  server = await startPreviewServer({ dir: out, port: 0 });
  // The embedded demo portal: its "Lecture" events (science) and one "lecture" (sports).
  const build = await runCli(['build', '--out', out, '--cache-dir', join(work, 'cache'), '--site-url', server.url, '--quiet'], { cwd: work });
  expect(build.code, build.stderr).toBe(0);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

describe('a category page in Chromium', () => {
  it('is reached from the home page, lists the events of every calendar in it, subscribes, and links back from its events', async () => {
    const page = await openRecordingPage(browser, record, { locale: 'en-US', timezoneId: 'Europe/Vilnius', viewport: { width: 1000, height: 1100 } });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(server.url).origin });
    await page.goto(server.url + 'index.html');
    await page.locator('.categories a', { hasText: /^Lecture$/ }).click();
    expect(page.url()).toBe(server.url + 'categories/lecture/index.html');
    expect(await page.locator('h1').textContent()).toBe('Lecture');
    // Events of two calendars, each naming its own.
    const calendars = await page.locator('.event-calendar a').allTextContents();
    expect(new Set(calendars)).toEqual(new Set(['Faculty of Science', 'University Sports']));
    expect(await page.locator('.is-cancelled .event-title').first().textContent()).toBe('Cancelled Guest Lecture: CRISPR Gene Editing');

    // Subscribe links and feeds of the category, served with their types.
    const ics = server.url + 'categories/lecture/calendar.ics';
    const hrefs = await page.$$eval('a', (as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs).toContain(ics.replace('http://', 'webcal://'));
    for (const [name, type] of [['rss.xml', 'application/rss+xml'], ['atom.xml', 'application/atom+xml'], ['feed.json', 'application/feed+json'], ['calendar.ics', 'text/calendar']] as const) {
      const url = server.url + 'categories/lecture/' + name;
      if (name !== 'calendar.ics') expect(hrefs).toContain(url);
      const res = await page.request.get(url);
      expect([res.status(), res.headers()['content-type']?.split(';')[0]], url).toEqual([200, type]);
    }
    await page.screenshot({ path: join(SCREENSHOTS ?? work, 'category.png'), fullPage: true });
    const button = page.locator('button[data-calfeed-copy]');
    await button.click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(ics);

    // To an event of the other calendar, and back by its category link, spelt as the event spells it.
    await page.locator('.event-title a', { hasText: 'Sports Medicine Talk' }).click();
    expect(page.url()).toMatch(/\/calendars\/sports\/events\/3012\.html$/);
    await page.locator('a.tag', { hasText: /^lecture$/ }).click();
    expect(page.url()).toBe(server.url + 'categories/lecture/index.html');
    await page.locator('main a', { hasText: 'All categories' }).click();
    expect(page.url()).toBe(server.url + 'categories/index.html');
    expect(await page.locator('.categories li', { hasText: 'Lecture' }).locator('.count').textContent()).toMatch(/^\d+ upcoming events?$/);
    expect(record.problems).toEqual([]);
    expect(record.dialogs).toEqual([]);
    await page.context().close();
  });

  it('works without JavaScript: the lists and links are in the HTML', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(server.url + 'categories/lecture/index.html');
    expect(await page.locator('.event').count()).toBeGreaterThan(1);
    // The copy button needs JavaScript and stays hidden; the address is there to select.
    expect(await page.locator('button[data-calfeed-copy]').isVisible()).toBe(false);
    expect(await page.locator('#calfeed-url').inputValue()).toBe(server.url + 'categories/lecture/calendar.ics');
    await context.close();
  });
});
