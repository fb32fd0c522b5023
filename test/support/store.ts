// The build store as tests handle it: what a cold build starts from, and damage done on purpose.

import { readFile, truncate, appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { EventSpool } from '../../src/pipeline/spool.js';
import { BuildStore, headerLine, prepareStore, STORE_FILE, storeTail, type StoreHeader } from '../../src/state/build-store.js';
import type { LastBuild } from '../../src/state/last-build.js';
import type { CrawlCache } from '../../src/crawl/index.js';

/** A spool holding only the header of a store for `header`, in the cache folder `dir`. */
async function headerOnly(dir: string, header: StoreHeader): Promise<EventSpool> {
  await mkdir(dir, { recursive: true });
  return EventSpool.create(dir, headerLine(header));
}

/** The store file in a cache folder. */
export const storeFile = (cache: string): string => join(cache, STORE_FILE);

/** Give the cache folder `to` a store with only the event history of `from`'s (nothing when `from` has none). */
export async function copyHistory(from: string, to: string): Promise<void> {
  const store = await BuildStore.open(from);
  if (!store.header) return;
  const { sections } = store.load(store.header.portal, false);
  try {
    const tail = storeTail({ history: sections.history.events.texts(), calendars: sections.history.calendars, rendered: new Map() });
    await (await prepareStore(to, await headerOnly(to, store.header), tail)).commit(null);
  } finally {
    // The history's records are read from the old store's rows: its file stays open until here.
    sections.rows?.spool.dispose();
  }
}

/** The record of the last build, as the next build reads it. */
export async function lastBuild(cache: string): Promise<LastBuild> {
  const { record } = await BuildStore.open(cache);
  if (!record) throw new Error(`no record of a last build in ${cache}`);
  return record;
}

/** Replace the store's last line (its record) with `line` (a store with no record, by default). */
export async function replaceRecord(cache: string, line?: (at: number) => string): Promise<void> {
  const file = storeFile(cache);
  const bytes = await readFile(file);
  const at = bytes.lastIndexOf(10, bytes.length - 2) + 1;
  await truncate(file, at);
  await appendFile(file, line ? line(at) : `R\t${JSON.stringify({ at, build: null })}\n`);
}

/** A store holding only the crawl cache's entries (recorded this run), made for `portal`. */
export async function saveCache(cache: CrawlCache, dir: string, portal = 'embedded demo'): Promise<void> {
  const tail = storeTail({ crawl: cache, history: [], calendars: [], rendered: new Map() });
  await (await prepareStore(dir, await headerOnly(dir, { portal, inputs: '' }), tail)).commit(null);
}

/** The crawl cache in a cache folder's store (for `portal`, or for whichever portal it was made for), and why it is empty when it is. */
export async function loadCache(dir: string, portal?: string): Promise<CrawlCache & { loadNote?: string }> {
  const store = await BuildStore.open(dir);
  const { sections, note } = store.load(portal ?? store.header?.portal ?? '', false);
  return Object.assign(sections.crawl, { loadNote: store.note ?? note });
}

/** Change the record of the last build (null: the store keeps no record). */
export async function editRecord(cache: string, edit: (build: LastBuild) => LastBuild | null): Promise<void> {
  const next = edit(await lastBuild(cache));
  const { inputs: _inputs, ...build } = next ?? { inputs: '' };
  await replaceRecord(cache, (at) => `R\t${JSON.stringify({ at, build: next ? build : null })}\n`);
}
