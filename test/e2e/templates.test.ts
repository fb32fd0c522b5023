// --templates through the real CLI: the documented example folder (docs/examples/templates) takes
// effect in English and Lithuanian, a file that overrides nothing stops the build with exit 2, and
// a changed catalog message reaches every page on the next build.

import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { byClass, parse, select, text } from '../render/html/dom.js';
import { runCli, type CliResult } from '../support/cli.js';
import { listFiles, snapshotTree } from '../support/tree.js';

const EXAMPLE = fileURLToPath(new URL('../../docs/examples/templates/', import.meta.url));

let portal: DemoPortal;
let work: string;

function build(out: string, extra: string[]): Promise<CliResult> {
  return runCli(['build', '--base-url', portal.url, '--out', out, '--cache-dir', `${out}-cache`, '--time-zone', portal.timeZone, '--site-url', 'https://events.example.edu/', '--json', ...extra], {
    env: { CALFEED_TOKEN: portal.tokens.university },
    cwd: work,
  });
}

const page = async (out: string, file: string) => parse(await readFile(join(out, file), 'utf8'));

beforeAll(async () => {
  portal = await startDemoPortal({ now: Date.now() });
  work = await mkdtemp(join(tmpdir(), 'calfeed-templates-e2e-'));
});

afterAll(async () => {
  await portal?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the example --templates folder', () => {
  it('overrides the event list item and two messages, in English and in Lithuanian, and keeps the rest built-in', async () => {
    for (const [locale, upcoming, footer, kept] of [
      ['en', "What's on", 'Published by the Events Office with calfeed', 'Subscribe'],
      ['lt,en', 'Kas vyksta', 'Skelbia Renginių skyrius, naudodamas calfeed', 'Prenumerata'],
    ] as const) {
      const out = join(work, `example-${locale.slice(0, 2)}`);
      const r = await build(out, ['--templates', EXAMPLE, '--locale', locale]);
      expect(r.code, r.stderr).toBe(0);
      const calendar = await page(out, 'calendars/science/index.html');
      expect(select(calendar, 'h2', { id: 'upcoming-heading' }).map(text)).toEqual([upcoming]);
      expect(select(calendar, 'h2', { id: 'subscribe-heading' }).map(text)).toEqual([kept]);
      // The override's markup: each item has its class, and its place comes first.
      const items = byClass(calendar, 'example-item');
      expect(items.length).toBeGreaterThan(0);
      expect(byClass(calendar, 'event').length).toBe(items.length);
      const withPlace = items.find((li) => byClass(li, 'event-location').length > 0)!;
      expect(withPlace.children.filter((c) => c.type === 'tag').map((c) => (c as { attribs: Record<string, string> }).attribs.class)).toEqual(['event-location', 'event-title', 'event-time']);
      for (const file of (await listFiles(out)).filter((f) => f.endsWith('.html'))) {
        const doc = await page(out, file);
        expect(select(doc, 'html')[0]!.attribs.lang, file).toBe(locale.slice(0, 2));
        if (!file.endsWith('widget.html')) expect(text(select(doc, 'footer')[0]!), file).toContain(footer);
      }
    }
  });
});

describe('branding', () => {
  it('--title, --logo and --primary-color reach every page: titles end with the site name, the logo is in the header, the colour is --calfeed-primary', async () => {
    const out = join(work, 'branded');
    const brand = ['--templates', EXAMPLE, '--title', 'Example University Events', '--logo', '/static/logo.svg', '--primary-color', '#7a0019'];
    const r = await build(out, brand);
    expect(r.code, r.stderr).toBe(0);
    const pages = (await listFiles(out)).filter((f) => f.endsWith('.html'));
    for (const file of pages) {
      const doc = await page(out, file);
      expect(text(select(doc, 'style')[0]!), file).toBe(':root { --calfeed-primary: #7a0019; }');
      if (file.endsWith('widget.html')) continue;
      expect(text(select(doc, 'title')[0]!), file).toMatch(file === 'index.html' ? /^Example University Events$/ : / · Example University Events$/);
      expect(select(doc, 'img', { class: 'site-logo' }).map((img) => img.attribs.src), file).toEqual(['https://events.example.edu/static/logo.svg']);
    }
    expect(await readFile(join(out, 'style.css'), 'utf8')).toMatch(/--accent: var\(--calfeed-primary\)/);
    // Another colour is another set of pages.
    const recoloured = await build(out, [...brand.slice(0, -1), '#004b87']);
    const summary = JSON.parse(recoloured.stdout);
    expect(summary.eventFiles).toEqual({ rendered: summary.events, kept: 0 });
    expect(await readFile(join(out, 'index.html'), 'utf8')).toContain('--calfeed-primary: #004b87;');
  });

  it('--header-link and --footer-link (flags, or the config file) are in every page\'s header and footer, each page linking them from where it is', async () => {
    const out = join(work, 'links');
    const config = join(work, 'links.config.json');
    await writeFile(config, JSON.stringify({ footerLinks: [{ label: 'Contact', url: '/contact/' }, { label: 'Privacy & cookies', url: 'privacy.html#cookies' }] }));
    const r = await build(out, ['--config', config, '--header-link', 'About=about/', '--header-link', 'University=https://www.example.edu/?from=events']);
    expect(r.code, r.stderr).toBe(0);
    const site = 'https://events.example.edu/';
    const header = [['About', `${site}about/`], ['University', 'https://www.example.edu/?from=events']];
    const footer = [['Contact', 'https://events.example.edu/contact/'], ['Privacy & cookies', `${site}privacy.html#cookies`]];
    const pages = (await listFiles(out)).filter((f) => f.endsWith('.html') && !f.endsWith('widget.html'));
    expect(pages.length).toBeGreaterThan(50);
    for (const file of pages) {
      const doc = await page(out, file);
      // Where each link goes from this page's own address (404.html's are absolute: it is served at any path).
      const links = (label: string) =>
        select(doc, 'nav', { 'aria-label': label }).flatMap((nav) => select(nav, 'a')).map((a) => [text(a), new URL(a.attribs.href!, site + file).href]);
      expect(links('Site links'), file).toEqual(header);
      expect(links('More links'), file).toEqual(footer);
      if (file === '404.html') for (const a of select(doc, 'nav').flatMap((nav) => select(nav, 'a'))) expect(a.attribs.href).toMatch(/^https:\/\//);
    }
    expect(select(await page(out, 'calendars/science/index.html'), 'a').map((a) => a.attribs.href)).toContain('../../about/');
  });

  it('a colour, logo or link that is not one stops the build with exit 2', async () => {
    for (const [flag, value, message] of [
      ['--primary-color', 'red;}body{display:none', 'is not a colour as #rgb or #rrggbb'],
      ['--logo', 'javascript:alert(1)', 'is neither an http(s) URL nor a path'],
      ['--header-link', 'Home=javascript:alert(1)', '--header-link: the link "Home": "javascript:alert(1)" is neither an http(s) URL nor a path on the site'],
      ['--footer-link', 'Mail us=mailto:events@example.edu', '--footer-link: the link "Mail us": "mailto:events@example.edu" is neither'],
      ['--footer-link', 'https://example.edu/', '--footer-link: expected LABEL=URL (e.g. "About=/about/"), got "https://example.edu/".'],
    ] as const) {
      const r = await build(join(work, 'bad-brand'), [flag, value]);
      expect([r.code, r.stderr]).toEqual([2, expect.stringContaining(message)]);
    }
  });
});

describe('a --templates file that overrides nothing', () => {
  it('stops the build with exit 2, naming the file, the name it is near and the known names, and publishes nothing', async () => {
    const dir = join(work, 'misspelt');
    await cp(EXAMPLE, dir, { recursive: true });
    await writeFile(join(dir, 'partials', 'event-items.hbs'), '<li>{{title}}</li>\n');
    const out = join(work, 'misspelt-out');
    const r = await build(out, ['--templates', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, 'partials/event-items.hbs')} overrides nothing: calfeed has no partials/event-items.hbs and no template includes it. Did you mean partials/event-item.hbs?`);
    expect(r.stderr).toContain('Known names in partials/: partials/day-list.hbs, partials/event-item.hbs, partials/search.hbs, partials/subscribe.hbs.');
    expect(await listFiles(out).catch(() => [])).toEqual([]);
  });

  it('after a published build, a template that does not compile stops the next one before it asks the portal anything, and --out stays as it was; put right, the build is up to date again', async () => {
    const dir = join(work, 'breaks');
    await cp(EXAMPLE, dir, { recursive: true });
    const out = join(work, 'breaks-out');
    expect((await build(out, ['--templates', dir])).code).toBe(0);
    const published = await snapshotTree(out);
    const good = await readFile(join(dir, 'partials', 'event-item.hbs'), 'utf8');
    await writeFile(join(dir, 'partials', 'event-item.hbs'), '<li>{{#if title}}{{title}}</li>\n');
    portal.resetStats();
    const broken = await build(out, ['--templates', dir]);
    expect(broken.code, broken.stderr).not.toBe(0);
    expect(broken.stderr).toContain(join(dir, 'partials/event-item.hbs'));
    expect(portal.stats().requests).toBe(0);
    expect(await snapshotTree(out)).toEqual(published);
    // The same templates as the published build: only their fingerprint is needed to see it.
    await writeFile(join(dir, 'partials', 'event-item.hbs'), good);
    const again = await build(out, ['--templates', dir]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ upToDate: true, published: false });
  });
});

describe('a user catalog', () => {
  it('changing one of its messages changes every page on the next build, and nothing else', async () => {
    const dir = join(work, 'catalog');
    await cp(EXAMPLE, dir, { recursive: true });
    const out = join(work, 'catalog-out');
    const first = await build(out, ['--templates', dir]);
    expect(first.code, first.stderr).toBe(0);
    const before = await snapshotTree(out);
    const same = await build(out, ['--templates', dir]);
    expect(JSON.parse(same.stdout).eventFiles.rendered).toBe(0);

    // The footer is on every page but the iframe widget; the message it uses changes.
    const catalog = join(dir, 'locales', 'en.json');
    const messages = JSON.parse(await readFile(catalog, 'utf8')) as Record<string, string>;
    await writeFile(catalog, JSON.stringify({ ...messages, 'layout.footer': 'Published with {generator} by the Events Office.' }));
    const second = await build(out, ['--templates', dir]);
    expect(second.code, second.stderr).toBe(0);
    const summary = JSON.parse(second.stdout);
    expect(summary.eventFiles).toEqual({ rendered: summary.events, kept: 0 });
    const after = await snapshotTree(out);
    const pages = [...after.keys()].filter((f) => f.endsWith('.html') && !f.endsWith('widget.html'));
    expect(pages.length).toBeGreaterThan(summary.events);
    for (const file of pages) {
      expect(after.get(file)!.sha256, file).not.toBe(before.get(file)!.sha256);
      expect(await readFile(join(out, file), 'utf8'), file).toContain('by the Events Office.');
    }
    // Feeds, .ics files, the mirror and the assets show no catalog text.
    for (const [file, { sha256 }] of after) if (!file.endsWith('.html') && file !== 'manifest.json') expect(sha256, file).toBe(before.get(file)?.sha256);
  });
});
