// The HTML renderer: index, calendar, category, event and widget pages and the static assets.
// Templates are compiled once; every render after that is pure (the context only remembers answers).

import { CalfeedError } from '../../errors.js';
import type { Calendar, Category, FeedEvent, ListEvent, SiteContext } from '../../model.js';
import { paths } from '../../paths.js';
import type { RenderContext } from '../context.js';
import type { Message, PageText } from './messages.js';
import { compileTemplates, readTemplates, WIDGET_MESSAGES, type PageName, type TemplateSources } from './templates.js';
import { categoriesView, categoryDayView, type CategoryCount } from './category.js';
import { indexView, notFoundView } from './home.js';
import { calendarDayViews, eventView, type EventSource } from './view.js';

export { pageSpan } from './view.js';
export { isUpcoming } from './format.js';
export { HOME_CANDIDATES } from './home.js';
export { readTemplates } from './templates.js';
export type { CategoryCount } from './category.js';

export interface HtmlRenderer {
  /**
   * index.html: the soonest of `events` (the first HOME_CANDIDATES upcoming, by start), and every
   * calendar with its upcoming count (`upcoming`, by calendar id) and subscribe links.
   */
  index(ctx: RenderContext, calendars: Calendar[], upcoming: ReadonlyMap<string, number>, events: readonly FeedEvent[], categories: readonly CategoryCount[], site: SiteContext): string;
  /**
   * calendars/{slug}/index.html (upcoming, by day), past.html (newest first) and widget.html (for an
   * iframe), the index and past pages in pieces (a few days each): a page of 100,000 events is
   * never one string, nor (from a source that reads them when asked) 100,000 events.
   */
  calendarPieces(ctx: RenderContext, cal: Calendar, events: readonly ListEvent[] | EventSource, site: SiteContext): { index: Iterable<string>; past: Iterable<string>; widget: string };
  /**
   * categories/{slug}/index.html, in pieces (a few days each): a category's upcoming events of
   * every calendar (`events`, by start; from a source, read when asked), `upcoming` of them not cancelled.
   */
  categoryPieces(ctx: RenderContext, category: Category, calendars: readonly Calendar[], events: readonly ListEvent[] | EventSource, upcoming: number, site: SiteContext): Iterable<string>;
  /** categories/index.html: every category with its upcoming count. */
  categories(ctx: RenderContext, counts: readonly CategoryCount[], site: SiteContext): string;
  /** calendars/{slug}/events/{eventSlug}.html: the whole event, with JSON-LD and an "add to calendar" link. */
  event(ctx: RenderContext, cal: Calendar, event: FeedEvent, site: SiteContext): string;
  /** 404.html: what hosts show for a missing URL; its links are absolute, as it is served at any path. */
  notFound(ctx: RenderContext, site: SiteContext): string;
  /** Static assets written at the site root, keyed by output path: style.css, widget.js (with the widget's messages), page.js. */
  assets(site: SiteContext): Record<string, string>;
  /** The page text a site's pages are in: the first of its --locale list with a message catalog. */
  text(site: SiteContext): PageText;
  /** Changes whenever a template, asset or message catalog in effect changes (built-in or --templates). */
  readonly fingerprint: string;
}

/** Events per piece of a calendar page's day list (whole days; see calendarPieces). */
const DAYS_PIECE_EVENTS = 500;

/** The site-root assets the pages and the widget snippet refer to. */
export const ASSET_FILES = ['style.css', 'widget.js', 'page.js'] as const;

// Where widget.js takes its messages (WIDGET_MESSAGES, in every language with a catalog) and --primary-color.
const WIDGET_MESSAGES_MARK = '/*calfeed:messages*/null';

/** The renderer of the built-in templates overlaid by userDir's; a bad template throws CalfeedError. */
export async function loadHtmlRenderer(userDir?: string): Promise<HtmlRenderer> {
  return htmlRenderer(await readTemplates(userDir));
}

/** The renderer of templates read by readTemplates (compiled here; see loadHtmlRenderer). */
export function htmlRenderer(read: TemplateSources): HtmlRenderer {
  const templates = compileTemplates(read);
  const assets: Record<string, string> = {};
  for (const name of ASSET_FILES) {
    const text = templates.assets[name];
    if (text === undefined) throw new CalfeedError('BUILD', `templates/assets/${name} is missing; reinstall calfeed.`);
    assets[paths.site(name)] = text;
  }
  const text = (site: SiteContext): PageText => templates.catalogs.pick(site.locales ?? [site.locale]);
  const render = (name: PageName, site: SiteContext, view: (t: PageText) => object): string => {
    const t = text(site);
    return templates.render(name, view(t), t);
  };
  const calendarPieces: HtmlRenderer['calendarPieces'] = (ctx, cal, events, site) => {
    const t = text(site);
    const views = calendarDayViews(ctx, cal, events, site, t);
    return {
      index: templates.renderDays('calendar', views.index, views.index.days, DAYS_PIECE_EVENTS, t),
      past: templates.renderDays('past', views.past, views.past.days, DAYS_PIECE_EVENTS, t),
      widget: templates.render('widget', views.widget, t),
    };
  };
  return {
    index: (ctx, calendars, upcoming, events, categories, site) =>
      render('index', site, (t) => indexView(ctx, calendars, upcoming, events, categories, site, t)),
    categoryPieces(ctx, category, calendars, events, upcoming, site) {
      const t = text(site);
      const view = categoryDayView(ctx, category, calendars, events, upcoming, site, t);
      return templates.renderDays('category', view, view.days, DAYS_PIECE_EVENTS, t);
    },
    categories: (ctx, counts, site) => render('categories', site, (t) => categoriesView(ctx, counts, site, t)),
    calendarPieces,
    event: (ctx, cal, event, site) => render('event', site, (t) => eventView(ctx, cal, event, site, t)),
    notFound: (ctx, site) => render('not-found', site, (t) => notFoundView(ctx, site, t)),
    assets(site) {
      const widget = assets[paths.site('widget.js')]!;
      const messages = widgetMessages(templates.catalogs.all(), text(site).lang, site.primaryColor);
      return { ...assets, [paths.site('widget.js')]: widget.replace(WIDGET_MESSAGES_MARK, () => messages) };
    },
    text,
    fingerprint: templates.fingerprint,
  };
}

/** widget.js's settings: the site's language, each catalog's WIDGET_MESSAGES and the brand colour, as a JSON object. */
function widgetMessages(catalogs: ReadonlyMap<string, ReadonlyMap<string, Message>>, lang: string, primary: string | undefined): string {
  const byLang: Record<string, Record<string, Message>> = {};
  for (const [tag, messages] of [...catalogs].sort(([a], [b]) => (a < b ? -1 : 1))) {
    byLang[tag] = Object.fromEntries(WIDGET_MESSAGES.map((key) => [key, messages.get(key)!]));
  }
  return JSON.stringify({ lang, messages: byLang, ...(primary === undefined ? {} : { primary }) });
}
