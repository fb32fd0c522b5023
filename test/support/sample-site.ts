// The sample model written out as a site folder, every file a browser test can ask for: pages and
// assets, feeds, iCalendar and _headers (with CORS), rendered as the build renders them; and the
// bench the browser tests run on: that site served, a second origin to embed it from, Chromium.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContextOptions, Page } from 'playwright-core';
import type { SiteContext, SiteModel } from '../../src/model.js';
import { SAMPLE_NOW, sampleEvent, sampleModel, sampleSite } from '../fixtures/sample.js';
import { paths } from '../../src/paths.js';
import { renderHeaders } from '../../src/publish/headers.js';
import { createRenderContext } from '../../src/render/context.js';
import { loadHtmlRenderer } from '../../src/render/html/index.js';
import { renderEventIcs } from '../../src/render/ical/index.js';
import { startPreviewServer } from '../../src/serve/index.js';
import { renderHtmlSite } from '../render/html/site.js';
import { launchChromium, openRecordingPage, type PageRecord } from './browser.js';
import { renderIcs, renderSyndication } from './render.js';

async function writeFiles(dir: string, files: Map<string, string>): Promise<void> {
  for (const [rel, content] of files) {
    await mkdir(dirname(join(dir, rel)), { recursive: true });
    await writeFile(join(dir, rel), content);
  }
}

/** Writes every file of `model`'s site, rendered with the settings `site`, into `dir`. */
export async function writeSampleSite(dir: string, model: SiteModel, site: SiteContext): Promise<void> {
  const renderContext = createRenderContext();
  const html = await loadHtmlRenderer();
  const files = renderHtmlSite(html, model, site);
  const all = model.calendars.flatMap((c) => model.events.get(c.id) ?? []);
  for (const cal of [null, ...model.calendars]) {
    const events = cal ? (model.events.get(cal.id) ?? []) : all;
    const feeds = renderSyndication(renderContext, cal, model.calendars, events, site, html.text(site));
    const at = (name: 'rss.xml' | 'atom.xml' | 'feed.json' | 'calendar.ics'): string => (cal ? paths.calendar(cal.slug, name) : paths.site(name));
    files.set(at('rss.xml'), feeds.rss);
    files.set(at('atom.xml'), feeds.atom);
    files.set(at('feed.json'), feeds.json);
    files.set(at('calendar.ics'), renderIcs(renderContext, cal, model.calendars, events, site));
    if (cal) for (const e of events) files.set(paths.eventIcs(cal.slug, e.slug), renderEventIcs(renderContext, e, site));
  }
  files.set(paths.headers(), renderHeaders());
  await writeFiles(dir, files);
}

export const HOSTILE = '<img src=x onerror=alert(1)>Hostile <script>alert(2)</script> talk';

/** The Arts calendar's slug (its id needs the encoded form). */
export const ARTS = '_ifzhi4zaeyqeg5lmor2xezi';

/** The sample model plus a hostile title in Arts that is not removed, so the feeds (and the widget) carry it. */
export function browserModel(): SiteModel {
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

/** The sample site served by `calfeed serve`'s preview server, a second origin to embed it from, and Chromium. */
export interface SampleBench {
  siteUrl: string;
  siteDir: string;
  /** The other origin (a news site): write its pages into hostDir. */
  hostUrl: string;
  hostDir: string;
  /** Where screenshots go: test/browser/screenshots with CALFEED_UPDATE_SCREENSHOTS=1, else a temporary folder. */
  shots: string;
  /** What every page opened reported: console errors, uncaught exceptions, dialogs. */
  record: PageRecord;
  /** A page of its own context (English, in Vilnius unless `options` say otherwise), the clock at SAMPLE_NOW. */
  openPage(options?: BrowserContextOptions): Promise<Page>;
  close(): Promise<void>;
}

/** Writes the sample site (browserModel, with `settings`) and serves it and an empty host origin. */
export async function startSampleBench(settings: Partial<SiteContext> = {}): Promise<SampleBench> {
  const work = await mkdtemp(join(tmpdir(), 'calfeed-browser-'));
  const shots = SCREENSHOTS ?? join(work, 'screenshots');
  const siteDir = join(work, 'site');
  const hostDir = join(work, 'host');
  for (const dir of [shots, siteDir, hostDir]) await mkdir(dir, { recursive: true });
  // Start first: the site URL (and so every absolute link) is the preview server's own.
  const site = await startPreviewServer({ dir: siteDir, port: 0 });
  const host = await startPreviewServer({ dir: hostDir, port: 0 });
  await writeSampleSite(siteDir, browserModel(), sampleSite({ siteUrl: site.url, ...settings }));
  const browser = await launchChromium();
  const record: PageRecord = { problems: [], dialogs: [] };
  return {
    siteUrl: site.url,
    siteDir,
    hostUrl: host.url,
    hostDir,
    shots,
    record,
    async openPage(options = {}) {
      const page = await openRecordingPage(browser, record, { locale: 'en-US', timezoneId: 'Europe/Vilnius', viewport: { width: 960, height: 900 }, ...options });
      await page.clock.setFixedTime(SAMPLE_NOW);
      return page;
    },
    async close() {
      await browser.close();
      await site.close();
      await host.close();
      await rm(work, { recursive: true, force: true });
    },
  };
}

const SCREENSHOTS = process.env.CALFEED_UPDATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../browser/screenshots/', import.meta.url)) : undefined;
