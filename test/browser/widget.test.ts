// The widget on a news site of another origin, in Chromium: styled by itself (the page's hostile CSS
// neither styles nor breaks it), themed by the page's custom properties, light, dark and forced
// themes, its options (limit, locale, category), the "see all" link, times in the visitor's zone,
// errors; and the iframe version sizing itself with the snippet the calendar page prints.
// The screenshot of the widget for the README and docs/pages.md is taken here.

import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserContextOptions, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../support/conformance.js';
import { ARTS, HOSTILE, startSampleBench, type SampleBench } from '../support/sample-site.js';

const PRIMARY = '#7a0019';

let bench: SampleBench;
let site: { url: string };
let host: { url: string };
let problems: string[];
let dialogs: string[];
const openPage = (options?: BrowserContextOptions): Promise<Page> => bench.openPage(options);

// CSS a news site may well have, and worse: none of it may reach the widget.
const HOSTILE_CSS = `
body { font: 16px/1.5 Georgia, serif; margin: 0; background: #fafafa; color: #222; }
header { background: #1d3557; color: #fff; padding: 1rem 2rem; } main { display: flex; gap: 2rem; padding: 1rem 2rem; }
article { flex: 2; } aside { flex: 1; }
div { color: #ff00ff; font-family: "Comic Sans MS", cursive; line-height: 3; text-transform: uppercase; letter-spacing: 4px; text-align: center; }
ul { list-style: square; padding-left: 5rem; } li { margin: 2rem; border: 3px dashed red; } p { margin: 3rem 0; }
a { color: #00ff00 !important; font-size: 30px; } time { display: none; } * { background-color: transparent; }
`;

/** A news site on another origin embedding widgets with the documented snippet, with CSS of its own. */
function hostPage(siteUrl: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Campus News</title><link rel="icon" href="data:,">
<style>${HOSTILE_CSS}
#themed { --calfeed-primary: #006400; --calfeed-font: "DejaVu Serif", serif; --calfeed-radius: 0px; --calfeed-spacing: 2rem; }
</style></head>
<body><header><h1>Campus News</h1></header>
<main><article><h2>Welcome back</h2><p id="para">The spring term is in full swing. Here is what is on at the Faculty of Science.</p></article>
<aside id="aside"><h2>Upcoming events</h2>
<div id="events" data-calfeed-calendar="science" data-calfeed-limit="10"><a href="${siteUrl}calendars/science/">Events of the Faculty of Science</a></div>
<script src="${siteUrl}widget.js" async></script>
</aside></main>
<footer>
<section aria-label="More widgets">
<div id="one" data-calfeed-calendar="science" data-calfeed-limit="1"></div>
<div id="lt" data-calfeed-calendar="science" data-calfeed-locale="lt"></div>
<div id="dark" data-calfeed-calendar="science" data-calfeed-theme="dark"></div>
<div id="light" data-calfeed-calendar="science" data-calfeed-theme="light"></div>
<div id="themed" data-calfeed-calendar="science"></div>
<div id="arts" data-calfeed-calendar="${ARTS}"></div>
<div id="category" data-calfeed-category="seminar" data-calfeed-limit="2"></div>
</section>
</footer>
</body></html>
`;
}

/** The calendar page's frame snippet, as a webmaster would copy it from the page. */
async function frameSnippet(siteDir: string): Promise<string> {
  const page = await readFile(join(siteDir, 'calendars', 'science', 'index.html'), 'utf8');
  const code = [...page.matchAll(/<pre tabindex="0"><code>([\s\S]*?)<\/code><\/pre>/g)].map((m) => m[1]!).find((c) => c.includes('iframe'))!;
  return code.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#x27;', "'").replaceAll('&amp;', '&');
}

beforeAll(async () => {
  bench = await startSampleBench({ primaryColor: PRIMARY });
  site = { url: bench.siteUrl };
  host = { url: bench.hostUrl };
  ({ problems, dialogs } = bench.record);
  // A category's feed.json has a calendar's shape (the sample site renders no category feeds): the
  // science feed stands in for one, under the CORS header _headers gives every category's feeds.
  await mkdir(join(bench.siteDir, 'categories', 'seminar'), { recursive: true });
  await copyFile(join(bench.siteDir, 'calendars', 'science', 'feed.json'), join(bench.siteDir, 'categories', 'seminar', 'feed.json'));
  await writeFile(join(bench.hostDir, 'index.html'), hostPage(site.url));
  await writeFile(
    join(bench.hostDir, 'errors.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Broken</title><link rel="icon" href="data:,"></head>
<body><main><div id="unknown" data-calfeed-calendar="no-such-calendar"></div><div id="bad" data-calfeed-calendar="../../etc"></div>
<div id="events" data-calfeed-calendar="science"></div></main><script src="${site.url}widget.js"></script></body></html>\n`,
  );
  await writeFile(
    join(bench.hostDir, 'frame.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Campus News</title><link rel="icon" href="data:,"></head>
<body><main><h1>Campus News</h1><div id="box" style="width: 600px">${await frameSnippet(bench.siteDir)}</div></main></body></html>\n`,
  );
});

afterAll(async () => {
  await bench?.close();
});

/** Computed styles of the first element matching `selector` (Playwright's CSS pierces shadow roots). */
async function styles(page: Page, selector: string, names: string[]): Promise<Record<string, string>> {
  return page.locator(selector).first().evaluate((node, keys) => {
    const style = getComputedStyle(node);
    return Object.fromEntries(keys.map((k) => [k, style.getPropertyValue(k)]));
  }, names);
}

async function loaded(page: Page, ...ids: string[]): Promise<void> {
  for (const id of ids) await page.locator(`#${id} .w`).waitFor();
}

describe('widget.js on a page of another origin', () => {
  it('is styled by itself: the page\'s CSS reaches neither its text nor its layout, and the page\'s own elements keep it', async () => {
    const page = await openPage();
    await page.goto(host.url);
    expect(new URL(page.url()).origin).not.toBe(new URL(site.url).origin);
    await loaded(page, 'events');
    // The hostile CSS is in force on the page itself.
    expect(await styles(page, '#para', ['margin-top'])).toEqual({ 'margin-top': '48px' });
    expect(await styles(page, '#events .w', ['color', 'background-color', 'font-family', 'line-height', 'text-transform', 'letter-spacing', 'text-align', 'border-radius'])).toEqual({
      color: 'rgb(26, 26, 26)',
      'background-color': 'rgb(255, 255, 255)',
      'font-family': 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
      'line-height': `${16 * 1.45}px`,
      'text-transform': 'none',
      'letter-spacing': 'normal',
      'text-align': 'start',
      'border-radius': '8px',
    });
    expect(await styles(page, '#events ul', ['list-style-type', 'padding-left'])).toEqual({ 'list-style-type': 'none', 'padding-left': '0px' });
    expect(await styles(page, '#events li', ['margin-top', 'border-top-style'])).toEqual({ 'margin-top': '0px', 'border-top-style': 'none' });
    expect(await styles(page, '#events li + li', ['border-top-style', 'border-top-color'])).toEqual({ 'border-top-style': 'solid', 'border-top-color': 'rgb(216, 216, 216)' });
    // Links in the build's --primary-color; times shown, muted and smaller.
    expect(await styles(page, '#events .calfeed-title a', ['color', 'font-size'])).toEqual({ color: 'rgb(122, 0, 25)', 'font-size': '16px' });
    expect(await styles(page, '#events time', ['display'])).toEqual({ display: 'inline' });
    expect(await styles(page, '#events .calfeed-when', ['color', 'font-size'])).toEqual({ color: 'rgb(85, 85, 85)', 'font-size': '14px' });
    expect(await styles(page, '#events .calfeed-badge', ['color'])).toEqual({ color: 'rgb(179, 38, 30)' });
    // The fallback link the page put in the box is hidden by the widget, not deleted.
    expect(await page.locator('#events > a').isVisible()).toBe(false);
    await page.locator('#aside').screenshot({ path: join(bench.shots, 'widget.png') });
    expect(problems).toEqual([]);
  });

  it('follows the visitor\'s dark mode, and a data-calfeed-theme forces one; the page\'s custom properties theme it', async () => {
    const dark = await openPage({ colorScheme: 'dark' });
    await dark.goto(host.url);
    await loaded(dark, 'events', 'light', 'themed');
    expect(await styles(dark, '#events .w', ['background-color', 'color', 'color-scheme'])).toEqual({ 'background-color': 'rgb(18, 20, 23)', color: 'rgb(232, 232, 232)', 'color-scheme': 'dark' });
    expect(await styles(dark, '#events .calfeed-title a', ['color'])).toEqual({ color: 'rgb(138, 180, 248)' });
    expect(await styles(dark, '#light .w', ['background-color', 'color'])).toEqual({ 'background-color': 'rgb(255, 255, 255)', color: 'rgb(26, 26, 26)' });
    // A colour the page sets is its colour in both themes.
    expect(await styles(dark, '#themed .calfeed-title a', ['color'])).toEqual({ color: 'rgb(0, 100, 0)' });

    const light = await openPage({ colorScheme: 'light' });
    await light.goto(host.url);
    await loaded(light, 'dark', 'themed');
    expect(await styles(light, '#dark .w', ['background-color', 'color'])).toEqual({ 'background-color': 'rgb(18, 20, 23)', color: 'rgb(232, 232, 232)' });
    expect(await styles(light, '#themed .w', ['font-family', 'border-radius', 'padding-top'])).toEqual({ 'font-family': '"DejaVu Serif", serif', 'border-radius': '0px', 'padding-top': '32px' });
    expect(await styles(light, '#themed .calfeed-title a', ['color'])).toEqual({ color: 'rgb(0, 100, 0)' });
    expect(problems).toEqual([]);
  });

  it('shows data-calfeed-limit events, in data-calfeed-locale, times in the visitor\'s zone by name (none for all-day events)', async () => {
    const page = await openPage({ timezoneId: 'America/New_York' });
    await page.goto(host.url);
    await loaded(page, 'events', 'one', 'lt');
    expect(await page.locator('#events .calfeed-event').count()).toBe(3);
    expect(await page.locator('#one .calfeed-event').count()).toBe(1);
    // 17:00 in Vilnius is 11:00 in New York (both zones on summer time on March 25).
    expect(await page.locator('#events .calfeed-when').allTextContents()).toEqual([
      'Wed, Mar 25, 11:00 AM Eastern Daylight Time',
      expect.stringMatching(/^Mon, Mar 30, \d{1,2}:\d\d [AP]M Eastern Daylight Time$/),
      'Mon, Apr 6 – Wed, Apr 8',
    ]);
    expect(await page.locator('#events .calfeed-event').nth(2).locator('.calfeed-zone').count()).toBe(0);
    expect(await page.locator('#events time').first().getAttribute('datetime')).toBe('2026-03-25T15:00:00.000Z');
    // Lithuanian: its messages, its month names, its lang.
    expect(await page.locator('#lt .w').getAttribute('lang')).toBe('lt');
    expect(await page.locator('#lt .calfeed-when').first().textContent()).toMatch(/^\S.*25.* 11:00 \S.* laikas$/);
    expect(await page.locator('#lt .calfeed-badge').textContent()).toBe('Atšauktas');
    expect(await page.locator('#lt .calfeed-more a').textContent()).toBe('Visi „Faculty of Science“ renginiai');
    expect(problems).toEqual([]);
  });

  it('links to the calendar\'s (or category\'s) page, keyboard first, and passes axe', async () => {
    const page = await openPage();
    await page.goto(host.url);
    await loaded(page, 'events', 'category');
    const more = page.locator('#events .calfeed-more a');
    expect(await more.textContent()).toBe('See all events of Faculty of Science');
    expect(await more.getAttribute('href')).toBe(site.url + 'calendars/science/');
    expect((await page.request.get(site.url + 'calendars/science/')).status()).toBe(200);
    expect(await page.locator('#category .calfeed-event').count()).toBe(2);
    expect(await page.locator('#category .calfeed-more a').getAttribute('href')).toBe(site.url + 'categories/seminar/');
    // Tab from the top of the page: the header has no link, so the widget's first event is first.
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const inner = document.activeElement?.shadowRoot?.activeElement;
      return inner ? { host: document.activeElement!.id, text: inner.textContent, outline: getComputedStyle(inner).outlineStyle } : null;
    });
    expect(focused).toEqual({ host: 'events', text: 'Open lecture: Quantum computing', outline: 'solid' });
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('keeps hostile event text as text, says so when a calendar cannot be loaded, and leaves no globals', async () => {
    const page = await openPage();
    await page.goto(host.url);
    await loaded(page, 'arts', 'events');
    expect(await page.locator('#arts .calfeed-title').allTextContents()).toEqual([HOSTILE]);
    expect(await page.locator('#arts img, #arts script').count()).toBe(0);
    expect(dialogs).toEqual([]);
    // Arts' removed event is not in its feed, so not here; the portal's event link is absolute.
    expect(await page.locator('#arts .calfeed-event').count()).toBe(1);
    expect(await page.locator('#events .calfeed-where').first().textContent()).toBe('Main Hall, Universiteto g. 3, Vilnius');
    expect(await page.locator('#events .calfeed-title a').first().getAttribute('href')).toMatch(/^https?:\/\//);
    expect(problems).toEqual([]);
    await page.goto(host.url + 'errors.html');
    await loaded(page, 'unknown', 'bad');
    // An unknown calendar (404) and an id that is not one (never fetched) say so, briefly.
    expect(await page.locator('#unknown .calfeed-error').textContent()).toBe('Events could not be loaded.');
    expect(await page.locator('#bad .calfeed-error').textContent()).toBe('Events could not be loaded.');
    expect(await page.locator('#unknown').getAttribute('aria-busy')).toBeNull();
    expect(await page.evaluate(() => Object.keys(window).filter((k) => /calfeed/i.test(k)))).toEqual([]);
    // A network failure: the feed's request aborted.
    const offline = await openPage();
    await offline.route(/\/feed\.json$/, (route) => route.abort('internetdisconnected'));
    await offline.goto(host.url + 'errors.html');
    await loaded(offline, 'events');
    expect(await offline.locator('#events .calfeed-error').textContent()).toBe('Events could not be loaded.');
    // The browser itself logs the failed requests; this is the one test where they are expected.
    problems.length = 0;
  });
});

/** The frame's height and its page's own, and whether the page scrolls inside it. */
async function frameFit(page: Page): Promise<{ frame: number; content: number; scrolls: boolean }> {
  const frame: Frame = (await (await page.$('iframe'))!.contentFrame())!;
  const inner = await frame.evaluate(() => ({
    content: Math.ceil(document.documentElement.getBoundingClientRect().height),
    scrolls: document.documentElement.scrollHeight > document.documentElement.clientHeight,
  }));
  return { frame: await page.locator('iframe').evaluate((f) => (f as HTMLIFrameElement).clientHeight), ...inner };
}

describe('the iframe widget with the calendar page\'s snippet', () => {
  it('sizes itself to its content, again when its width changes, and takes no height from another sender', async () => {
    const page = await openPage();
    await page.goto(host.url + 'frame.html');
    // 400 (the snippet's default without script) until the frame says otherwise.
    await page.waitForFunction(() => document.querySelector('iframe')!.height !== '400');
    let fit = await frameFit(page);
    expect(fit.frame).toBe(fit.content);
    expect(fit.scrolls).toBe(false);
    expect(fit.frame).toBeGreaterThan(150);
    const wide = fit.frame;
    // Narrower: the lines wrap, the page grows, and the frame with it.
    await page.locator('#box').evaluate((box) => ((box as HTMLElement).style.width = '220px'));
    await page.waitForFunction((h) => Number(document.querySelector('iframe')!.height) > h, wide);
    fit = await frameFit(page);
    expect(fit.frame).toBe(fit.content);
    expect(fit.scrolls).toBe(false);
    // The page itself (another sender, another origin) cannot set it.
    const before = await page.locator('iframe').getAttribute('height');
    await page.evaluate(() => window.postMessage({ type: 'calfeed:height', height: 5 }, '*'));
    await page.waitForTimeout(200);
    expect(await page.locator('iframe').getAttribute('height')).toBe(before);
    expect(problems).toEqual([]);
  });

  it('is reachable by keyboard, and the frame page passes axe', async () => {
    const page = await openPage();
    await page.goto(host.url + 'frame.html');
    await page.waitForFunction(() => document.querySelector('iframe')!.height !== '400');
    await page.keyboard.press('Tab');
    const frame = (await (await page.$('iframe'))!.contentFrame())!;
    expect(await frame.evaluate(() => document.activeElement?.textContent)).toBe('Faculty of Science');
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });
});
