// RSS 2.0, Atom 1.0 and JSON Feed 1.1 through the `feed` package (v6), with its gaps closed here:
// - it falls back to new Date() for feed dates: we always pass `updated`, from the data;
// - RSS pubDate prefers `published`: RSS items get none, so pubDate is eventStamp;
// - Atom ids go through new URL(): we give a urn:uuid derived from the UID (stable);
// - xml-js escapes only the first "]]>" in CDATA: titles and bodies are HTML-escaped, with none left;
// - attribute values get only '&' and '"' escaped: '<' is dropped from category names;
// - Atom image links are typed by the URL's extension: only known ones go there, the type mended;
// - it writes JSON Feed 1 and ignores `language`: we write 1.1 ourselves, in feed's member order.

import { createHash } from 'node:crypto';
import { Feed } from 'feed';
import { eventPublished, eventStamp, isCategory, type Calendar, type Category, type FeedEvent, type SiteContext } from '../../model.js';
import { absoluteUrl, paths } from '../../paths.js';
import { reached } from '../clock.js';
import type { RenderContext } from '../context.js';
import { escapeJsonForScript } from '../html/jsonld.js';
import type { PageText } from '../html/messages.js';
import { eventUid } from '../ical/event.js';
import { calendarList, htmlToText, stripControl } from '../text.js';
import { calfeedExtension, eventImage, imageType, eventLinks, itemBody, itemTitle, type EventImage, type EventLinks } from './item.js';
import { atomEntry, jsonItem, rssItem, spliceAtom, spliceJson, spliceRss, type FeedItem, type TextPieces } from './splice.js';
import { zoneLookup } from './when.js';

/** A feed's three files, each as the pieces of its text (splice.ts). */
export interface SyndicationFeeds {
  rss: TextPieces;
  atom: TextPieces;
  json: TextPieces;
}

interface Entry {
  event: FeedEvent;
  zone: string;
  uid: string;
  /** The Atom id: urnUuid(uid). */
  id: string;
  title: string;
  body: string;
  image: EventImage | undefined;
  links: EventLinks;
}

/** Whether an event ending at endMs (exclusive, epoch ms) can be a feed item now: it has not ended. */
export function inFeedWindow(endMs: number, site: SiteContext): boolean {
  return !reached(site.clock, endMs);
}

/** A name-based (v5-style) UUID of the UID, as an Atom id: same UID, same id, every build. */
function urnUuid(uid: string): string {
  const h = createHash('sha1').update('calfeed:' + uid, 'utf8').digest();
  h[6] = ((h[6] ?? 0) & 0x0f) | 0x50;
  h[8] = ((h[8] ?? 0) & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Escape text that readers will treat as HTML (quotes stay readable in element content). */
function escapeMarkup(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** HTML for a CDATA section: any "]]>" left would end it early, and "]]&gt;" reads the same in HTML. */
function cdataSafe(html: string): string {
  return html.replace(/]]>/g, ']]&gt;');
}

/** A feed's own title, description, folder and files: a calendar's, a category's or the combined feeds'. */
function channel(ctx: RenderContext, cal: Calendar | Category | null, calendars: Calendar[], site: SiteContext, text: PageText) {
  const category = cal && isCategory(cal) ? cal : null;
  const calendar = cal && !isCategory(cal) ? cal : null;
  const file = (name: 'rss.xml' | 'atom.xml' | 'feed.json'): string =>
    absoluteUrl(site.siteUrl, category ? paths.category(category.slug, name) : calendar ? paths.calendar(calendar.slug, name) : paths.site(name));
  // An untitled calendar's feed goes by the site's name (a name, not page text: the default --title is one too).
  const title = stripControl(category ? category.name : (calendar?.title ?? '')).trim() || stripControl(site.title).trim() || 'calfeed';
  const description = (calendar?.description ? htmlToText(ctx, calendar.description) : '') || text.t('feed.description', { title: (cal ? '' : calendarList(calendars)) || title });
  const link = category ? absoluteUrl(site.siteUrl, paths.categoryDir(category.slug)) : calendar ? absoluteUrl(site.siteUrl, paths.calendarDir(calendar.slug)) : site.siteUrl;
  return { file, title, description, link };
}

/** The feeds' author: the site. */
function feedAuthor(site: SiteContext): string {
  return stripControl(site.title).trim() || 'calfeed';
}

/** An item's category names, as every format gives them. */
function itemCategories(event: FeedEvent): string[] {
  return event.categories.map((c) => stripControl(c).replace(/</g, '').trim()).filter((c) => c !== '');
}

// The feed library's channel; its items are spliced in as feedItems() made them.
function buildFeed(ctx: RenderContext, cal: Calendar | Category | null, calendars: Calendar[], updated: Date, site: SiteContext, text: PageText, withPublished: boolean): Feed {
  const { file, title, description, link } = channel(ctx, cal, calendars, site, text);
  // Many RSS readers render channel text as HTML, as item titles, so the RSS feed (the one without
  // `published`) gets it escaped; Atom's title and subtitle are type="text" and stay as they are.
  const channelText = withPublished ? (plain: string): string => plain : escapeMarkup;
  return new Feed({
    id: file('atom.xml'),
    title: channelText(title),
    description: channelText(description),
    link,
    updated,
    generator: `calfeed ${stripControl(site.version)}`,
    language: site.locale,
    ttl: site.refreshMinutes,
    feedLinks: { rss: file('rss.xml'), atom: file('atom.xml'), json: file('feed.json') },
    // Atom requires an author on the feed or on every entry.
    author: { name: feedAuthor(site) },
  });
}

function feedItem({ event, uid, id, title: itemText, body, image, links }: Entry, withPublished: boolean): FeedItem {
  const item: FeedItem = {
    // Both formats put the title in CDATA marked (Atom) or read (most RSS readers) as HTML.
    title: escapeMarkup(itemText),
    id,
    guid: uid,
    link: links.page,
    date: new Date(eventStamp(event)),
    description: cdataSafe(body),
    category: itemCategories(event).map((c) => ({ name: c, term: c })),
  };
  if (withPublished) item.published = new Date(eventPublished(event));
  if (image?.type !== undefined) {
    // RSS: an enclosure of the stated type (its length unknown: 0, as RSS readers expect). Atom:
    // feed 6 writes the link's type from the extension, so only URLs with a known one go there.
    if (withPublished) item.image = image.url;
    else item.enclosure = { url: image.url, type: image.type, length: 0 };
  }
  return item;
}

/**
 * JSON Feed 1.1, its members in the order feed 6 writes them, with plain-text titles, `authors`,
 * `language` and the _calfeed extension added. `items` are jsonFeedItem()'s.
 */
function jsonFeed(ctx: RenderContext, cal: Calendar | Category | null, calendars: Calendar[], items: readonly string[], site: SiteContext, text: PageText): TextPieces {
  const { file, title, description, link } = channel(ctx, cal, calendars, site, text);
  const head = {
    version: 'https://jsonfeed.org/version/1.1',
    title,
    ...(link ? { home_page_url: link } : {}),
    feed_url: file('feed.json'),
    ...(description ? { description } : {}),
    language: site.locale,
    authors: [{ name: feedAuthor(site) }],
    items: [],
  };
  return spliceJson(scriptSafe(JSON.stringify(head, null, 2)), items);
}

/** One event's JSON Feed item (splice.ts's jsonItem()), made safe as the feed is. */
function jsonFeedItem(ctx: RenderContext, { event, zone, uid, title: itemText, body, image, links }: Entry): string {
  const item = {
    id: uid,
    content_html: cdataSafe(body),
    url: links.page,
    // JSON Feed titles are plain text; consumers escape them (the HTML formats carry escaped ones).
    title: itemText,
    // Where feed 6 puts an item image (only one of a known type is given to it), else after the tags.
    ...(image?.type !== undefined ? { image: image.url } : {}),
    date_modified: new Date(eventStamp(event)).toISOString(),
    date_published: new Date(eventPublished(event)).toISOString(),
    tags: itemCategories(event),
    ...(image && image.type === undefined ? { image: image.url } : {}),
    _calfeed: calfeedExtension(ctx, event, links, zone),
  };
  return scriptSafe(jsonItem(item));
}

/** < > & as \u escapes: the same JSON, safe inline in a host page's <script>; parts can be escaped apart. */
const scriptSafe = (json: string): string => escapeJsonForScript(json, /[<>&]/g);

/**
 * feed 6 types an image link "image/" + the extension as written ("image/jpg"): each becomes the
 * registered type. Titles are escaped and bodies sanitized, so every "<link" is feed's own.
 */
function atomImageTypes(atom: string): string {
  return atom.replace(/(<link rel="enclosure" href="[^"<>]*" type=")image\/([A-Za-z0-9]+)("\/>)/g, (all, head: string, ext: string, tail: string) => {
    const type = imageType(ext);
    return type === undefined ? all : head + type + tail;
  });
}

/**
 * The feeds of items made by feedItems() (the upcoming events, by start, at most feedLimit);
 * `updated` dates them: the newest item's eventStamp, else the newest of all the events.
 */
export function renderFeeds(ctx: RenderContext, cal: Calendar | Category | null, calendars: Calendar[], items: readonly string[], updated: number, site: SiteContext, text: PageText): SyndicationFeeds {
  const formats = items.map((item) => item.split('\0'));
  if (formats.some((f) => f.length < 3)) throw new Error('internal: a feed item without its three formats');
  const date = new Date(updated);
  const rssHead = stripControl(buildFeed(ctx, cal, calendars, date, site, text, false).rss2());
  const atomHead = stripControl(buildFeed(ctx, cal, calendars, date, site, text, true).atom1());
  return {
    rss: spliceRss(rssHead, formats.map(([rss]) => rss!)),
    atom: spliceAtom(atomHead, formats.map(([, atom]) => atom!)),
    json: jsonFeed(ctx, cal, calendars, formats.map(([, , json]) => json!), site, text),
  };
}

/**
 * One event's item in RSS, Atom and JSON Feed, joined by NUL (which none of them can hold), rendered
 * once and kept in the spool for every feed that lists the event to splice in (splice.ts).
 */
export function feedItems(ctx: RenderContext, event: FeedEvent, zone: string, site: SiteContext, text: PageText): string {
  const image = eventImage(ctx, event);
  const uid = eventUid(ctx, event, site);
  const links = eventLinks(ctx, event, site);
  const body = itemBody(ctx, event, links, site, zone, image, text);
  const entry: Entry = { event, zone, uid, id: urnUuid(uid), title: itemTitle(ctx, event, site, zone, text), body, image, links };
  const rss = stripControl(rssItem(feedItem(entry, false)));
  const atom = atomImageTypes(stripControl(atomEntry(feedItem(entry, true))));
  return `${rss}\0${atom}\0${jsonFeedItem(ctx, entry)}`;
}

/** feedItems() of any listed calendar's event, in its calendar's zone. */
export function itemsRenderer(ctx: RenderContext, calendars: Calendar[], site: SiteContext, text: PageText): (event: FeedEvent) => string {
  const zone = zoneLookup(calendars, site);
  return (event) => feedItems(ctx, event, zone(event), site, text);
}
