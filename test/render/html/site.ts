// Render every HTML page and asset of a model into a map of output path -> content, the way the
// build does, so tests can follow links between pages.

import type { SiteContext, SiteModel } from '../../../src/model.js';
import { homeEvents, upcomingCounts } from '../../../src/render/html/index.js';
import { paths } from '../../../src/paths.js';
import { createRenderContext } from '../../../src/render/context.js';
import type { HtmlRenderer } from '../../../src/render/html/index.js';

export function renderHtmlSite(html: HtmlRenderer, model: SiteModel, site: SiteContext): Map<string, string> {
  // One context per site rendered, as one per build.
  const ctx = createRenderContext();
  const files = new Map<string, string>(Object.entries(html.assets(site)));
  files.set(paths.site('index.html'), html.index(ctx, model.calendars, upcomingCounts(ctx, model, site), homeEvents(ctx, model, site), [], site));
  for (const cal of model.calendars) {
    const events = model.events.get(cal.id) ?? [];
    const pages = html.calendar(ctx, cal, events, site);
    files.set(paths.calendar(cal.slug, 'index.html'), pages.index);
    files.set(paths.calendar(cal.slug, 'past.html'), pages.past);
    files.set(paths.calendar(cal.slug, 'widget.html'), pages.widget);
    for (const event of events) files.set(paths.eventPage(cal.slug, event.slug), html.event(ctx, cal, event, site));
  }
  return files;
}
