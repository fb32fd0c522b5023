// The message catalogs: the shipped ones complete and alike, plural forms by Intl.PluralRules, the
// catalog a --locale list picks, and user catalogs and templates checked when they are loaded.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CalfeedError } from '../../../src/errors.js';
import { loadHtmlRenderer } from '../../../src/render/html/index.js';
import { createRenderContext } from '../../../src/render/context.js';
import { sampleModel, sampleSite } from '../../fixtures/sample.js';
import { byClass, parse, select, text } from './dom.js';
import { userDir } from './user-dir.js';
import { homeEvents, loadTemplates, upcomingCounts } from '../../support/render.js';

const ctx = createRenderContext();
const shipped = async (lang: string): Promise<Record<string, unknown>> => JSON.parse(await readFile(new URL(`../../../templates/locales/${lang}.json`, import.meta.url), 'utf8'));


async function loadError(dir: string): Promise<CalfeedError> {
  const error = await loadTemplates(dir).then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(CalfeedError);
  return error as CalfeedError;
}

const placeholders = (message: unknown): string[] =>
  [...new Set([...JSON.stringify(message).matchAll(/\{([A-Za-z_]\w*)\}/g)].map((m) => m[1]!))].sort();

describe('the shipped catalogs', () => {
  it('en and lt give the same messages, with the same placeholders, and every plural form of their language', async () => {
    const en = await shipped('en');
    const lt = await shipped('lt');
    expect(Object.keys(lt).sort()).toEqual(Object.keys(en).sort());
    for (const [key, message] of Object.entries(en)) expect(placeholders(lt[key]), key).toEqual(placeholders(message));
    for (const [lang, catalog] of [['en', en], ['lt', lt]] as const) {
      const categories = new Intl.PluralRules(lang).resolvedOptions().pluralCategories;
      for (const [key, message] of Object.entries(catalog)) {
        if (typeof message === 'object') expect(Object.keys(message!).sort(), `${lang} ${key}`).toEqual([...categories].sort());
      }
    }
    // Loading checks the same: every message a template or calfeed uses is in both.
    expect([...(await loadTemplates()).catalogs.all().keys()].sort()).toEqual(['en', 'lt']);
  });

  it('count Lithuanian events by Intl.PluralRules: 1 and 21 renginys, 3 renginiai, 10 and 11 renginių, 1.5 renginio', async () => {
    const lt = (await loadTemplates()).catalogs.pick(['lt']);
    expect([1, 21, 3, 22, 10, 11, 1.5].map((count) => lt.t('index.upcoming', { count }))).toEqual([
      '1 būsimas renginys', '21 būsimas renginys', '3 būsimi renginiai', '22 būsimi renginiai', '10 būsimų renginių', '11 būsimų renginių', '1,5 būsimo renginio',
    ]);
    const en = (await loadTemplates()).catalogs.pick(['en']);
    expect([1, 2, 1000].map((count) => en.t('index.upcoming', { count }))).toEqual(['1 upcoming event', '2 upcoming events', '1,000 upcoming events']);
  });

  it('every count reads in the plural form Intl.PluralRules names for it', async () => {
    const { catalogs } = await loadTemplates();
    const forms = (await shipped('lt'))['index.upcoming'] as Record<string, string>;
    const rules = new Intl.PluralRules('lt');
    const lt = catalogs.pick(['lt']);
    fc.assert(
      fc.property(fc.nat({ max: 1_000_000 }), (count) => {
        expect(lt.t('index.upcoming', { count })).toBe(forms[rules.select(count)]!.replace('{count}', new Intl.NumberFormat('lt').format(count)));
      }),
    );
  });
});

describe('the catalog a --locale list picks', () => {
  it('is the first entry with a catalog, by its language too, else English', async () => {
    const { catalogs } = await loadTemplates();
    expect(catalogs.langFor(['lt', 'en'])).toBe('lt');
    expect(catalogs.langFor(['fr', 'en'])).toBe('en');
    expect(catalogs.langFor(['fr', 'lt'])).toBe('lt');
    expect(catalogs.langFor(['lt-LT'])).toBe('lt');
    expect(catalogs.langFor(['fr'])).toBe('en');
    expect(catalogs.pick(['en', 'lt']).lang).toBe('en');
  });

  it('sets lang on every page, whatever the date locale: fr,en is English text under lang="en", French dates', async () => {
    const html = await loadHtmlRenderer();
    const model = sampleModel();
    for (const [locales, lang, heading] of [[['lt', 'en'], 'lt', 'Kalendoriai'], [['fr', 'en'], 'en', 'Calendars']] as const) {
      const site = sampleSite({ locale: locales[0], locales });
      const doc = parse(html.index(ctx, model.calendars, upcomingCounts(ctx, model, site), homeEvents(ctx, model, site), [], site));
      expect(select(doc, 'html')[0]!.attribs.lang).toBe(lang);
      expect(select(doc, 'h2').map(text)).toContain(heading);
      const cal = model.calendars[0]!;
      const event = parse(html.event(ctx, cal, model.events.get(cal.id)![0]!, site));
      expect(select(event, 'html')[0]!.attribs.lang).toBe(lang);
      // The visitor's-time line formats dates in --locale's first entry.
      expect(select(event, 'p', { 'data-calfeed-local': true })[0]!.attribs['data-locale']).toBe(locales[0]);
    }
  });
});

describe('user catalogs', () => {
  it('override some messages and keep the rest of the shipped catalog', async () => {
    const dir = await userDir({ 'locales/lt.json': JSON.stringify({ 'index.calendars': 'Mūsų kalendoriai' }) });
    const { catalogs } = await loadTemplates(dir);
    const lt = catalogs.pick(['lt']);
    expect(lt.t('index.calendars')).toBe('Mūsų kalendoriai');
    expect(lt.t('calendar.upcoming')).toBe('Būsimi renginiai');
    expect(catalogs.pick(['en']).t('index.calendars')).toBe('Calendars');
  });

  it('add a language, which a --locale list may then pick', async () => {
    const en = await shipped('en');
    const de = { ...en, 'index.calendars': 'Kalender', 'index.upcoming': { one: '{count} Termin', other: '{count} Termine' } };
    const { catalogs } = await loadTemplates(await userDir({ 'locales/de.json': JSON.stringify(de) }));
    expect(catalogs.langFor(['de-AT', 'en'])).toBe('de');
    expect(catalogs.pick(['de']).t('index.upcoming', { count: 2 })).toBe('2 Termine');
  });

  it('fail to load, naming the file and what is wrong: a language short of messages, a key nothing uses, a missing plural form, bad JSON', async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ 'locales/de.json': JSON.stringify({ 'index.calendars': 'Kalender' }) }, /locales\/de\.json lacks "layout\.skip"/],
      [{ 'locales/lt.json': JSON.stringify({ 'index.calendar': 'x' }) }, /locales\/lt\.json: "index\.calendar" is not a message.*Did you mean "index\.calendars"\?/],
      [{ 'locales/lt.json': JSON.stringify({ 'index.upcoming': { one: '{count} renginys', other: '{count} renginių' } }) }, /"index\.upcoming" must be given in every plural form.*missing few, many/],
      [{ 'locales/lt.json': '{"index.calendars": ' }, /locales\/lt\.json is not valid JSON/],
      [{ 'locales/not a tag.json': '{}' }, /"not a tag" is not a language tag/],
    ];
    for (const [files, message] of cases) {
      const error = await loadError(await userDir(files));
      expect([error.code, error.message]).toEqual(['CONFIG', expect.stringMatching(message)]);
    }
  });
});

describe('{{t}} in templates', () => {
  it('an unknown key fails the load, naming the template, its line and the key it is near', async () => {
    const dir = await userDir({ 'pages/past.hbs': '{{#> layouts/base}}\n<h1>{{t "past.heading"}}</h1>\n<p>{{t "past.nome"}}</p>\n{{/layouts/base}}' });
    const error = await loadError(dir);
    expect(error.code).toBe('CONFIG');
    expect(error.message).toContain(`${join(dir, 'pages/past.hbs')} line 3 uses the message "past.nome", which no catalog has. Did you mean "past.none"?`);
  });

  it("a template's own key works once every catalog has it", async () => {
    const page = '{{#> layouts/base}}<p class="tagline">{{t "brand.tagline" name=page.siteTitle}}</p>{{/layouts/base}}';
    const missing = await loadError(await userDir({ 'pages/index.hbs': page, 'locales/en.json': JSON.stringify({ 'brand.tagline': 'All of {name}' }) }));
    expect(missing.message).toMatch(/locales\/lt\.json lacks "brand\.tagline"/);
    const dir = await userDir({
      'pages/index.hbs': page,
      'locales/en.json': JSON.stringify({ 'brand.tagline': 'All of {name}' }),
      'locales/lt.json': JSON.stringify({ 'brand.tagline': 'Visa „{name}“' }),
    });
    const html = await loadHtmlRenderer(dir);
    const model = sampleModel();
    const site = sampleSite({ locale: 'lt' });
    expect(byClass(parse(html.index(ctx, model.calendars, upcomingCounts(ctx, model, site), homeEvents(ctx, model, site), [], site)), 'tagline').map(text)).toEqual(['Visa „University Events“']);
  });
});
