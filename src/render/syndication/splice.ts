// The feed library writes an item the same wherever it stands, so an event's item is cut once from
// a one-item feed and spliced into every feed that lists it, the library still writing every byte
// (test/render/feeds/splice.test.ts holds it to that).

import { Feed, type Item } from 'feed';

/** Where the library's items end: the closing tags it writes after them. */
const RSS_END = '\n    </channel>\n</rss>';
const ATOM_END = '\n</feed>';

// The channel of the one-item feeds items are cut from, and its feeds without the item.
const BARE = { id: 'urn:calfeed', title: 'calfeed', link: 'https://calfeed.invalid/', updated: new Date(0) };
const BARE_RSS = new Feed(BARE).rss2();
const BARE_ATOM = new Feed(BARE).atom1();

/** The RSS <item> the library writes for `item`, with the line break before it. */
export function rssItem(item: Item): string {
  return cut(oneItem(item).rss2(), BARE_RSS, RSS_END);
}

/** The Atom <entry> the library writes for `item`, with the line break before it. */
export function atomEntry(item: Item): string {
  return cut(oneItem(item).atom1(), BARE_ATOM, ATOM_END);
}

/** An RSS feed the library wrote without items, with `items` (rssItem()'s) where it writes them. */
export function spliceRss(empty: string, items: readonly string[]): string {
  return splice(empty, RSS_END, items);
}

/** An Atom feed the library wrote without entries, with `entries` (atomEntry()'s). */
export function spliceAtom(empty: string, entries: readonly string[]): string {
  return splice(empty, ATOM_END, entries);
}

/** A JSON Feed item as JSON.stringify(feed, null, 2) writes it in the feed's items array. */
export function jsonItem(item: object): string {
  // JSON strings hold no raw line break: each one starts a line, two levels deeper in the feed.
  return JSON.stringify(item, null, 2).replace(/\n/g, '\n    ');
}

/** JSON.stringify(feed, null, 2) of a feed whose last member is `items: []`, with `items` (jsonItem()'s) in it. */
export function spliceJson(empty: string, items: readonly string[]): string {
  if (!empty.endsWith('"items": []\n}')) throw new Error('internal: a JSON feed that does not end with its items');
  return items.length === 0 ? empty : `${empty.slice(0, -'[]\n}'.length)}[\n    ${items.join(',\n    ')}\n  ]\n}`;
}

function oneItem(item: Item): Feed {
  const feed = new Feed(BARE);
  feed.addItem(item);
  return feed;
}

function cut(one: string, bare: string, end: string): string {
  const head = bare.slice(0, -end.length);
  if (!one.startsWith(head) || !one.endsWith(end)) throw new Error('internal: the feed library no longer writes an item as calfeed expects');
  return one.slice(head.length, -end.length);
}

function splice(empty: string, end: string, items: readonly string[]): string {
  if (!empty.endsWith(end)) throw new Error('internal: the feed library no longer ends a feed as calfeed expects');
  return empty.slice(0, -end.length) + items.join('') + end;
}
