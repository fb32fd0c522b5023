// The built pages in a real browser: Debian's Chromium driven by playwright-core, pages served by
// `calfeed serve`'s preview server, the widget embedded in a host page on a second server (another
// origin, as on a news site). Screenshots for the README and docs/pages.md are taken here.

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SiteModel } from '../../src/model.js';
import { paths } from '../../src/paths.js';
import { renderHeaders } from '../../src/publish/headers.js';
import { loadHtmlRenderer } from '../../src/render/html/index.js';
import { renderEventIcs, renderIcs } from '../../src/render/ical/index.js';
import { renderSyndication } from '../../src/render/syndication/index.js';
import { startPreviewServer } from '../../src/serve/index.js';
import { SAMPLE_NOW, sampleEvent, sampleModel, sampleSite } from '../fixtures/sample.js';
import { renderHtmlSite } from '../render/html/site.js';
import { launchChromium, openRecordingPage, type PageRecord } from '../support/browser.js';
import { createRenderContext } from '../../src/render/context.js';

const renderContext = createRenderContext();

const HOSTILE = '<img src=x onerror=alert(1)>Hostile <script>alert(2)</script> talk';
const SCREENSHOTS = process.env.CALFEED_UPDATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('./screenshots/', import.meta.url)) : undefined;

let work: string;
let site: { url: string; close(): Promise<void> };
let host: { url: string; close(): Promise<void> };
let browser: Browser;
let shots: string;

const ARTS = '_ifzhi4zaeyqeg5lmor2xezi';

/** The sample model plus a hostile title in Arts that is not removed, so the feeds (and the widget) carry it. */
function browserModel(): SiteModel {
  const model = sampleModel();
  const arts = model.calendars[1]!;
  model.events.get(arts.id)!.push(
    sampleEvent({
      calendarId: arts.id,
      calendarSlug: arts.slug,
      id: 'x1',
      slug: 'x1',
      title: HOSTILE,
      when: { kind: 'timed', start: Date.UTC(2026, 2, 27, 10, 0) },
      description: '<p>Fine.</p>',
    }),
  );
  return model;
}

async function writeFiles(dir: string, files: Map<string, string>): Promise<void> {
  for (const [rel, content] of files) {
    await mkdir(dirname(join(dir, rel)), { recursive: true });
    await writeFile(join(dir, rel), content);
  }
}

/** Every file the sample site needs: pages and assets, feeds, iCalendar, _headers (with CORS). */
async function buildSite(dir: string, siteUrl: string): Promise<void> {
  const ctx = sampleSite({ siteUrl });
  const model = browserModel();
  const pageHtml = await loadHtmlRenderer();
  const files = renderHtmlSite(pageHtml, model, ctx);
  const all = model.calendars.flatMap((c) => model.events.get(c.id) ?? []);
  for (const cal of [null, ...model.calendars]) {
    const events = cal ? (model.events.get(cal.id) ?? []) : all;
    const feeds = renderSyndication(renderContext, cal, model.calendars, events, ctx, pageHtml.text(ctx));
    const at = (name: 'rss.xml' | 'atom.xml' | 'feed.json' | 'calendar.ics'): string => (cal ? paths.calendar(cal.slug, name) : paths.site(name));
    files.set(at('rss.xml'), feeds.rss);
    files.set(at('atom.xml'), feeds.atom);
    files.set(at('feed.json'), feeds.json);
    files.set(at('calendar.ics'), renderIcs(renderContext, cal, model.calendars, events, ctx));
    if (cal) for (const e of events) files.set(paths.eventIcs(cal.slug, e.slug), renderEventIcs(renderContext, cal, e, ctx));
  }
  files.set(paths.headers(), renderHeaders());
  await writeFiles(dir, files);
}

const record: PageRecord = { problems: [], dialogs: [] };
const { problems, dialogs } = record;

/** A page that records console errors, uncaught exceptions and dialogs, with the clock at SAMPLE_NOW. */
async function openPage(options: BrowserContextOptions = {}): Promise<Page> {
  const page = await openRecordingPage(browser, record, { locale: 'en-US', timezoneId: 'Europe/Vilnius', viewport: { width: 960, height: 900 }, ...options });
  await page.clock.setFixedTime(SAMPLE_NOW);
  return page;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-browser-'));
  shots = SCREENSHOTS ?? join(work, 'screenshots');
  await mkdir(shots, { recursive: true });
  await mkdir(join(work, 'site'));
  await mkdir(join(work, 'host'));
  // Start first: the site URL (and so every absolute link) is the preview server's own.
  site = await startPreviewServer({ dir: join(work, 'site'), port: 0 });
  host = await startPreviewServer({ dir: join(work, 'host'), port: 0 });
  await buildSite(join(work, 'site'), site.url);
  await writeFile(join(work, 'host', 'index.html'), hostPage(site.url));
  await writeFile(join(work, 'host', 'broken.html'), brokenHostPage(site.url));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await host?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** A news site on another origin that embeds the widget with the documented snippet. */
function hostPage(siteUrl: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Campus News</title><link rel="icon" href="data:,">
<style>
body { font: 16px/1.5 Georgia, serif; margin: 0; background: #fafafa; color: #222; }
header { background: #1d3557; color: #fff; padding: 1rem 2rem; } main { display: flex; gap: 2rem; padding: 1rem 2rem; }
article { flex: 2; } aside { flex: 1; background: #fff; border: 1px solid #ddd; padding: 0 1rem 1rem; border-radius: 6px; }
.calfeed-list { list-style: none; padding: 0; margin: 0; } .calfeed-event { padding: .5rem 0; border-bottom: 1px solid #eee; }
.calfeed-when { display: block; color: #555; font-size: .85rem; } .calfeed-where { display: block; color: #555; font-size: .85rem; }
.calfeed-badge { color: #b3261e; margin-right: .25rem; } .calfeed-cancelled .calfeed-title { text-decoration: line-through; }
</style></head>
<body><header><h1>Campus News</h1></header>
<main><article><h2>Welcome back</h2><p>The spring term is in full swing. Here is what is on at the Faculty of Science.</p></article>
<aside id="events"><h2>Upcoming events</h2>
<div data-calfeed-calendar="science" data-calfeed-limit="10"></div>
<script src="${siteUrl}widget.js" async></script>
</aside></main>
<footer><div id="arts" data-calfeed-calendar="${ARTS}"></div></footer>
</body></html>
`;
}

/** A host page that asks for a calendar that does not exist. */
function brokenHostPage(siteUrl: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Broken</title><link rel="icon" href="data:,"></head>
<body><div id="broken" data-calfeed-calendar="no-such-calendar"></div><script src="${siteUrl}widget.js"></script></body></html>
`;
}

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

  it('widget.js on a host page of another origin shows the upcoming events, as text', async () => {
    const page = await openPage({ viewport: { width: 900, height: 640 } });
    await page.goto(host.url);
    expect(new URL(page.url()).origin).not.toBe(new URL(site.url).origin);
    await page.locator('#events .calfeed-event').first().waitFor();
    const titles = await page.locator('#events .calfeed-title').allTextContents();
    expect(titles).toHaveLength(3);
    expect(titles[0]).toContain('Open lecture: Quantum computing');
    expect(titles[2]).toContain('Spring break 🌸');
    // Arts: its removed event is not in the feeds; the hostile title is, and stays text.
    await page.locator('#arts .calfeed-event').first().waitFor();
    expect(await page.locator('#arts .calfeed-title').allTextContents()).toEqual([expect.stringContaining(HOSTILE)]);
    expect(await page.locator('#arts script, #arts img').count()).toBe(0);
    expect(await page.locator('#events .calfeed-cancelled .calfeed-title').textContent()).toContain('Lab tour');
    expect(await page.locator('#events .calfeed-where').first().textContent()).toBe('Main Hall, Universiteto g. 3, Vilnius');
    // Times are in the calendar's zone (Vilnius), whatever the visitor's.
    expect(await page.locator('#events .calfeed-when').first().textContent()).toMatch(/Mar 25.*5:00\sPM/);
    const link = await page.locator('#events a.calfeed-title').first().getAttribute('href');
    expect(link).toMatch(/^https?:\/\//);
    expect(await page.evaluate(() => Object.keys(window).filter((k) => /calfeed/i.test(k)))).toEqual([]);
    await page.locator('#events').screenshot({ path: join(shots, 'widget.png') });
    expect(problems).toEqual([]);
  });

  it('widget.js says so when a calendar cannot be loaded', async () => {
    const page = await openPage();
    await page.goto(host.url + 'broken.html');
    await page.locator('#broken .calfeed-error').waitFor();
    expect(await page.locator('#broken').textContent()).toBe('Events could not be loaded.');
    expect(await page.locator('#broken').getAttribute('aria-busy')).toBeNull();
    // The browser itself logs the failed request; this page is the one place that is expected.
    expect(problems.length).toBeGreaterThan(0);
    problems.length = 0;
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
