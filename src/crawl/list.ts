// Fetching one list document (the calendar list, or one calendar's events): conditional requests
// against the cache, every page followed to the end, and the mirror bytes that result. An unpaged
// list's mirror is exactly the body the portal sent; a paged one is page 1 with its list replaced
// by all items, so the mirror holds the complete list.

import { randomUUID } from 'node:crypto';
import { CalfeedError } from '../errors.js';
import type { ListResult, PortalClient } from '../http/client.js';
import { LimitError, ResponseError, requestLabel } from '../http/errors.js';
import { ListEntries, readJsonList, type JsonList } from '../http/json-list.js';
import { escapePortal } from '../safe-text.js';
import { findList, replaceList, type FieldsConfig, type ListKind } from '../normalize/index.js';
import { sha256, type CrawlCache, type DocEntry, type PageEntry } from './cache.js';
import { asSinglePage, firstPageUrl, nextPageUrl, type PagingConfig } from './paging.js';
import type { ProbeResult } from './probe.js';

export type DocSource = 'fetched' | 'not-modified' | 'reused';

export interface ListDoc {
  bytes: Buffer;
  /** The list's entries, kept as text (a 100,000-event list is not 100,000 objects in memory). */
  entries: ListEntries;
  listPath: string[];
  pages: number;
  source: DocSource;
  /** What the cache recorded for it this run. */
  entry: DocEntry;
}

/** What fetching a list needs from the crawl. */
export interface ListContext {
  client: PortalClient;
  cache: CrawlCache;
  paging: PagingConfig;
  fields: FieldsConfig | undefined;
  signal: AbortSignal;
  published(relPath: string): Promise<Buffer | undefined>;
  warn(message: string): void;
  /** What probeLists learnt before the crawl: fetchList takes each list's share once, instead of asking again. */
  probe?: Pick<ProbeResult, 'confirmed' | 'firstPages'>;
}

export interface ListRequest {
  /** Path relative to the base URL, e.g. 'event-calendar/7/events'. */
  path: string;
  mirrorPath: string;
  kind: ListKind;
  /** Most items accepted, and the flag that raises it (for the LIMIT message). */
  maxItems: number;
  limitFlag: string;
}

/** Fetches a list (all pages), reusing the published mirror when the portal answers 304 to every page. */
export async function fetchList(ctx: ListContext, req: ListRequest): Promise<ListDoc> {
  const probed = ctx.probe?.firstPages.get(req.mirrorPath);
  ctx.probe?.firstPages.delete(req.mirrorPath);
  if (probed && ctx.client.keyFor(probed.url) === ctx.client.keyFor(listUrl(ctx, req))) return fetchAllPages(ctx, req, probed);
  const reused = await tryNotModified(ctx, req);
  if (reused.doc) return reused.doc;
  return fetchAllPages(ctx, req, reused.firstPage);
}

/** Conditional requests for every page of the previous run; any 200 ends it (and page 1's 200 is kept). */
async function tryNotModified(ctx: ListContext, req: ListRequest): Promise<{ doc?: ListDoc; firstPage?: ListResult }> {
  const previous = ctx.cache.previousDoc(req.mirrorPath);
  // Confirmed by the probe moments ago (a 304, or the same bytes): the mirror is reused without asking.
  const confirmed = previous !== undefined && ctx.probe?.confirmed.get(req.mirrorPath) === previous.sha256;
  ctx.probe?.confirmed.delete(req.mirrorPath);
  if (!previous || (!confirmed && !previous.pages.every((p) => p.etag || p.lastModified))) return {};
  if (previous.pages[0]?.url !== ctx.client.keyFor(listUrl(ctx, req))) return {};
  // A page whose link held the token was stored masked: it cannot be asked for again as it was.
  if (!previous.pages.every((p) => ctx.client.replayable(p.url))) return {};
  const published = await ctx.published(req.mirrorPath);
  if (!published || sha256(published) !== previous.sha256) return {};
  let list: JsonList;
  try {
    list = readJsonList(published);
  } catch {
    return {};
  }
  for (const [i, page] of confirmed ? [] : previous.pages.entries()) {
    const result = await ctx.client.getJsonList(page.url, { etag: page.etag, lastModified: page.lastModified }, { signal: ctx.signal });
    if (!result.notModified) return i === 0 ? { firstPage: result } : {};
  }
  const { entries, path } = listIn(list, ctx, req, ctx.client.urlFor(previous.pages[0]!.url));
  // An unchanged list is held to today's limit too (it may have been lowered since the last build).
  if (entries.length > req.maxItems) throw tooMany(ctx, req);
  for (const warning of previous.warnings ?? []) ctx.warn(warning);
  ctx.cache.recordDoc(req.mirrorPath, previous);
  return { doc: { bytes: published, entries, listPath: path, pages: previous.pages.length, source: 'not-modified', entry: previous } };
}

async function fetchAllPages(ctx: ListContext, req: ListRequest, prefetched: ListResult | undefined): Promise<ListDoc> {
  const pages: PageEntry[] = [];
  const warnings: string[] = [];
  const warn = (message: string): void => {
    warnings.push(message);
    ctx.warn(message);
  };
  const seen = new Set<string>();
  let entries = ListEntries.of([]);
  let first: { list: JsonList; body: Buffer; path: string[] } | undefined;
  let url: string | undefined = listUrl(ctx, req);
  while (url !== undefined) {
    seen.add(url);
    const result: ListResult = prefetched ?? (await ctx.client.getJsonList(url, undefined, { signal: ctx.signal }));
    prefetched = undefined;
    if (result.notModified || !result.list) {
      throw new ResponseError(result.url, `${requestLabel(result.url)}: 304 Not Modified to a request without validators.`);
    }
    const hash = sha256(result.body);
    // A portal that ignores the page parameter serves page 1 again: stop before its items count twice.
    if (pages.some((p) => p.sha256 === hash)) {
      warn(`${requestLabel(url)}: this page repeats an earlier one; stopping paging here (check the paging settings).`);
      break;
    }
    const found = listIn(result.list, ctx, req, url);
    pages.push({ url: ctx.client.keyFor(url), etag: result.etag, lastModified: result.lastModified, sha256: hash });
    if (!first) first = { list: result.list, body: result.body, path: found.path };
    entries = pages.length === 1 ? found.entries : entries.concat(found.entries);
    if (entries.length > req.maxItems) throw tooMany(ctx, req);
    const next = nextPageUrl({ json: result.list.shape, link: result.link, url, itemCount: found.entries.length }, ctx.paging);
    url = next === undefined ? undefined : ctx.client.urlFor(new URL(next, result.url).href);
    if (url !== undefined && seen.has(url)) {
      warn(`${requestLabel(url)}: the next-page link points to a page already fetched; stopping paging here.`);
      url = undefined;
    }
    if (url !== undefined && pages.length >= ctx.paging.maxPages) {
      throw new LimitError(
        `${requestLabel(ctx.client.urlFor(req.path))}: more than ${ctx.paging.maxPages} pages, the limit set by paging.maxPages ` +
          `in the config file. Raise it, or set paging.pageSize to ask for bigger pages.`,
      );
    }
  }
  if (!first) throw new Error('internal: a list fetch ended without a page');
  const bytes = pages.length === 1 ? first.body : mergedBytes(first.list, first.path, entries);
  const entry: DocEntry = warnings.length === 0 ? { sha256: sha256(bytes), pages } : { sha256: sha256(bytes), pages, warnings };
  ctx.cache.recordDoc(req.mirrorPath, entry);
  return { bytes, entries, listPath: first.path, pages: pages.length, source: 'fetched', entry };
}

/**
 * The mirror of a paged list: JSON.stringify of page 1 with every entry, as one page (asSinglePage),
 * made around a stand-in string where the list goes, so that entries are stringified one at a time.
 */
function mergedBytes(first: JsonList, path: string[], entries: ListEntries): Buffer {
  const stand = JSON.stringify(`calfeed-list-${randomUUID()}`);
  const envelope = first.replaced(path, JSON.parse(stand));
  const text = envelope === undefined ? '' : JSON.stringify(asSinglePage(envelope));
  const at = text.indexOf(stand);
  // A list the shape cannot tell, or one the page rules moved or copied (under a counter's name): the plain way.
  if (at === -1 || text.indexOf(stand, at + 1) !== -1) {
    return Buffer.from(JSON.stringify(asSinglePage(replaceList(first.full(), path, entries.toArray()))));
  }
  const parts = [Buffer.from(text.slice(0, at) + '[')];
  for (let i = 0; i < entries.length; i += 1000) {
    const chunk: string[] = [];
    for (let k = i; k < Math.min(i + 1000, entries.length); k++) chunk.push(JSON.stringify(entries.at(k)));
    parts.push(Buffer.from((i === 0 ? '' : ',') + chunk.join(',')));
  }
  parts.push(Buffer.from(']' + text.slice(at + stand.length)));
  return Buffer.concat(parts);
}

function tooMany(ctx: ListContext, req: ListRequest): LimitError {
  return new LimitError(
    `${requestLabel(ctx.client.urlFor(req.path))}: more than ${req.maxItems} ${req.kind}, the limit set by ${req.limitFlag}. ` +
      `Raise ${req.limitFlag} if the portal really has this many.`,
  );
}

/** The token-free URL of a list's first page. */
function listUrl(ctx: ListContext, req: ListRequest): string {
  return ctx.client.urlFor(firstPageUrl(ctx.client.urlFor(req.path), ctx.paging));
}

/** The list's entries and where they are: findList on the shape when it can tell, else on the whole body. */
function listIn(list: JsonList, ctx: ListContext, req: ListRequest, url: string): { entries: ListEntries; path: string[] } {
  const explicit = req.kind === 'calendars' ? ctx.fields?.lists?.calendars : ctx.fields?.lists?.events;
  let path: string[] | undefined;
  try {
    path = findList(list.shape, req.kind, explicit).path;
  } catch {
    // An explicit path into an array's elements, or no list at all: the whole body says which.
  }
  const entries = path && list.entriesAt(path);
  if (path && entries) return { entries, path };
  try {
    const found = findList(list.full(), req.kind, explicit);
    return { entries: ListEntries.of(found.items), path: found.path };
  } catch (error) {
    if (!(error instanceof CalfeedError)) throw error;
    // The log must say which response had no list; the message describes the body: portal text, escaped.
    throw new CalfeedError(error.code, `${requestLabel(url)}: ${escapePortal(error.message)}`, { cause: error });
  }
}
