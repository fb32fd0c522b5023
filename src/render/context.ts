// What one build's rendering remembers (zone offsets, Intl formatters, descriptions as text...):
// kept in a context each build creates, never in module-level maps, so two builds in one process
// share nothing. Why each memo pays is said where it is used.

import type sanitize from 'sanitize-html';
import type { CalendarShared } from './html/view.js';
import { StringMemo } from './memo.js';
import type { WallRangeFormatter } from './range.js';
import type { ZoneInfo } from './zone.js';

export interface RenderContext {
  /** zone.ts: luxon's zone for each name (null: left to luxon), with its offsets per UTC day. */
  readonly zones: Map<string, ZoneInfo | null>;
  /** range.ts: the one composing range formatter of each Intl formatter. */
  readonly wallRanges: WeakMap<Intl.DateTimeFormat, WallRangeFormatter>;
  /** text.ts htmlToText. */
  readonly plainText: StringMemo;
  /** sanitize.ts sanitizeHtml, and sanitize-html's options per base URL. */
  readonly sanitized: StringMemo;
  readonly sanitizeOptions: Map<string, sanitize.IOptions>;
  /** html/links.ts safeHttpUrl (and ical/lines.ts uriValue). */
  readonly httpUrls: Map<string, string | null>;
  /** ical/event.ts: the host of the site URL, for UIDs. */
  siteHost: { siteUrl: string; host: string } | undefined;
  /** zone.ts isZone: zone names checked, for pages and feeds alike. */
  readonly validZones: Map<string, boolean>;
  /** html/format.ts: locales checked, formatters per style then locale and zone, labels, midnights. */
  readonly pageLocales: Map<string, string>;
  readonly pageFormatters: WeakMap<Intl.DateTimeFormatOptions, Map<string, Intl.DateTimeFormat>>;
  readonly pageLabels: StringMemo;
  readonly dayStarts: Map<string, Map<string, number>>;
  readonly dayEnds: Map<string, Map<string, number>>;
  /** html/view.ts: what every event page of a calendar shares, by calendar slug. */
  readonly calendarShared: Map<string, CalendarShared>;
  /** syndication/when.ts: midnights, formatters and labels of the feeds and .ics. */
  readonly feedMidnights: Map<string, number>;
  readonly feedFormatters: Map<string, Intl.DateTimeFormat>;
  readonly feedLabels: StringMemo;
}

/** A context with nothing remembered: one per build. */
export function createRenderContext(): RenderContext {
  return {
    zones: new Map(),
    wallRanges: new WeakMap(),
    // A few hundred: a description is converted by its event's job and again by its calendar's,
    // right after; more only holds memory for answers nobody asks for again.
    plainText: new StringMemo(512, 1_000_000),
    sanitized: new StringMemo(512, 1_000_000),
    sanitizeOptions: new Map(),
    httpUrls: new Map(),
    siteHost: undefined,
    validZones: new Map(),
    pageLocales: new Map(),
    pageFormatters: new WeakMap(),
    pageLabels: new StringMemo(20_000, 2_000_000),
    dayStarts: new Map(),
    dayEnds: new Map(),
    calendarShared: new Map(),
    feedMidnights: new Map(),
    feedFormatters: new Map(),
    feedLabels: new StringMemo(20_000, 2_000_000),
  };
}

/**
 * The value remembered for `key` in `memo`, else compute(key), remembered. Keys come from portal
 * data, so past `max` entries the memo starts over rather than grow without bound.
 */
export function remember<K, V>(memo: Map<K, V>, key: K, max: number, compute: (key: K) => V): V {
  let value = memo.get(key);
  if (value === undefined) {
    value = compute(key);
    if (memo.size >= max) memo.clear();
    memo.set(key, value);
  }
  return value;
}
