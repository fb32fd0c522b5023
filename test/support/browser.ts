// Debian's Chromium driven by playwright-core, with pages that record what a visitor would suffer:
// console errors, uncaught exceptions and dialogs (an alert from injected script).
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { startPreviewServer } from '../../src/serve/index.js';

export const CHROMIUM = '/usr/bin/chromium';

/** Launch headless Chromium; fails (never skips) with the install command when it is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM}. Install it with: apt-get update && apt-get install -y chromium`);
  // Background networking off: this machine has no network, and Chromium would keep trying.
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

/** What pages opened with openRecordingPage reported. */
export interface PageRecord {
  problems: string[];
  dialogs: string[];
}

/** A new page in its own context that pushes console errors, page errors and dialogs into `record`. */
export async function openRecordingPage(browser: Browser, record: PageRecord, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext(options);
  // The demo's event images are on the portal's host, which this machine cannot reach: a pixel
  // stands in, so pages load as they would in the field (and a failed load is not a console error).
  await context.route(/^https:\/\/portal\.example\.edu\/media\//, (route) => route.fulfill({ status: 200, contentType: 'image/png', body: PIXEL }));
  const page = await context.newPage();
  page.on('console', (msg) => {
    if (msg.type() === 'error') record.problems.push(`${page.url()}: ${msg.text()}`);
  });
  page.on('pageerror', (error) => record.problems.push(`${page.url()}: ${error.message}`));
  page.on('dialog', (dialog) => {
    record.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return page;
}

/**
 * A news site of another origin (`{work}/host`, served on a port of its own) embedding the widget of
 * the site at siteUrl for the science calendar, as the README shows; its page in `lang`.
 */
export async function startWidgetHost(work: string, siteUrl: string, page: { lang: string; title: string }): Promise<{ url: string; close(): Promise<void> }> {
  await mkdir(join(work, 'host'), { recursive: true });
  await writeFile(
    join(work, 'host', 'index.html'),
    `<!doctype html><html lang="${page.lang}"><head><meta charset="utf-8"><title>${page.title}</title><link rel="icon" href="data:,"></head>
<body><div id="events" data-calfeed-calendar="science"></div><script src="${siteUrl}widget.js" async></script></body></html>`,
  );
  return startPreviewServer({ dir: join(work, 'host'), port: 0 });
}
