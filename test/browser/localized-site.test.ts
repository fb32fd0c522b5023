// A site built with `--locale lt`, in Chromium: the page text is Lithuanian under lang="lt", and so
// is what page.js and widget.js write (the copy button, the visitor's zone, the widget's list).

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { startPreviewServer } from '../../src/serve/index.js';
import { launchChromium, openRecordingPage, startWidgetHost, type PageRecord } from '../support/browser.js';
import { runCli } from '../support/cli.js';

const SCREENSHOTS = process.env.CALFEED_UPDATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('./screenshots/', import.meta.url)) : undefined;

let work: string;
let portal: DemoPortal;
let site: { url: string; close(): Promise<void> };
let host: { url: string; close(): Promise<void> };
let browser: Browser;
const record: PageRecord = { problems: [], dialogs: [] };
const lt = JSON.parse(await readFile(new URL('../../templates/locales/lt.json', import.meta.url), 'utf8')) as Record<string, string>;
const en = JSON.parse(await readFile(new URL('../../templates/locales/en.json', import.meta.url), 'utf8')) as Record<string, unknown>;

function openPage(options: BrowserContextOptions = {}): Promise<Page> {
  return openRecordingPage(browser, record, { locale: 'en-US', timezoneId: 'America/New_York', ...options });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-lt-'));
  portal = await startDemoPortal();
  // Pages link each other relatively, and widget.js finds the feeds beside itself: the site URL
  // the build is told is only in feeds and subscribe links.
  const build = await runCli(['build', '--base-url', portal.url, '--out', join(work, 'site'), '--cache-dir', join(work, 'cache'), '--time-zone', portal.timeZone, '--site-url', 'https://events.example.edu/', '--locale', 'lt,en', '--quiet'], {
    env: { CALFEED_TOKEN: portal.tokens.university },
    cwd: work,
  });
  expect(build.code, build.stderr).toBe(0);
  site = await startPreviewServer({ dir: join(work, 'site'), port: 0 });
  // A Lithuanian news site on another origin, embedding the widget as documented.
  host = await startWidgetHost(work, site.url, { lang: 'lt-LT', title: 'Naujienos' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await host?.close();
  await portal?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** English texts of the catalog that differ from their Lithuanian ones: none may show on a Lithuanian page. */
const englishOnly = Object.entries(en)
  .filter(([, text]) => typeof text === 'string' && !text.includes('{') && !Object.values(lt).some((l) => typeof l === 'string' && l.includes(text)))
  .map(([, text]) => text as string);

describe('a site built with --locale lt', () => {
  it('has lang="lt" and Lithuanian text on the home, calendar and event pages, with no English from the catalog', async () => {
    const page = await openPage();
    const visited: string[] = [];
    await page.goto(site.url);
    visited.push(page.url());
    expect(await page.locator('html').getAttribute('lang')).toBe('lt');
    expect(await page.locator('#calendars-heading').textContent()).toBe('Kalendoriai');
    const counts = await page.locator('.calendar-card .count').allTextContents();
    expect(counts.length).toBeGreaterThan(0);
    for (const count of counts) expect(count).toMatch(/^\d+ būsim(as renginys|i renginiai|o renginio|ų renginių)$/);
    await page.goto(`${site.url}calendars/science/`);
    expect(await page.locator('html').getAttribute('lang')).toBe('lt');
    expect(await page.locator('#upcoming-heading').textContent()).toBe('Būsimi renginiai');
    await page.screenshot({ path: join(SCREENSHOTS ?? work, 'localized.png') });
    const eventLinks = await page.locator('main a[href*="events/"]').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
    for (const href of [site.url, `${site.url}calendars/science/`, `${site.url}calendars/science/past.html`, eventLinks[0]!]) {
      await page.goto(href);
      const text = await page.locator('body').innerText();
      for (const english of englishOnly) expect(text, `${href}: "${english}"`).not.toContain(english);
      expect(text).toContain('Paskelbta su calfeed');
    }
    expect(record.problems).toEqual([]);
  });

  it("page.js writes Lithuanian: the copy button's answer and the visitor's zone by its Lithuanian name", async () => {
    const page = await openPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(site.url).origin });
    await page.goto(`${site.url}calendars/science/`);
    const button = page.locator('button[data-calfeed-copy]');
    expect(await button.textContent()).toBe('Kopijuoti adresą');
    await button.click();
    expect(await button.textContent()).toBe('Nukopijuota');

    const hrefs = await page.locator('main a[href*="events/"]').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
    let timed = 0;
    for (const href of hrefs) {
      await page.goto(href);
      if ((await page.locator('[data-calfeed-local]').count()) === 0) continue;
      await page.locator('.local-time').waitFor({ state: 'visible' });
      const start = Date.parse((await page.locator('[data-calfeed-local]').getAttribute('data-start'))!);
      const name = new Intl.DateTimeFormat('lt', { timeZone: 'America/New_York', timeZoneName: 'long' }).formatToParts(start).find((p) => p.type === 'timeZoneName')!.value;
      expect(name).toMatch(/laikas$/);
      expect(await page.locator('[data-calfeed-local-zone]').textContent()).toBe(name);
      expect(await page.locator('.local-time').innerText()).toMatch(/^Jūsų laikas \(/);
      timed++;
    }
    expect(timed).toBeGreaterThan(0);
    expect(record.problems).toEqual([]);
  });

  it('widget.js on a Lithuanian page of another origin lists the events in Lithuanian, under lang="lt"', async () => {
    const page = await openPage();
    await page.goto(host.url);
    await page.locator('#events .calfeed-event, #events .calfeed-empty').first().waitFor();
    expect(await page.locator('#events .w').getAttribute('lang')).toBe('lt');
    const when = await page.locator('#events .calfeed-when').allTextContents();
    expect(when.length).toBeGreaterThan(0);
    // Lithuanian short weekdays (e.g. "12-05, št 14:00"), not English ones.
    for (const text of when) {
      expect(text).not.toMatch(/\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun)\b/);
      expect(text).toMatch(/(^|[\s,])(pr|an|tr|kt|pn|št|sk)([\s,]|$)/);
    }
    expect(record.problems).toEqual([]);
    expect(record.dialogs).toEqual([]);
  });
});
