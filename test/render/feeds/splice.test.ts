// Feeds are spliced from items written once per event (src/render/syndication/splice.ts): that
// must give the very bytes the feed library writes for the whole feed, for any channel and any items.

import fc from 'fast-check';
import { Feed, type FeedOptions, type Item } from 'feed';
import { describe, expect, it } from 'vitest';
import { atomEntry, jsonItem, rssItem, spliceAtom, spliceJson, spliceRss } from '../../../src/render/syndication/splice.js';

// Text as portals send it: markup, entities, CDATA ends, quotes, line breaks and astral characters.
const text = fc.string({ unit: fc.constantFrom('a', 'Ž', '🌳', '<', '>', '&', '&amp;', 'amp;', ']]>', '"', "'", '\n', ' ', 'b', '\t') });
const url = fc.webUrl({ withQueryParameters: true, withFragments: true });
const date = fc.date({ min: new Date(0), max: new Date(Date.UTC(2100, 0, 1)), noInvalidDate: true });

const enclosure = fc.record({ url, type: fc.constantFrom('image/png', 'image/jpeg'), length: fc.nat(), title: text }, { requiredKeys: ['url'] });

const item: fc.Arbitrary<Item> = fc.record(
  {
    title: text,
    id: url,
    guid: text,
    link: url,
    date,
    description: text,
    category: fc.array(fc.record({ name: text, term: text, domain: text, scheme: url }, { requiredKeys: [] }), { maxLength: 3 }),
    published: date,
    image: fc.oneof(url, enclosure),
    enclosure,
  },
  { requiredKeys: ['title', 'link', 'date'] },
);

const channel: fc.Arbitrary<FeedOptions> = fc.record({
  id: url,
  title: text,
  description: text,
  link: url,
  updated: date,
  generator: text,
  language: fc.constantFrom('en', 'lt'),
  ttl: fc.integer({ min: 1, max: 1440 }),
  feedLinks: fc.record({ rss: url, atom: url, json: url }),
  author: fc.record({ name: text }),
  copyright: text,
});

function feedOf(options: FeedOptions, items: readonly Item[]): Feed {
  const feed = new Feed(options);
  for (const one of items) feed.addItem(one);
  return feed;
}

describe('feeds spliced from items written once', () => {
  it('are the bytes the feed library writes for the whole RSS and Atom feed', () => {
    fc.assert(
      fc.property(channel, fc.array(item, { maxLength: 6 }), (options, items) => {
        const empty = feedOf(options, []);
        const whole = feedOf(options, items);
        expect(spliceRss(empty.rss2(), items.map(rssItem)).join('')).toBe(`${whole.rss2()}\n`);
        expect(spliceAtom(empty.atom1(), items.map(atomEntry)).join('')).toBe(`${whole.atom1()}\n`);
      }),
      { numRuns: 200 },
    );
  });

  it('are the bytes JSON.stringify writes for the whole JSON Feed', () => {
    const member = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(text, { maxLength: 3 }), fc.dictionary(text, text, { maxKeys: 3 }));
    const object = fc.dictionary(text, member, { maxKeys: 5 });
    fc.assert(
      fc.property(fc.dictionary(text.filter((k) => k !== 'items'), member, { maxKeys: 4 }), fc.array(object, { maxLength: 5 }), (head, items) => {
        const feed = { ...head, items };
        expect(spliceJson(JSON.stringify({ ...feed, items: [] }, null, 2), items.map(jsonItem)).join('')).toBe(`${JSON.stringify(feed, null, 2)}\n`);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a feed that does not end as the library ends one', () => {
    expect(() => spliceRss('<rss/>', [])).toThrow(/internal/);
    expect(() => spliceJson('{}', [])).toThrow(/internal/);
  });
});
