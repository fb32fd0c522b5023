// Every link a page carries. Links between pages are relative, so the folder works from file://,
// `calfeed serve` and any CDN prefix alike; subscribe URLs are absolute from the site URL, because a
// calendar app or feed reader is given them out of the page's context.

import { posix } from 'node:path';
import { absoluteUrl, paths } from '../../paths.js';
import type { SiteLink } from '../../model.js';
import { remember, type RenderContext } from '../context.js';

/** Relative href from one output file to another (both relative output paths). */
export function relHref(fromFile: string, toPath: string): string {
  const rel = posix.relative(posix.dirname(fromFile), toPath);
  // A directory target keeps its trailing slash; the same folder is "./".
  if (toPath.endsWith('/')) return rel === '' ? './' : rel + '/';
  return rel === '' ? posix.basename(toPath) : rel;
}

/** An http(s) URL from untrusted data, normalized, or null for anything else (javascript:, data:, junk). */
export function safeHttpUrl(ctx: RenderContext, url: string | undefined): string | null {
  if (!url) return null;
  // Remembered: an event's page, JSON-LD, .ics files and feed items all ask (uriValue). URLs over
  // 2,000 characters are parsed each time.
  return url.length > 2000 ? parseHttpUrl(url) : remember(ctx.httpUrls, url, 10_000, parseHttpUrl);
}

function parseHttpUrl(url: string): string | null {
  try {
    const parsed = new URL(url.trim());
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

/** A mailto: link for a plausible e-mail address, or null. */
export function safeMailto(email: string | undefined): string | null {
  if (!email || !/^[^\s@<>"'()\\,;:]+@[^\s@<>"'()\\,;:]+\.[^\s@<>"'()\\,;:]+$/.test(email)) return null;
  return 'mailto:' + encodeURIComponent(email).replace(/%40/g, '@');
}

/** The subscribe URLs of one calendar (slug) or of the combined feeds (null). */
export interface SubscribeLinks {
  /** https URL of calendar.ics, shown in the copy-URL box. */
  ics: string;
  /** webcal:// form, which Apple Calendar and Outlook desktop open as a subscription. */
  webcal: string;
  /** Google Calendar's add-by-URL link. */
  google: string;
  /** Outlook on the web's add-from-web link. */
  outlook: string;
  rss: string;
  atom: string;
  json: string;
}

/** Absolute subscribe URLs for a calendar slug (or a category's, `of` 'category'), or for the whole site when slug is null. */
export function subscribeLinks(siteUrl: string, slug: string | null, name: string, of: 'calendar' | 'category' = 'calendar'): SubscribeLinks {
  const file = (f: 'calendar.ics' | 'rss.xml' | 'atom.xml' | 'feed.json'): string =>
    absoluteUrl(siteUrl, slug === null ? paths.site(f) : of === 'category' ? paths.category(slug, f) : paths.calendar(slug, f));
  const ics = file('calendar.ics');
  const webcal = ics.replace(/^https?:\/\//i, 'webcal://');
  return {
    ics,
    webcal,
    google: 'https://calendar.google.com/calendar/r?cid=' + encodeURIComponent(webcal),
    outlook: 'https://outlook.live.com/calendar/0/addfromweb?url=' + encodeURIComponent(ics) + '&name=' + encodeURIComponent(name),
    rss: file('rss.xml'),
    atom: file('atom.xml'),
    json: file('feed.json'),
  };
}

/**
 * The site's header or footer links from the page at `file`: site paths relative, host paths and
 * URLs as given; with `file` null (404.html, served at any path), all absolute.
 */
export function siteLinkViews(links: readonly SiteLink[] | undefined, file: string | null, siteUrl: string): Array<{ label: string; href: string }> {
  return (links ?? []).map(({ label, url }) => {
    if (file === null || /^[a-z][a-z0-9+.-]*:/i.test(url)) return { label, href: new URL(url, siteUrl).href };
    return { label, href: url.startsWith('/') ? url : '../'.repeat(file.split('/').length - 1) + url };
  });
}
