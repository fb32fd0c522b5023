// Where the next page of a list is, as a pure function of one page's response. The spec says
// nothing about paging, so 'auto' recognizes the common styles: a next link in the body (JSON:API,
// HAL, OData, Laravel, Graph-style `paging.next`), an RFC 8288 Link header, or page/total counters
// that we increment through a query parameter.

import { isObject } from '../normalize/record.js';

export const PAGING_MODES = ['auto', 'none', 'query'] as const;

export interface PagingConfig {
  mode: (typeof PAGING_MODES)[number];
  /** Query parameter that carries the page number. */
  pageParam: string;
  /** Query parameter that carries the page size, sent only with pageSize. */
  sizeParam?: string;
  pageSize?: number;
  /** Number of the first page (1, or 0 for zero-based portals). */
  firstPage: number;
  maxPages: number;
}

export interface PageInfo {
  json: unknown;
  /** The Link response header, if any. */
  link: string | undefined;
  /** Token-free URL this page was requested with (relative links resolve against it). */
  url: string;
  /** Items found on this page. */
  itemCount: number;
}

/** Dotted paths of next links seen in the wild, in the order they are tried. */
const BODY_LINKS: readonly string[][] = [
  ['next'],
  ['nextLink'],
  ['next_page_url'],
  ['links', 'next'],
  ['_links', 'next'],
  ['meta', 'next'],
  ['paging', 'next'],
  ['pagination', 'next'],
  ['@odata.nextLink'],
];

/** Objects that may hold page counters, besides the body itself. */
const COUNTER_HOMES = ['meta', 'pagination', 'paging', 'page'];
const CURRENT_KEYS = new Set(['page', 'currentpage', 'pagenumber', 'pageindex']);
const TOTAL_KEYS = new Set(['totalpages', 'pagecount', 'lastpage', 'pages', 'numpages']);

/** The URL of the page after this one (absolute or relative to `page.url`), or undefined at the end. */
export function nextPageUrl(page: PageInfo, config: PagingConfig): string | undefined {
  if (config.mode === 'none' || page.itemCount === 0) return undefined;
  if (config.mode === 'query') return withParam(page.url, config.pageParam, currentPage(page.url, config) + 1);
  const link = bodyLink(page.json) ?? (page.link ? linkHeaderNext(page.link) : undefined);
  if (link !== undefined) return link;
  const counters = pageCounters(page.json);
  if (!counters) return undefined;
  const last = config.firstPage === 0 ? counters.total - 1 : counters.total;
  return counters.current < last ? withParam(page.url, config.pageParam, counters.current + 1) : undefined;
}

/** The URL of the first page: the list path, with the page size and (in 'query' mode) the first page number. */
export function firstPageUrl(url: string, config: PagingConfig): string {
  let out = url;
  if (config.mode !== 'none' && config.sizeParam && config.pageSize) out = withParam(out, config.sizeParam, config.pageSize);
  if (config.mode === 'query') out = withParam(out, config.pageParam, config.firstPage);
  return out;
}

/** The `rel="next"` target of an RFC 8288 Link header. */
export function linkHeaderNext(header: string): string | undefined {
  // Parameters may hold quoted commas (title="a, b"), so a quoted string is consumed whole.
  for (const match of header.matchAll(/<([^>]*)>((?:\s*;\s*(?:[^;,"]|"[^"]*")*)*)/g)) {
    const params = match[2] ?? '';
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params);
    const rels = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (rels.includes('next') && match[1]) return match[1];
  }
  return undefined;
}

/** A copy of the merged body of a paged list as one page: `next` links null, counters "page 1 of 1". */
export function asSinglePage(json: unknown): unknown {
  if (!isObject(json)) return json;
  const out = structuredClone(json);
  for (const path of BODY_LINKS) {
    let parent: unknown = out;
    for (const key of path.slice(0, -1)) parent = isObject(parent) ? parent[key] : undefined;
    const last = path[path.length - 1]!;
    if (isObject(parent) && last in parent) parent[last] = null;
  }
  for (const home of [out, ...COUNTER_HOMES.map((k) => out[k]).filter(isObject)]) {
    let current: string | undefined;
    const totals: string[] = [];
    for (const [key, value] of Object.entries(home)) {
      const folded = key.toLowerCase().replace(/[^a-z]/g, '');
      if (CURRENT_KEYS.has(folded)) current = key;
      else if (TOTAL_KEYS.has(folded) && (typeof value === 'number' || typeof value === 'string')) totals.push(key);
    }
    if (current !== undefined) for (const key of totals) home[key] = home[current];
  }
  return out;
}

function bodyLink(json: unknown): string | undefined {
  if (!isObject(json)) return undefined;
  for (const path of BODY_LINKS) {
    let value: unknown = json;
    for (const key of path) value = isObject(value) ? value[key] : undefined;
    if (isObject(value)) value = value['href'];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

function pageCounters(json: unknown): { current: number; total: number } | undefined {
  if (!isObject(json)) return undefined;
  const homes = [json, ...COUNTER_HOMES.map((k) => json[k]).filter(isObject)];
  for (const home of homes) {
    let current: number | undefined;
    let total: number | undefined;
    for (const [key, value] of Object.entries(home)) {
      const folded = key.toLowerCase().replace(/[^a-z]/g, '');
      const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
      if (!Number.isInteger(n)) continue;
      if (CURRENT_KEYS.has(folded)) current = n;
      else if (TOTAL_KEYS.has(folded)) total = n;
    }
    if (current !== undefined && total !== undefined) return { current, total };
  }
  return undefined;
}

function currentPage(url: string, config: PagingConfig): number {
  const value = new URL(url).searchParams.get(config.pageParam);
  return value !== null && /^-?\d+$/.test(value) ? Number(value) : config.firstPage;
}

function withParam(url: string, name: string, value: number): string {
  const out = new URL(url);
  out.searchParams.set(name, String(value));
  return out.href;
}
