// Issue 19, filter and search without a server: the demo build's home and calendar pages in
// Chromium, searching search.json with page.js; with JavaScript off, the lists stay whole. What
// each search should find is worked out here from search.json by a plain substring match.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPreviewServer } from '../../src/serve/index.js';
import { launchChromium, openRecordingPage, type PageRecord } from '../support/browser.js';
import { runCli } from '../support/cli.js';

const SCREENSHOTS = process.env.CALFEED_UPDATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('./screenshots/', import.meta.url)) : undefined;

interface IndexEvent {
  url: string;
  title: string;
  calendar: number;
  categories: number[];
  place: string | null;
  description: string | null;
}
interface SearchIndex {
  calendars: Array<{ slug: string; title: string; url: string }>;
  events: IndexEvent[];
  categories: Array<{ slug: string; name: string }>;
}

interface Site {
  url: string;
  index: SearchIndex;
  close(): Promise<void>;
}

let work: string;
let en: Site;
let lt: Site;
let browser: Browser;
const record: PageRecord = { problems: [], dialogs: [] };

/** The embedded demo portal's build, served at its --site-url. */
async function buildSite(name: string, args: string[]): Promise<Site> {
  const out = join(work, name);
  await mkdir(out);
  const server = await startPreviewServer({ dir: out, port: 0 });
  const build = await runCli(['build', '--out', out, '--cache-dir', join(work, `${name}-cache`), '--site-url', server.url, '--quiet', ...args], { cwd: work });
  expect(build.code, build.stderr).toBe(0);
  const index = JSON.parse(await readFile(join(out, 'search.json'), 'utf8')) as SearchIndex;
  return { url: server.url, index, close: () => server.close() };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-search-browser-'));
  en = await buildSite('en', []);
  lt = await buildSite('lt', ['--locale', 'lt']);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await en?.close();
  await lt?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

const fold = (text: string): string => text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
const hay = (e: IndexEvent): string => fold([e.title, e.place ?? '', e.description ?? ''].join('\n'));

/** The event URLs a search should find, in index order. */
function expected(index: SearchIndex, filter: { q?: string; calendar?: string; category?: string }): string[] {
  const calendar = index.calendars.findIndex((c) => c.slug === filter.calendar);
  const category = index.categories.findIndex((c) => c.slug === filter.category);
  return index.events
    .filter((e) => filter.calendar === undefined || e.calendar === calendar)
    .filter((e) => filter.category === undefined || e.categories.includes(category))
    .filter((e) => filter.q === undefined || hay(e).includes(fold(filter.q)))
    .map((e) => e.url);
}

/** A word of `text` (5 letters or more) that `avoid` does not hold: what finds an event by that field alone. */
function wordOf(text: string | null, avoid: string): string | undefined {
  return (text ?? '').match(/\p{L}{5,}/gu)?.find((w) => !fold(avoid).includes(fold(w)));
}

function openPage(options: { javaScriptEnabled?: boolean } = {}): Promise<Page> {
  return openRecordingPage(browser, record, { locale: 'en-US', timezoneId: 'Europe/Vilnius', viewport: { width: 1000, height: 1100 }, ...options });
}

/** The status once a search has run, and the URLs of the results listed. */
async function results(page: Page, site: Site): Promise<{ status: string; urls: string[] }> {
  // Typing is searched a moment after the last key, when the URL takes the words: wait for that.
  await page.waitForFunction(() => {
    const status = document.querySelector('.search-status')?.textContent ?? '';
    const typed = (document.querySelector('#calfeed-q') as HTMLInputElement).value.trim();
    return status !== '' && !status.includes('…') && (new URLSearchParams(location.search).get('q') ?? '') === typed;
  });
  const status = (await page.locator('.search-status').textContent()) ?? '';
  const hrefs = await page.locator('.search-results .event-title a').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
  return { status, urls: hrefs.map((href) => href.slice(site.url.length)) };
}

const found = (n: number): string => (n === 0 ? 'No events match.' : n === 1 ? '1 event found' : `${n} events found`);

describe('search and filters on the home page', () => {
  it('finds events by a word of their title, of their place and of their description', async () => {
    const { index } = en;
    const withTitle = index.events.find((e) => wordOf(e.title, ''))!;
    const withPlace = index.events.find((e) => wordOf(e.place, e.title))!;
    const withDescription = index.events.find((e) => wordOf(e.description, `${e.title} ${e.place ?? ''}`))!;
    const page = await openPage();
    for (const [event, word] of [
      [withTitle, wordOf(withTitle.title, '')!],
      [withPlace, wordOf(withPlace.place, withPlace.title)!],
      [withDescription, wordOf(withDescription.description, `${withDescription.title} ${withDescription.place ?? ''}`)!],
    ] as const) {
      await page.goto(en.url);
      await page.locator('#calfeed-q').fill(word.toUpperCase());
      const shown = await results(page, en);
      const want = expected(index, { q: word });
      expect(want, word).toContain(event.url);
      expect(shown).toEqual({ status: found(want.length), urls: want.slice(0, 100) });
      // The page's own lists make way for the results.
      expect(await page.locator('[data-calfeed-listing]').isVisible()).toBe(false);
    }
    expect(record.problems).toEqual([]);
    await page.context().close();
  });

  it('filters by calendar, by category and both with a word; the filter is in the URL, which Back undoes', async () => {
    const { index } = en;
    const category = index.categories.find((c) => expected(index, { category: c.slug }).length >= 2)!;
    const first = index.events.find((e) => e.categories.includes(index.categories.indexOf(category)))!;
    const calendar = index.calendars[first.calendar]!;
    const page = await openPage();
    await page.goto(en.url);
    await page.locator('#calfeed-calendar').focus();
    await page.locator('#calfeed-calendar').selectOption(calendar.slug);
    let want = expected(index, { calendar: calendar.slug });
    expect(await results(page, en)).toEqual({ status: found(want.length), urls: want.slice(0, 100) });
    expect(new URL(page.url()).search).toBe(`?calendar=${calendar.slug}`);

    await page.locator('#calfeed-category').selectOption(category.slug);
    want = expected(index, { calendar: calendar.slug, category: category.slug });
    expect(await results(page, en)).toEqual({ status: found(want.length), urls: want });
    expect(want).toContain(first.url);

    const word = wordOf(first.title, '')!;
    await page.locator('#calfeed-q').fill(word);
    await page.waitForURL(/[?&]q=/);
    want = expected(index, { calendar: calendar.slug, category: category.slug, q: word });
    expect(await results(page, en)).toEqual({ status: found(want.length), urls: want });
    await page.screenshot({ path: join(SCREENSHOTS ?? work, 'search.png') });

    // Shared: the same address in a new page shows the same results.
    const shared = await openPage();
    await shared.goto(page.url());
    expect(await shared.locator('#calfeed-q').inputValue()).toBe(word);
    expect(await results(shared, en)).toEqual({ status: found(want.length), urls: want });
    await shared.context().close();

    // Back: the category alone, then the calendar alone, then the page as it was.
    await page.goBack();
    expect(await page.locator('#calfeed-q').inputValue()).toBe('');
    expect((await results(page, en)).urls).toEqual(expected(index, { calendar: calendar.slug, category: category.slug }));
    await page.goBack();
    expect(await page.locator('#calfeed-category').inputValue()).toBe('');
    await page.goBack();
    expect(new URL(page.url()).search).toBe('');
    expect(await page.locator('[data-calfeed-listing]').isVisible()).toBe(true);
    expect(await page.locator('.search-results').isVisible()).toBe(false);
    expect(await page.locator('.search-status').textContent()).toBe('');
    expect(record.problems).toEqual([]);
    await page.context().close();
  });

  it('says so when nothing matches, and Clear brings the lists back', async () => {
    const page = await openPage();
    await page.goto(`${en.url}?q=zzqxjw`);
    expect(await results(page, en)).toEqual({ status: 'No events match.', urls: [] });
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.waitForURL((url) => url.search === '');
    expect(await page.locator('[data-calfeed-listing]').isVisible()).toBe(true);
    expect(await page.locator('#calfeed-q').inputValue()).toBe('');
    await page.context().close();
  });

  it('works from the keyboard, and announces the count to screen readers', async () => {
    const page = await openPage();
    await page.goto(en.url);
    for (let i = 0; i < 10 && (await page.evaluate(() => document.activeElement?.id)) !== 'calfeed-q'; i++) await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('calfeed-q');
    const word = wordOf(en.index.events[0]!.title, '')!;
    await page.keyboard.type(word);
    await page.waitForURL((url) => url.searchParams.get('q') === word);
    const want = expected(en.index, { q: word });
    expect(await results(page, en)).toEqual({ status: found(want.length), urls: want.slice(0, 100) });
    expect(await page.locator('.search-status').getAttribute('aria-live')).toBe('polite');
    expect(await page.locator('.search-status').getAttribute('role')).toBe('status');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('calfeed-calendar');
    // Keys change a closed select's value in Chromium on Linux, as they do for keyboard users.
    await page.keyboard.press('ArrowDown');
    const calendar = await page.locator('#calfeed-calendar').inputValue();
    expect(calendar).toBe(en.index.calendars[0]!.slug);
    const narrowed = expected(en.index, { q: word, calendar });
    expect(await results(page, en)).toEqual({ status: found(narrowed.length), urls: narrowed });
    await page.context().close();
  });
});

describe('search on a calendar page', () => {
  it("searches the calendar's own events first, and every calendar's when asked", async () => {
    const { index } = en;
    const cal = index.calendars.find((_, i) => index.events.filter((e) => e.calendar === i).length >= 2)!;
    const page = await openPage();
    await page.goto(en.url + cal.url);
    expect(await page.locator('#calfeed-calendar').inputValue()).toBe(cal.slug);
    const word = 'e';
    await page.locator('#calfeed-q').fill(word);
    let want = expected(index, { q: word, calendar: cal.slug });
    expect(await results(page, en)).toEqual({ status: found(want.length), urls: want.slice(0, 100) });
    // The calendar's own filter is the page's: not in the URL.
    expect(new URL(page.url()).search).toBe('?q=e');
    await page.locator('#calfeed-calendar').selectOption('');
    want = expected(index, { q: word });
    expect(await results(page, en)).toEqual({ status: found(want.length), urls: want.slice(0, 100) });
    expect(new URL(page.url()).search).toBe('?q=e&calendar=');
    expect(record.problems).toEqual([]);
    await page.context().close();
  });
});

describe('without JavaScript', () => {
  it('shows no search form, and each calendar page lists every upcoming event', async () => {
    const page = await openPage({ javaScriptEnabled: false });
    await page.goto(en.url);
    expect(await page.locator('.search').isVisible()).toBe(false);
    expect(await page.locator('[data-calfeed-listing] .event').count()).toBeGreaterThan(0);
    for (const [i, cal] of en.index.calendars.entries()) {
      await page.goto(en.url + cal.url);
      expect(await page.locator('.search').isVisible(), cal.slug).toBe(false);
      const listed = await page.locator('[data-calfeed-listing] .event-title a').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
      expect(new Set(listed.map((href) => href.slice(en.url.length))), cal.slug).toEqual(new Set(en.index.events.filter((e) => e.calendar === i).map((e) => e.url)));
    }
    await page.context().close();
  });
});

describe('in Lithuanian (--locale lt)', () => {
  it("counts results with Lithuanian plural forms and labels the form in the page's language", async () => {
    const { index } = lt;
    const page = await openPage();
    await page.goto(lt.url);
    expect(await page.locator('label[for="calfeed-q"]').textContent()).toBe('Ieškoti pavadinimuose, vietose ir aprašymuose');
    const cal = index.calendars[0]!;
    await page.locator('#calfeed-calendar').focus();
    await page.locator('#calfeed-calendar').selectOption(cal.slug);
    const n = expected(index, { calendar: cal.slug }).length;
    const form = new Intl.PluralRules('lt').select(n);
    const text = { one: `Rastas ${n} renginys`, few: `Rasti ${n} renginiai`, many: `Rasta ${n} renginio`, other: `Rasta ${n} renginių` }[form as 'one' | 'few' | 'many' | 'other'];
    expect((await results(page, lt)).status).toBe(text);
    await page.locator('#calfeed-q').fill('zzqxjw');
    expect((await results(page, lt)).status).toBe('Tinkamų renginių nėra.');
    expect(record.problems).toEqual([]);
    await page.context().close();
  });
});
