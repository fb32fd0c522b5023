// An event's item is written once and spliced into every feed that lists it. The feed library
// builds a whole feed as an object tree for xml-js, most of it the channel: for one item that is
// three times the work. So rssItem() and atomEntry() write the item as the library does, byte for
// byte (test/render/feeds/splice.test.ts compares them with the library's own feeds), for the
// fields calfeed gives it; the library still writes each feed's channel.

import type { Enclosure, Item } from 'feed';

/** The item fields calfeed gives a feed: the ones written here. */
export type FeedItem = Pick<Item, 'title' | 'id' | 'guid' | 'link' | 'date' | 'published' | 'description' | 'category' | 'image' | 'enclosure'>;

/** Where the library's items end: the closing tags it writes after them. */
const RSS_END = '\n    </channel>\n</rss>';
const ATOM_END = '\n</feed>';

/** The RSS <item> the library writes for `item`, with the line break before it. */
export function rssItem(item: FeedItem): string {
  const lines = ['\n        <item>'];
  const child = (xml: string): number => lines.push('\n            ' + xml);
  if (item.title) child(`<title>${cdata(item.title)}</title>`);
  if (item.link) child(`<link>${urlText(item.link)}</link>`);
  const guid = item.guid ? item.guid : item.id;
  if (guid) child(`<guid isPermaLink="false">${text(guid)}</guid>`);
  else if (item.link) child(`<guid isPermaLink="true">${urlText(item.link)}</guid>`);
  const date = item.published ?? item.date;
  if (date) child(`<pubDate>${text(date.toUTCString())}</pubDate>`);
  if (item.description) child(`<description>${cdata(item.description)}</description>`);
  for (const category of item.category ?? []) child(`<category${attributes({ domain: category.domain })}>${text(String(category.name))}</category>`);
  if (item.image) child(`<enclosure${attributes(rssEnclosure(item.image))}/>`);
  else if (item.enclosure) child(`<enclosure${attributes(rssEnclosure(item.enclosure))}/>`);
  lines.push('\n        </item>');
  return lines.join('');
}

/** The Atom <entry> the library writes for `item`, with the line break before it. */
export function atomEntry(item: FeedItem): string {
  const lines = ['\n    <entry>'];
  const child = (xml: string): number => lines.push('\n        ' + xml);
  child(`<title type="html">${cdata(item.title)}</title>`);
  child(`<id>${urlText(item.id ?? item.link)}</id>`);
  child(`<link${attributes({ href: ampersands(new URL(item.link).href) })}/>`);
  if (item.enclosure) child(`<link${attributes(atomEnclosure(item.enclosure))}/>`);
  if (item.image) child(`<link${attributes(atomEnclosure(item.image))}/>`);
  child(`<updated>${text(item.date.toISOString())}</updated>`);
  if (item.description) child(`<summary type="html">${cdata(item.description)}</summary>`);
  for (const { name, scheme, term } of item.category ?? []) {
    child(`<category${attributes({ label: name === undefined ? undefined : ampersands(name), scheme: scheme === undefined ? undefined : ampersands(new URL(scheme).href), term: term === undefined ? undefined : ampersands(term) })}/>`);
  }
  if (item.published) child(`<published>${text(item.published.toISOString())}</published>`);
  lines.push('\n    </entry>');
  return lines.join('');
}

// xml-js's escaping, as the library calls it: text is unescaped of "&amp;" first, attribute values
// get only '"' escaped, a CDATA section only its first "]]>" split. URLs go through new URL().
const ampersands = (value: string): string => value.replace(/&/g, '&amp;');
const text = (value: string): string => value.replace(/&amp;/g, '&').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const urlText = (url: string): string => text(ampersands(new URL(url).href));
const cdata = (value: string): string => `<![CDATA[${value.replace(']]>', ']]]]><![CDATA[>')}]]>`;

function attributes(values: Record<string, string | number | undefined>): string {
  let xml = '';
  for (const [name, value] of Object.entries(values)) if (value !== undefined) xml += ` ${name}="${String(value).replace(/"/g, '&quot;')}"`;
  return xml;
}

/** "image/" and the URL path's last dot-part, as the library types an enclosure. */
const imageOf = (href: string): string => `image/${new URL(href).pathname.split('.').slice(-1)[0]}`;

function rssEnclosure(enclosure: string | Enclosure): Record<string, string | number | undefined> {
  if (typeof enclosure === 'string') {
    const url = ampersands(new URL(enclosure).href);
    return { url, length: 0, type: imageOf(url) };
  }
  const url = ampersands(new URL(enclosure.url).href);
  return { length: 0, type: imageOf(url), ...enclosure, url };
}

function atomEnclosure(enclosure: string | Enclosure): Record<string, string | number | undefined> {
  const href = ampersands(new URL(typeof enclosure === 'string' ? enclosure : enclosure.url).href);
  return typeof enclosure === 'string'
    ? { rel: 'enclosure', href, type: imageOf(href) }
    : { rel: 'enclosure', href, title: enclosure.title, type: imageOf(href), length: enclosure.length };
}

/**
 * A feed's text as pieces in order, never joined into one string: a feed of 500 items is about a
 * megabyte, and each copy of it would be a fresh allocation of that size.
 */
export type TextPieces = readonly string[];

/** An RSS feed the library wrote without items, with `items` (rssItem()'s) where it writes them, and a final newline. */
export function spliceRss(empty: string, items: readonly string[]): TextPieces {
  return splice(empty, RSS_END, items);
}

/** An Atom feed the library wrote without entries, with `entries` (atomEntry()'s), and a final newline. */
export function spliceAtom(empty: string, entries: readonly string[]): TextPieces {
  return splice(empty, ATOM_END, entries);
}

/** A JSON Feed item as JSON.stringify(feed, null, 2) writes it in the feed's items array. */
export function jsonItem(item: object): string {
  // JSON strings hold no raw line break: each one starts a line, two levels deeper in the feed.
  return JSON.stringify(item, null, 2).replace(/\n/g, '\n    ');
}

/** JSON.stringify(feed, null, 2) of a feed whose last member is `items: []`, with `items` (jsonItem()'s) in it, and a final newline. */
export function spliceJson(empty: string, items: readonly string[]): TextPieces {
  if (!empty.endsWith('"items": []\n}')) throw new Error('internal: a JSON feed that does not end with its items');
  if (items.length === 0) return [empty, '\n'];
  const pieces = [empty.slice(0, -'[]\n}'.length), '[\n    '];
  items.forEach((item, i) => {
    if (i > 0) pieces.push(',\n    ');
    pieces.push(item);
  });
  pieces.push('\n  ]\n}\n');
  return pieces;
}

function splice(empty: string, end: string, items: readonly string[]): TextPieces {
  if (!empty.endsWith(end)) throw new Error('internal: the feed library no longer ends a feed as calfeed expects');
  return [empty.slice(0, -end.length), ...items, `${end}\n`];
}
