// Issue 19: every page kind of a real build passes the Nu HTML Checker with 0 errors and axe-core
// with 0 violations. The demo portal's build, every HTML file to vnu, one page of each kind (and
// of each variant an event page has: cancelled, all-day, with an image, past) to axe in Chromium.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPreviewServer } from '../../src/serve/index.js';
import { launchChromium, openRecordingPage, type PageRecord } from '../support/browser.js';
import { runCli } from '../support/cli.js';
import { axeViolations, vnuErrors } from '../support/conformance.js';
import { googleEventProblems } from '../support/google-event.js';

const SCREENSHOTS = process.env.CALFEED_UPDATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('./screenshots/', import.meta.url)) : undefined;

/** An image without alt text: an error for vnu, a violation for axe. */
const KNOWN_BAD = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Known bad</title></head><body><main><img src="x.png"></main></body></html>';

let work: string;
let out: string;
let pages: string[];
let server: { url: string; close(): Promise<void> };
let browser: Browser;
const record: PageRecord = { problems: [], dialogs: [] };

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-conformance-'));
  out = join(work, 'out');
  // Served before it is built: 404.html's links are absolute, from --site-url, which must be the server's.
  await mkdir(out);
  server = await startPreviewServer({ dir: out, port: 0 });
  // No --base-url: the embedded demo portal, as `npx calfeed build` on a fresh machine; with header
  // and footer links, so that their markup (two more <nav> landmarks a page) is checked too.
  const links = ['--header-link', 'About=about/', '--header-link', 'University=https://www.example.edu/', '--footer-link', 'Contact=/contact/'];
  const build = await runCli(['build', '--out', out, '--cache-dir', join(work, 'cache'), '--site-url', server.url, '--quiet', ...links], { cwd: work });
  expect(build.code, build.stderr).toBe(0);
  pages = (await fg('**/*.html', { cwd: out })).sort();
  // A page both checkers must fault, checked with the rest: proof that they ran and report.
  await mkdir(join(out, 'known-bad'));
  await writeFile(join(out, 'known-bad', 'index.html'), KNOWN_BAD);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

/** One page of each kind, and event pages of each variant, found by what they hold. */
async function pageKinds(): Promise<Map<string, string>> {
  const kinds = new Map<string, string>();
  const events = pages.filter((p) => /^calendars\/[^/]+\/events\//.test(p));
  const variants: Array<[string, (html: string) => boolean]> = [
    ['event page', () => true],
    ['cancelled event page', (html) => html.includes('is-cancelled')],
    ['all-day event page', (html) => !html.includes('data-calfeed-local')],
    ['event page with an image', (html) => html.includes('/media/events/')],
  ];
  for (const file of events) {
    const html = await readFile(join(out, file), 'utf8');
    for (const [kind, test] of variants) if (!kinds.has(kind) && test(html)) kinds.set(kind, file);
  }
  for (const [kind, re] of [
    ['home page', /^index\.html$/],
    ['calendar page', /^calendars\/[^/]+\/index\.html$/],
    ['past events page', /^calendars\/[^/]+\/past\.html$/],
    ['widget page', /^calendars\/[^/]+\/widget\.html$/],
    ['not-found page', /^404\.html$/],
    ['category page', /^categories\/[^/]+\/index\.html$/],
    ['categories page', /^categories\/index\.html$/],
  ] as const) {
    const file = pages.find((p) => re.test(p));
    if (file) kinds.set(kind, file);
  }
  return kinds;
}

describe('every page kind of the demo build', () => {
  it("gives search engines, in every event page with a location, JSON-LD that has Google's required Event fields", async () => {
    const events = pages.filter((p) => /^calendars\/[^/]+\/events\//.test(p));
    const failing: string[] = [];
    let located = 0;
    for (const file of events) {
      const html = await readFile(join(out, file), 'utf8');
      const script = /<script type="application\/ld\+json">([^<]*)<\/script>/.exec(html);
      expect(script, file).not.toBeNull();
      const ld = JSON.parse(script![1]!) as Record<string, unknown>;
      const problems = googleEventProblems(ld);
      if (ld.location === undefined) expect(problems, file).toEqual(['no location']);
      else {
        located++;
        if (problems.length > 0) failing.push(`${file}: ${problems.join('; ')}`);
      }
    }
    expect(failing).toEqual([]);
    // Most demo events have a place (a few have none, as on a real portal).
    expect(located).toBeGreaterThan(events.length / 2);
  });

  it('has no Nu HTML Checker error on any page', async () => {
    expect(pages.length).toBeGreaterThan(50);
    const errors = await vnuErrors([...pages.map((p) => join(out, p)), join(out, 'known-bad', 'index.html')]);
    expect(errors.filter((e) => !e.includes('known-bad'))).toEqual([]);
    expect(errors.join('\n')).toMatch(/known-bad\/index\.html:1: An “img” element must have an “alt” attribute/);
  }, 120_000);

  it('shows the home page with the upcoming events first (the screenshot in the README)', async () => {
    const page = await openRecordingPage(browser, record, { locale: 'en-US', timezoneId: 'Europe/Vilnius', viewport: { width: 1000, height: 1100 } });
    await page.goto(server.url + 'index.html');
    const headings = await page.locator('main h2').allTextContents();
    // The search form (page.js shows it) first, then the events.
    expect(headings.slice(0, 3)).toEqual(['Find events', 'Featured', 'Today']);
    expect(headings).toContain('Calendars');
    // Each listed event links to its page and its calendar.
    const first = page.locator('.featured .event').first();
    await first.locator('.event-title a').click();
    expect(page.url()).toMatch(/\/calendars\/[^/]+\/events\/[^/]+\.html$/);
    await page.goBack();
    await page.screenshot({ path: join(SCREENSHOTS ?? work, 'home.png') });
    await page.context().close();
  });

  it('answers a missing address deep in the site with 404.html, styled, and a way back to the events', async () => {
    const page = await openRecordingPage(browser, { problems: [], dialogs: [] });
    const response = await page.goto(server.url + 'calendars/no-such/events/gone.html');
    expect(response?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Page not found');
    // Its stylesheet loaded from the site root although the page is served two folders down.
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('.site-footer')!).borderTopStyle)).toBe('solid');
    await page.locator('main a').click();
    expect(await page.locator('[data-calfeed-listing] h2').first().textContent()).toBe('Featured');
    await page.context().close();
  });

  it("shows an event's image on its page, and offers it to link previews", async () => {
    const file = (await pageKinds()).get('event page with an image')!;
    const page = await openRecordingPage(browser, record);
    await page.goto(server.url + file);
    const image = page.locator('img.event-image');
    await image.scrollIntoViewIfNeeded();
    expect(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    const src = await image.getAttribute('src');
    expect(src).toMatch(/^https:\/\/portal\.example\.edu\/media\/events\/\d+\.jpg$/);
    expect(await page.locator('meta[property="og:image"]').getAttribute('content')).toBe(src);
    expect(await page.locator('meta[name="twitter:card"]').getAttribute('content')).toBe('summary_large_image');
    expect(await page.locator('meta[property="og:url"]').getAttribute('content')).toBe(server.url + file);
    await page.context().close();
  });

  it('says on the page of an event that is over that it has ended, and not on one still to come (page.js: pages outlive their build)', async () => {
    const notices: Array<{ file: string; endsAt: number; timed: boolean }> = [];
    for (const file of pages.filter((p) => /^calendars\/[^/]+\/events\//.test(p))) {
      const html = await readFile(join(out, file), 'utf8');
      const at = /data-calfeed-ended="([^"]+)"/.exec(html)?.[1];
      if (at !== undefined) notices.push({ file, endsAt: Date.parse(at), timed: html.includes('data-calfeed-local') });
    }
    const over = notices.find((n) => n.endsAt < Date.now() - 3_600_000);
    // A timed one: its visitor's-time line shows that page.js ran there too.
    const coming = notices.find((n) => n.endsAt > Date.now() + 3_600_000 && n.timed);
    expect(over && coming, 'the demo has events that ended and events to come').toBeTruthy();
    const page = await openRecordingPage(browser, record);
    await page.goto(server.url + over!.file);
    await expect.poll(() => page.locator('[data-calfeed-ended]').isVisible()).toBe(true);
    expect(await page.locator('[data-calfeed-ended]').textContent()).toBe('This event has ended.');
    await page.goto(server.url + coming!.file);
    expect(await page.locator('[data-calfeed-ended]').isVisible()).toBe(false);
    expect(await page.locator('[data-calfeed-local]').isVisible()).toBe(true);
    await page.context().close();
  });

  it('prints the events in black on white, without buttons, subscribe boxes or embed snippets', async () => {
    const kinds = await pageKinds();
    for (const kind of ['calendar page', 'event page', 'home page', 'category page']) {
      const page = await openRecordingPage(browser, record, { locale: 'en-US', timezoneId: 'Europe/Vilnius' });
      await page.goto(server.url + kinds.get(kind)!);
      await page.emulateMedia({ media: 'print', colorScheme: 'dark' });
      for (const hidden of ['.site-header', '.subscribe', '.button', 'pre']) {
        for (const el of await page.locator(hidden).all()) expect(await el.isVisible(), `${kind}: ${hidden}`).toBe(false);
      }
      expect(await page.locator('h1').isVisible(), kind).toBe(true);
      expect(await page.evaluate(() => [getComputedStyle(document.body).color, getComputedStyle(document.body).backgroundColor]), kind).toEqual(['rgb(0, 0, 0)', 'rgb(255, 255, 255)']);
      await page.emulateMedia({ media: 'screen' });
      expect(await page.locator('.site-header').isVisible(), `${kind} on screen`).toBe(true);
      await page.context().close();
    }
  });

  it('has no axe-core violation on the home and calendar pages with the search form and its results shown', async () => {
    const kinds = await pageKinds();
    const found: string[] = [];
    for (const kind of ['home page', 'calendar page']) {
      const page = await openRecordingPage(browser, record, { locale: 'en-US', timezoneId: 'Europe/Vilnius' });
      await page.goto(`${server.url}${kinds.get(kind)!}?q=a`);
      await page.locator('.search-results .event').first().waitFor();
      expect(await page.locator('.search-form').isVisible(), kind).toBe(true);
      for (const v of await axeViolations(page)) found.push(`${kind} with results: ${v}`);
      await page.context().close();
    }
    expect(found).toEqual([]);
    expect(record.problems).toEqual([]);
  });

  it('has no axe-core violation on a page of each kind', async () => {
    const kinds = await pageKinds();
    expect([...kinds.keys()].sort()).toEqual(
      [
        'all-day event page', 'calendar page', 'cancelled event page', 'categories page', 'category page', 'event page', 'event page with an image', 'home page', 'not-found page',
        'past events page', 'widget page',
      ].sort(),
    );
    const found: string[] = [];
    for (const [kind, file] of kinds) {
      const page = await openRecordingPage(browser, record, { locale: 'en-US', timezoneId: 'Europe/Vilnius' });
      await page.goto(server.url + file);
      for (const v of await axeViolations(page)) found.push(`${kind} (${file}): ${v}`);
      await page.context().close();
    }
    expect(found).toEqual([]);
    const bad = await openRecordingPage(browser, { problems: [], dialogs: [] });
    await bad.goto(server.url + 'known-bad/index.html');
    expect((await axeViolations(bad)).join('\n')).toMatch(/^image-alt \(critical\)/m);
    await bad.context().close();
    expect(record.problems).toEqual([]);
  }, 120_000);
});
