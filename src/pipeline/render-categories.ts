// Every category found in the live events of every calendar gets categories/{slug}/ (its upcoming
// events by day, feeds and calendar.ics); categories/index.html lists them. Removed events have no
// categories, so they leave their categories' files. Read one category at a time, as calendars are.

import type { Calendar, Category, SiteContext } from '../model.js';
import { categoryKey, categorySlug, paths, type CategoryFile } from '../paths.js';
import type { Staging } from '../publish/index.js';
import { ownClock } from '../render/clock.js';
import type { RenderContext } from '../render/context.js';
import type { CategoryCount, HtmlRenderer } from '../render/html/index.js';
import { icsHeader } from '../render/ical/index.js';
import { inFeedWindow, itemsRenderer, renderFeeds, type SyndicationFeeds } from '../render/syndication/index.js';
import type { CalendarFiles } from './calendar-files.js';
import type { SpooledRefs } from './gather.js';
import { icsChunks, liveEntries } from './ics-entries.js';
import { categoriesKey, categoryFilesKey, isUpcomingRef } from './render-keys.js';
import { compareRefs, feedDate, spans, spooledList, type EventRef, type EventSpool } from './spool.js';

/** A category's own files, in the order they are staged. */
export const CATEGORY_FILES: readonly CategoryFile[] = ['calendar.ics', 'rss.xml', 'atom.xml', 'feed.json', 'index.html'];

export interface CategoryInput {
  ctx: RenderContext;
  staging: Staging;
  spool: EventSpool;
  html: HtmlRenderer;
  calendarFiles: CalendarFiles;
  site: SiteContext;
  /** Every calendar listed (the pages link to them, the feeds name their zones). */
  calendars: Calendar[];
  /** renderEnvironment() and JSON.stringify(calendars): what every fingerprint starts from. */
  environment: string;
  calendarsJson: string;
}

/** What the build gathers of one category before rendering it. */
interface Found {
  /** How many events spell it each way. */
  spellings: Map<string, number>;
  /** Its live events, as [calendar position, ref position] pairs, flat. */
  members: number[];
}

/**
 * Render every category's files and categories/index.html from `lists` (each listed calendar's
 * spooled refs, in the calendar list's order), keeping those whose inputs are
 * unchanged (CalendarFiles); returns each category with its upcoming count (for the home page)
 * and until when what they took from "now" holds.
 */
export async function renderCategories(input: CategoryInput, lists: readonly SpooledRefs[]): Promise<{ counts: CategoryCount[]; until: number }> {
  const found = gather(lists);
  const counts: CategoryCount[] = [];
  let until = Infinity;
  // In key order, so the build's steps do not depend on the order calendars came in.
  for (const key of [...found.keys()].sort(compareCodePoints)) {
    const entry = found.get(key)!;
    const category: Category = { key, slug: categorySlug(key), name: displayName(entry.spellings) };
    const refs: EventRef[] = [];
    for (let i = 0; i < entry.members.length; i += 2) refs.push(lists[entry.members[i]!]!.at(entry.members[i + 1]!)!);
    const rendered = await renderCategory(input, category, refs.sort(compareRefs));
    counts.push({ category, upcoming: rendered.upcoming });
    until = Math.min(until, rendered.until);
  }
  const { ctx, html, calendarFiles, staging } = input;
  const file = paths.categoriesIndex();
  const listed = await calendarFiles.write('categories', categoriesKey(input.environment, counts), [file], async () => {
    const site = ownClock(input.site);
    await staging.write(file, html.categories(ctx, counts, site));
    return site.clock.changesAt;
  });
  return { counts, until: Math.min(until, listed) };
}

/** Each category's spellings and events, by key. */
function gather(lists: readonly SpooledRefs[]): Map<string, Found> {
  const found = new Map<string, Found>();
  const entry = (key: string): Found => {
    let known = found.get(key);
    if (!known) found.set(key, (known = { spellings: new Map(), members: [] }));
    return known;
  };
  // The keys of one event's categories, each once, with the spellings it uses for each.
  const keysOf = (names: readonly string[]): Map<string, Set<string>> => {
    const keys = new Map<string, Set<string>>();
    for (const name of names) {
      const key = categoryKey(name);
      if (key !== '') keys.set(key, (keys.get(key) ?? new Set()).add(name));
    }
    return keys;
  };
  lists.forEach((refs, c) => {
    let i = 0;
    for (const ref of refs) {
      for (const [key, names] of keysOf(ref.categories)) {
        const known = entry(key);
        known.members.push(c, i);
        for (const name of names) known.spellings.set(name, (known.spellings.get(name) ?? 0) + 1);
      }
      i++;
    }
  });
  return found;
}

/**
 * The name shown for a category: the spelling most of its events use, ties to the first in
 * code-point order. It depends only on the events, never on the order they were read in.
 */
export function displayName(spellings: ReadonlyMap<string, number>): string {
  let best: [string, number] | undefined;
  for (const [name, n] of spellings) {
    if (!best || n > best[1] || (n === best[1] && compareCodePoints(name, best[0]) < 0)) best = [name, n];
  }
  if (!best) throw new Error('internal: a category with no spelling');
  return best[0];
}

/** Orders strings by code point (not by UTF-16 unit, which puts U+FFFF after U+1F600). */
export function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

type FeedPath = (name: 'rss.xml' | 'atom.xml' | 'feed.json') => string;

/** Stage feeds as `file('rss.xml')`, `file('atom.xml')` and `file('feed.json')`. */
export async function writeFeeds(staging: Staging, file: FeedPath, feeds: SyndicationFeeds): Promise<void> {
  await staging.write(file('rss.xml'), feeds.rss);
  await staging.write(file('atom.xml'), feeds.atom);
  await staging.write(file('feed.json'), feeds.json);
}

/** Render and stage (writeFeeds) the feeds of a category, or the site's (`owner` null), from their items. */
export async function stageFeeds(
  input: Pick<CategoryInput, 'ctx' | 'staging' | 'spool' | 'html' | 'calendars'>,
  owner: Category | null,
  refs: readonly EventRef[],
  updated: number,
  site: SiteContext,
  file: FeedPath,
): Promise<void> {
  const { ctx, calendars } = input;
  const text = input.html.text(site);
  const items = input.spool.items(refs, itemsRenderer(ctx, calendars, site, text));
  await writeFeeds(input.staging, file, renderFeeds(ctx, owner, calendars, items, updated, site, text));
}

/** One category's files from its events (sorted). */
async function renderCategory(input: CategoryInput, category: Category, refs: readonly EventRef[]): Promise<{ upcoming: number; until: number }> {
  const { ctx, spool, staging, html, calendars } = input;
  // What this category's files take from "now", the choices of events below included.
  const site = ownClock(input.site);
  const upcoming = refs.filter((r) => isUpcomingRef(r, site));
  const upcomingCount = upcoming.filter((r) => !r.cancelled).length;
  const items = refs.filter((r) => inFeedWindow(r.end, site)).slice(0, Math.max(0, site.feedLimit));
  const ics = liveEntries(refs, site);
  let newest = 0;
  for (const r of refs) newest = Math.max(newest, r.stamp);
  const file = (name: CategoryFile): string => paths.category(category.slug, name);
  const key = categoryFilesKey({ environment: input.environment, calendars: input.calendarsJson, category, refs, ics, record: (ref) => spool.recordView(ref) });
  const until = await input.calendarFiles.write(`category ${category.key}`, key, CATEGORY_FILES.map(file), async () => {
    await staging.writeChunks(file('calendar.ics'), icsChunks(icsHeader(ctx, category, calendars, site), ics, spool));
    await stageFeeds(input, category, items, feedDate(items, newest), site, file);
    // Its events read from the spool when the page asks, a part at a time: never all of them at once.
    const listed = spooledList(spool.text, spans(upcoming));
    await staging.writeChunks(file('index.html'), html.categoryPieces(ctx, category, calendars, listed, upcomingCount, site));
    return site.clock.changesAt;
  });
  return { upcoming: upcomingCount, until: Math.min(until, site.clock.changesAt) };
}
