// Render every HTML page and asset of a model into a map of output path -> content, the way the
// build does, so tests can follow links between pages.

import { isCancelled, listEvent, type Category, type FeedEvent, type SiteContext, type SiteModel } from '../../../src/model.js';
import { displayName } from '../../../src/pipeline/render-categories.js';
import { isUpcoming, pageSpan, type CategoryCount } from '../../../src/render/html/index.js';
import { categoryKey, categorySlug, paths } from '../../../src/paths.js';
import { createRenderContext } from '../../../src/render/context.js';
import type { HtmlRenderer } from '../../../src/render/html/index.js';
import { calendarPages, homeEvents, upcomingCounts } from '../../support/render.js';

export function renderHtmlSite(html: HtmlRenderer, model: SiteModel, site: SiteContext): Map<string, string> {
  // One context per site rendered, as one per build.
  const ctx = createRenderContext();
  const files = new Map<string, string>(Object.entries(html.assets(site)));
  const categories = categoryPages(html, model, site, files);
  files.set(paths.site('index.html'), html.index(ctx, model.calendars, upcomingCounts(ctx, model, site), homeEvents(ctx, model, site), categories, site));
  for (const cal of model.calendars) {
    const events = model.events.get(cal.id) ?? [];
    const pages = calendarPages(html, ctx, cal, events, site);
    files.set(paths.calendar(cal.slug, 'index.html'), pages.index);
    files.set(paths.calendar(cal.slug, 'past.html'), pages.past);
    files.set(paths.calendar(cal.slug, 'widget.html'), pages.widget);
    for (const event of events) files.set(paths.eventPage(cal.slug, event.slug), html.event(ctx, cal, event, site));
  }
  return files;
}

/** Every category's page and categories/index.html, into `files`; returns each category's upcoming count. */
function categoryPages(html: HtmlRenderer, model: SiteModel, site: SiteContext, files: Map<string, string>): CategoryCount[] {
  const ctx = createRenderContext();
  const found = new Map<string, { spellings: Map<string, number>; events: FeedEvent[] }>();
  for (const cal of model.calendars) {
    for (const e of model.events.get(cal.id) ?? []) {
      for (const name of new Set(e.categories)) {
        const key = categoryKey(name);
        if (key === '') continue;
        const entry = found.get(key) ?? { spellings: new Map<string, number>(), events: [] as FeedEvent[] };
        found.set(key, entry);
        entry.spellings.set(name, (entry.spellings.get(name) ?? 0) + 1);
        if (!entry.events.includes(e)) entry.events.push(e);
      }
    }
  }
  const counts: CategoryCount[] = [];
  for (const [key, { spellings, events }] of found) {
    const category: Category = { key, slug: categorySlug(key), name: displayName(spellings) };
    const calOf = (e: FeedEvent) => model.calendars.find((c) => c.id === e.calendarId)!;
    const upcoming = events.filter((e) => isUpcoming(pageSpan(ctx, calOf(e), e, site), site.clock)).sort((a, b) => pageSpan(ctx, calOf(a), a, site).start - pageSpan(ctx, calOf(b), b, site).start);
    const count = upcoming.filter((e) => !isCancelled(e)).length;
    files.set(paths.category(category.slug, 'index.html'), [...html.categoryPieces(ctx, category, model.calendars, upcoming.map(listEvent), count, site)].join(''));
    counts.push({ category, upcoming: count });
  }
  files.set(paths.categoriesIndex(), html.categories(ctx, counts, site));
  return counts;
}
