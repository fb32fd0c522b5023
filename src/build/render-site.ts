// Render every output format from the model into staging. The renderers are pure; this module only
// decides which renderer gets which events and where each result goes (src/paths.ts).

import type { Calendar, FeedEvent, SiteContext, SiteModel } from '../model.js';
import { paths, type SiteFile } from '../paths.js';
import type { Staging } from '../publish/index.js';
import type { HtmlRenderer } from '../render/html/index.js';
import { renderIcs } from '../render/ical/index.js';
import type { EventFiles } from './event-files.js';
import { renderSyndication } from '../render/syndication/index.js';

const byStart = (a: FeedEvent, b: FeedEvent): number => startOf(a) - startOf(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function startOf(e: FeedEvent): number {
  return e.when.kind === 'timed' ? e.when.start : Date.parse(e.when.startDate + 'T00:00:00Z');
}

export interface RenderInput {
  model: SiteModel;
  /** Events gone from the API, kept as cancellations in iCalendar only. */
  removed: FeedEvent[];
  site: SiteContext;
  html: HtmlRenderer;
  /** Writes event pages and .ics; live events went through it during the crawl already. */
  eventFiles: EventFiles;
  /** The fingerprint a removed event's files were last published with. */
  renderedBefore: (calendarId: string, eventId: string) => string | undefined;
}

/** Render calendar pages, feeds, the index and assets into staging; returns event counts per calendar. */
export async function renderSite(staging: Staging, input: RenderInput): Promise<Map<string, number>> {
  const { model, removed, site, html } = input;
  const counts = new Map<string, number>();
  const all: FeedEvent[] = [];
  const removedByCalendar = groupBy(removed, (e) => e.calendarId);

  for (const cal of model.calendars) {
    const events = [...(model.events.get(cal.id) ?? [])].sort(byStart);
    const gone = removedByCalendar.get(cal.id) ?? [];
    counts.set(cal.id, events.length);
    all.push(...events);
    await renderCalendar(staging, cal, model.calendars, events, gone, site, html);
    // Removed events keep their page and .ics (both cancelled) while they stay in calendar.ics:
    // RSS items and "add to calendar" files that link to them must not hit a 404.
    for (const event of gone) await input.eventFiles.write(cal, event, input.renderedBefore(event.calendarId, event.id));
  }

  all.sort(byStart);
  const withRemoved = [...all, ...removed].sort(byStart);
  await staging.write(paths.site('calendar.ics'), renderIcs(null, model.calendars, withRemoved, site));
  const feeds = renderSyndication(null, model.calendars, all, site);
  await staging.write(paths.site('rss.xml'), feeds.rss);
  await staging.write(paths.site('atom.xml'), feeds.atom);
  await staging.write(paths.site('feed.json'), feeds.json);
  await staging.write(paths.site('index.html'), html.index(model, site));
  for (const [name, content] of Object.entries(html.assets())) await staging.write(paths.site(name as SiteFile), content);
  return counts;
}

async function renderCalendar(
  staging: Staging,
  cal: Calendar,
  calendars: Calendar[],
  events: FeedEvent[],
  removed: FeedEvent[],
  site: SiteContext,
  html: HtmlRenderer,
): Promise<void> {
  const ics = renderIcs(cal, calendars, [...events, ...removed].sort(byStart), site);
  await staging.write(paths.calendar(cal.slug, 'calendar.ics'), ics);
  const feeds = renderSyndication(cal, calendars, events, site);
  await staging.write(paths.calendar(cal.slug, 'rss.xml'), feeds.rss);
  await staging.write(paths.calendar(cal.slug, 'atom.xml'), feeds.atom);
  await staging.write(paths.calendar(cal.slug, 'feed.json'), feeds.json);
  const pages = html.calendar(cal, events, site);
  await staging.write(paths.calendar(cal.slug, 'index.html'), pages.index);
  await staging.write(paths.calendar(cal.slug, 'past.html'), pages.past);
  await staging.write(paths.calendar(cal.slug, 'widget.html'), pages.widget);
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
