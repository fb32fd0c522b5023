import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CalfeedError } from '../../../src/errors.js';
import { loadHtmlRenderer } from '../../../src/render/html/index.js';
import { sampleCalendar, sampleEvent, sampleModel, sampleSite } from '../../fixtures/sample.js';
import { byClass, parse, select, text } from './dom.js';
import { createRenderContext } from '../../../src/render/context.js';
import { calendarDayViews } from '../../../src/render/html/view.js';
import { dayEvents } from './day-events.js';
import { userDir } from './user-dir.js';
import { calendarPages, calendarViews, homeEvents, loadTemplates, upcomingCounts } from '../../support/render.js';

const ctx = createRenderContext();


async function buildError(promise: Promise<unknown>): Promise<CalfeedError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(CalfeedError);
  return error as CalfeedError;
}

const site = sampleSite();

describe('user templates', () => {
  it('override a partial and keep the rest built-in', async () => {
    const dir = await userDir({ 'partials/event-item.hbs': '<li class="mine">{{title}} @ {{#if location}}{{location}}{{/if}}</li>\n' });
    const html = await loadHtmlRenderer(dir);
    const model = sampleModel();
    const cal = model.calendars[0]!;
    const doc = parse(calendarPages(html, ctx, cal, model.events.get(cal.id)!, site).index);
    expect(byClass(doc, 'mine').map(text)).toEqual([
      'Open lecture: Quantum computing @ Main Hall, Universiteto g. 3, Vilnius',
      'Lab tour @ Main Hall, Universiteto g. 3, Vilnius',
      'Spring break 🌸 @ ',
    ]);
    // The layout and the subscribe partial are still the built-in ones.
    expect(select(doc, 'a').map((a) => a.attribs.href)).toContain('webcal://events.example.edu/feeds/calendars/science/calendar.ics');
  });

  it('override a page and a layout, still escaping data', async () => {
    const dir = await userDir({
      'pages/event.hbs': '{{#> layouts/base}}<h1 class="custom">{{event.title}}</h1>{{/layouts/base}}',
      'layouts/base.hbs': '<!doctype html><html lang="{{page.lang}}"><body class="my-layout">{{> @partial-block}}</body></html>',
    });
    const html = await loadHtmlRenderer(dir);
    const page = html.event(ctx, sampleCalendar(), sampleEvent({ title: 'A <b>bold</b> claim' }), site);
    expect(page).toBe('<!doctype html><html lang="en"><body class="my-layout"><h1 class="custom">A &lt;b&gt;bold&lt;/b&gt; claim</h1></body></html>');
  });

  it('can add partials of their own', async () => {
    const dir = await userDir({
      'partials/brand.hbs': '<p class="brand">{{page.siteTitle}}</p>',
      'pages/index.hbs': '{{#> layouts/base}}<h1>x</h1>{{> brand}}{{/layouts/base}}',
    });
    const html = await loadHtmlRenderer(dir);
    expect(byClass(parse(html.index(ctx, sampleModel().calendars, upcomingCounts(ctx, sampleModel(), site), homeEvents(ctx, sampleModel(), site), [], site)), 'brand').map(text)).toEqual(['University Events']);
  });

  it('a broken template fails with BUILD naming the file and the line', async () => {
    const dir = await userDir({ 'partials/subscribe.hbs': '<ul>\n<li>ok</li>\n{{#if subscribe}}\n<li>{{subscribe.rss}}</li>\n{{/each}}\n</ul>\n' });
    const error = await buildError(loadHtmlRenderer(dir));
    expect(error.code).toBe('BUILD');
    expect(error.message).toContain(join(dir, 'partials/subscribe.hbs'));
    expect(error.message).toMatch(/line 3\b/);

    const dir2 = await userDir({ 'pages/past.hbs': 'line one\nline two {{calendar.title\n' });
    const error2 = await buildError(loadHtmlRenderer(dir2));
    expect(error2.code).toBe('BUILD');
    expect(error2.message).toContain(join(dir2, 'pages/past.hbs'));
    expect(error2.message).toMatch(/line 2\b/);
  });

  it('a misspelt field fails the render with BUILD instead of rendering blank', async () => {
    const dir = await userDir({ 'pages/index.hbs': '<h1>{{page.sitetitle}}</h1>' });
    const html = await loadHtmlRenderer(dir);
    const error = await buildError(Promise.resolve().then(() => html.index(ctx, sampleModel().calendars, upcomingCounts(ctx, sampleModel(), site), homeEvents(ctx, sampleModel(), site), [], site)));
    expect(error.code).toBe('BUILD');
    expect(error.message).toContain(join(dir, 'pages/index.hbs'));
    expect(error.message).toContain('sitetitle');
  });

  it('see only the plain view model: no config, no prototypes', async () => {
    const dir = await userDir({
      'pages/index.hbs': '{{#each this}}[{{@key}}]{{/each}}{{#each page}}<{{@key}}>{{/each}}',
      'pages/calendar.hbs': '{{#with calendar}}{{lookup this "constructor"}}{{lookup this "__proto__"}}{{/with}}',
    });
    const html = await loadHtmlRenderer(dir);
    expect(html.index(ctx, sampleModel().calendars, upcomingCounts(ctx, sampleModel(), site), homeEvents(ctx, sampleModel(), site), [], site)).toBe(
      '[page][featured][today][thisWeek][later][hasUpcoming][calendars][categories][categoriesHref][subscribe][copyId][search]<lang><locale><title><siteTitle><description><home><stylesheet><script><canonical><generator><logo><primaryColor><crumbs><headerLinks><footerLinks><image><alternates>',
    );
    const model = sampleModel();
    const cal = model.calendars[0]!;
    expect(calendarPages(html, ctx, cal, model.events.get(cal.id)!, site).index).toBe('');
  });

  it('a file that overrides nothing is a configuration error naming the known names (it used to be ignored)', async () => {
    for (const [rel, near, known] of [
      ['pages/evnt.hbs', 'pages/event.hbs', 'pages/calendar.hbs, pages/categories.hbs, pages/category.hbs, pages/event.hbs, pages/index.hbs, pages/not-found.hbs, pages/past.hbs, pages/widget.hbs'],
      ['layouts/bse.hbs', 'layouts/base.hbs', 'layouts/base.hbs, layouts/widget.hbs'],
      ['partials/subscribes.hbs', 'partials/subscribe.hbs', 'partials/day-list.hbs, partials/event-item.hbs, partials/search.hbs, partials/subscribe.hbs'],
      ['assets/styles.css', 'assets/style.css', 'assets/page.js, assets/style.css, assets/widget.js'],
    ] as const) {
      const dir = await userDir({ [rel]: 'x' });
      const error = await buildError(loadHtmlRenderer(dir));
      expect(error.code).toBe('CONFIG');
      expect(error.message).toContain(`${dir}/${rel} overrides nothing: calfeed has no ${rel}`);
      expect(error.message).toContain(`Did you mean ${near}?`);
      expect(error.message).toContain(`: ${known}.`);
    }
    // A partial or layout of the user's own is fine once a template includes it.
    const dir = await userDir({ 'layouts/mine.hbs': '<main>{{> @partial-block}}</main>', 'pages/past.hbs': '{{#> layouts/mine}}x{{/layouts/mine}}' });
    expect((await loadHtmlRenderer(dir)).fingerprint).toMatch(/^[\w-]+$/);
  });

  it('a --templates folder that does not exist is a configuration error', async () => {
    const error = await buildError(loadHtmlRenderer(join(tmpdir(), 'calfeed-no-such-folder-' + process.pid)));
    expect(error.code).toBe('CONFIG');
    expect(error.message).toContain('calfeed-no-such-folder-');
  });

  it('for the page, the day list, or one that looks at the days (@root.days, @../index): calendar pages whole, the same bytes', async () => {
    const cal = sampleCalendar();
    const list = dayEvents(Array.from({ length: 30 }, (_, i) => ({ hours: i * 7 - 100, length: 2, allDay: i % 5 === 0, cancelled: i % 7 === 0, title: `t${i}` })));
    for (const files of <Array<Record<string, string>>>[
      { 'partials/day-list.hbs': '{{#each days}}<h3>{{@index}} {{label}}</h3>{{#each events}}{{> event-item}}{{/each}}{{/each}}' },
      { 'pages/calendar.hbs': '{{#> layouts/base}}{{days.length}} days: {{> day-list}}{{#each days}}{{key}}{{/each}}{{/layouts/base}}' },
      { 'partials/event-item.hbs': '<li>{{title}} ({{@index}})</li>\n' },
      { 'partials/event-item.hbs': '<li>{{title}} of {{@root.days.length}} days, day {{@../index}}</li>\n' },
    ]) {
      const templates = await loadTemplates(await userDir(files));
      const text = templates.catalogs.pick([site.locale]);
      const whole = calendarViews(ctx, cal, list, site, text);
      // Pieces of one event (whole days) at most, were they cut up.
      const pieces = calendarDayViews(ctx, cal, list, site, text);
      expect([...templates.renderDays('calendar', pieces.index, pieces.index.days, 1, text)].join('')).toBe(templates.render('calendar', whole.index, text));
      expect([...templates.renderDays('past', pieces.past, pieces.past.days, 1, text)].join('')).toBe(templates.render('past', whole.past, text));
    }
  });
});
