// A branded build, as a university web team makes one without forking: the example --templates
// folder (docs/examples/templates), the site's name, logo, colour and links. Checked in Chromium: the
// brand shows where the template contract says, in the light and the dark theme.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { startPreviewServer } from '../../src/serve/index.js';
import { launchChromium, openRecordingPage, type PageRecord } from '../support/browser.js';
import { runCli } from '../support/cli.js';

const SCREENSHOTS = process.env.CALFEED_UPDATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('./screenshots/', import.meta.url)) : undefined;
const EXAMPLE = fileURLToPath(new URL('../../docs/examples/templates/', import.meta.url));
const TITLE = 'Vilnius University Events';
const PRIMARY = '#7a0019';
const PRIMARY_RGB = 'rgb(122, 0, 25)';
// The logo is the university's own file on the site's host: calfeed links it (on the --site-url's
// host), never copies it.
const SITE_URL = 'https://events.example.edu/';
const LOGO = '/brand/logo.svg';
const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="${PRIMARY}"/><text x="32" y="42" font-size="28" text-anchor="middle" fill="#fff" font-family="sans-serif">VU</text></svg>`;

let work: string;
let out: string;
let portal: DemoPortal;
let site: { url: string; close(): Promise<void> };
let browser: Browser;
const record: PageRecord = { problems: [], dialogs: [] };

function openPage(options: BrowserContextOptions = {}): Promise<Page> {
  return openRecordingPage(browser, record, { locale: 'en-US', timezoneId: 'Europe/Vilnius', viewport: { width: 1000, height: 900 }, ...options });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-branded-'));
  out = join(work, 'site');
  portal = await startDemoPortal();
  const build = await runCli(
    ['build', '--base-url', portal.url, '--out', out, '--cache-dir', join(work, 'cache'), '--time-zone', portal.timeZone, '--site-url', SITE_URL, '--quiet',
      '--templates', EXAMPLE, '--title', TITLE, '--logo', LOGO, '--primary-color', PRIMARY,
      '--header-link', 'University=https://www.example.edu/', '--header-link', 'Study=/study/', '--footer-link', 'Privacy=https://www.example.edu/privacy/'],
    { env: { CALFEED_TOKEN: portal.tokens.university }, cwd: work },
  );
  expect(build.code, build.stderr).toBe(0);
  site = await startPreviewServer({ dir: out, port: 0 });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await portal?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** The logo's bytes where the pages ask for them: the university's own file, which --out does not hold. */
async function serveLogo(page: Page): Promise<void> {
  await page.route(new URL(LOGO, SITE_URL).href, (route) => route.fulfill({ contentType: 'image/svg+xml', body: LOGO_SVG }));
}

describe('a branded build from the example templates folder', () => {
  it("shows the site's name, logo and colour on the home and calendar pages, and the example's own list item and words", async () => {
    const page = await openPage();
    await serveLogo(page);
    await page.goto(site.url);
    const logo = page.locator('header img.site-logo');
    expect(await logo.getAttribute('src')).toBe(new URL(LOGO, SITE_URL).href);
    await expect.poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    expect(await page.title()).toMatch(new RegExp(`${TITLE}$`));
    expect(await page.locator('header').innerText()).toContain(TITLE);
    // The brand colour on what the light theme draws with it: links and buttons.
    const link = page.locator('main a').first();
    expect(await link.evaluate((a) => getComputedStyle(a).color)).toBe(PRIMARY_RGB);

    await page.goto(`${site.url}calendars/science/`);
    expect(await page.title()).toMatch(new RegExp(`${TITLE}$`));
    // The example's words ("What's on") and its list item: the place before the title.
    expect(await page.locator('#upcoming-heading').textContent()).toBe("What's on");
    const item = page.locator('li.example-item').filter({ has: page.locator('.event-location') }).first();
    const order = await item.evaluate((li) => Array.from(li.children, (child) => child.className));
    expect(order.indexOf('event-location')).toBeLessThan(order.indexOf('event-title'));
    const button = page.locator('a.button').first();
    expect(await button.evaluate((a) => getComputedStyle(a).backgroundColor)).toBe(PRIMARY_RGB);
    expect(await page.locator('footer').innerText()).toContain('Published by the Events Office with calfeed');
    // The university's own links, in the header and the footer of every page.
    expect(await page.locator('header .site-links a').evaluateAll((links) => links.map((a) => [a.textContent, (a as HTMLAnchorElement).href]))).toEqual([
      ['University', 'https://www.example.edu/'],
      ['Study', new URL('/study/', site.url).href],
    ]);
    expect(await page.locator('footer .site-links a').getAttribute('href')).toBe('https://www.example.edu/privacy/');
    await page.screenshot({ path: join(SCREENSHOTS ?? work, 'branded.png') });
    await page.context().close();
  });

  it('keeps the brand colour as the rule above the header in the dark theme, with readable links', async () => {
    const page = await openPage({ colorScheme: 'dark' });
    await serveLogo(page);
    await page.goto(`${site.url}calendars/science/`);
    const body = await page.locator('body').evaluate((b) => getComputedStyle(b).backgroundColor);
    expect(body).not.toBe('rgb(255, 255, 255)');
    expect(await page.locator('html').evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--calfeed-primary').trim())).toBe(PRIMARY);
    // Dark red on a dark page would be unreadable: links take the dark theme's own colour.
    const link = await page.locator('main a').first().evaluate((a) => getComputedStyle(a).color);
    expect(link).not.toBe(PRIMARY_RGB);
    await page.context().close();
  });
});
