// The output layout, in one place. These paths are a promise to subscribers: a URL that was
// published once must keep working, so nothing else in calfeed builds an output path by hand.
//
// The id rule (docs/hosting.md, "What gets published"): a "plain" id (isPlainId) is used verbatim,
// so the JSON mirror keeps the portal's own paths; any other is '_' + base32 of its UTF-8 bytes, or
// '_0' + 40 hex digits of its SHA-256 past 100 characters ('0' is no base32 digit: no collisions).
// Case twins in one folder are all encoded, for case-insensitive file systems and CDNs. Every
// segment matches /^[A-Za-z0-9_][A-Za-z0-9._-]*$/: one segment, inside the output folder, anywhere.

import { createHash } from 'node:crypto';

const PLAIN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const MAX_SEGMENT = 100;

/** Whether an id is used verbatim: not ending with '.', and no name Windows reserves (CON, NUL...). */
export function isPlainId(id: string): boolean {
  return PLAIN_ID.test(id) && !id.endsWith('.') && !WINDOWS_RESERVED.test(id);
}

function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** The encoded segment of an id that cannot be used verbatim. */
export function encodedSegment(id: string): string {
  const encoded = '_' + base32(Buffer.from(id, 'utf8'));
  if (encoded.length <= MAX_SEGMENT) return encoded;
  return '_0' + createHash('sha256').update(id, 'utf8').digest('hex').slice(0, 40);
}

/**
 * Safe path segments (id -> segment) for sibling ids. An id keeps its `published` segment, so its
 * URLs survive a case twin coming or going, and a new id never takes a published one's folder.
 */
export function assignSegments(ids: Iterable<string>, published: ReadonlyMap<string, string> = new Map()): Map<string, string> {
  const unique = [...new Set(ids)];
  const result = new Map<string, string>();
  // Verbatim segments in use, letter case folded.
  const taken = new Set<string>();
  const current = new Set(unique);
  for (const [id, segment] of published) if (!current.has(id) && segment === id) taken.add(id.toLowerCase());
  for (const id of unique) {
    const before = published.get(id);
    if (before === encodedSegment(id)) result.set(id, before);
    else if (before === id && isPlainId(id) && !taken.has(id.toLowerCase())) {
      result.set(id, id);
      taken.add(id.toLowerCase());
    }
  }
  const byFolded = new Map<string, number>();
  for (const id of unique) {
    if (!result.has(id) && isPlainId(id)) byFolded.set(id.toLowerCase(), (byFolded.get(id.toLowerCase()) ?? 0) + 1);
  }
  for (const id of unique) {
    if (result.has(id)) continue;
    const folded = id.toLowerCase();
    const alone = byFolded.get(folded) === 1 && !taken.has(folded);
    result.set(id, isPlainId(id) && alone ? id : encodedSegment(id));
  }
  return result;
}

/**
 * A category's identity: its name with letter case folded and runs of spaces, hyphens and
 * underscores made one hyphen ("PhD Defence", "phd-defence" and "PHD  defence" are one category).
 */
export function categoryKey(name: string): string {
  return name.normalize('NFC').trim().toLowerCase().replace(/[\s_-]+/g, '-').replace(/^-+|-+$/g, '');
}

const PLAIN_CATEGORY = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * A category's folder name, from its key alone, so it never changes: the key itself when it is
 * plain lowercase ASCII ("phd-defence"); else its letters without accents, "_" and 10 base32
 * digits of the key's SHA-256 ("mokslo-svente_4kq…", or "_…" for "日本語"). A plain key never
 * holds "_", so the two forms cannot collide; two hashed ones only if 50 bits of SHA-256 do.
 */
export function categorySlug(key: string): string {
  if (PLAIN_CATEGORY.test(key) && key.length <= 80 && !WINDOWS_RESERVED.test(key)) return key;
  const ascii = key.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 60).replace(/^-+|-+$/g, '');
  return `${ascii}_${base32(createHash('sha256').update(key, 'utf8').digest()).slice(0, 10)}`;
}

/** Relative output paths (POSIX separators, no leading slash). */
export const paths = {
  /** Mirror of GET /event-calendars. */
  calendarsMirror: (): string => 'event-calendars',
  /** Mirror of GET /event-calendar/{id}/events. */
  eventsMirror: (cal: string): string => `event-calendar/${cal}/events`,
  /** Mirror of GET /event-calendar/{id}/event/{eventId}/details. */
  detailsMirror: (cal: string, ev: string): string => `event-calendar/${cal}/event/${ev}/details`,

  /** A site-wide file: index.html, rss.xml, atom.xml, feed.json, calendar.ics, widget.js, style.css. */
  site: (name: SiteFile): string => name,
  /** A calendar's folder (for links; ends with '/'). */
  calendarDir: (cal: string): string => `calendars/${cal}/`,
  /** A file of one calendar. */
  calendar: (cal: string, name: CalendarFile): string => `calendars/${cal}/${name}`,
  /** One event's HTML page. */
  eventPage: (cal: string, ev: string): string => `calendars/${cal}/events/${ev}.html`,
  /** One event's iCalendar file ("add to calendar"). */
  eventIcs: (cal: string, ev: string): string => `calendars/${cal}/events/${ev}.ics`,

  /** The list of every category. */
  categoriesIndex: (): string => 'categories/index.html',
  /** A category's folder (for links; ends with '/'). */
  categoryDir: (slug: string): string => `categories/${slug}/`,
  /** A file of one category. */
  category: (slug: string, name: CategoryFile): string => `categories/${slug}/${name}`,

  /** One of the sitemaps sitemap.xml indexes when the site has more pages than one may list. */
  sitemapPart: (n: number): string => `sitemap-${n}.xml`,

  manifest: (): string => 'manifest.json',
  headers: (): string => '_headers',
} as const;

export type SiteFile =
  | 'index.html'
  | 'rss.xml'
  | 'atom.xml'
  | 'feed.json'
  | 'calendar.ics'
  | 'widget.js'
  | 'style.css'
  | 'page.js'
  | 'past.html'
  | 'sitemap.xml'
  | 'robots.txt'
  | '404.html'
  | 'search.json';
export type CategoryFile = 'index.html' | 'rss.xml' | 'atom.xml' | 'feed.json' | 'calendar.ics';
export type CalendarFile =
  | 'index.html'
  | 'past.html'
  | 'rss.xml'
  | 'atom.xml'
  | 'feed.json'
  | 'calendar.ics'
  | 'widget.html';

/** Absolute URL of an output path, from the site URL (which ends with '/'). */
export function absoluteUrl(siteUrl: string, relPath: string): string {
  return siteUrl + relPath;
}
