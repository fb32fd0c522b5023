import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignSegments, categoryKey, categorySlug, encodedSegment, isPlainId, paths } from '../../src/paths.js';

const SAFE_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

describe('id segments', () => {
  it.each(['42', 'abc-DEF_1.2', '3f2a9c1b-0000-4000-8000-aaaaaaaaaaaa'])('keeps plain id %s verbatim', (id) => {
    expect(isPlainId(id)).toBe(true);
    expect(assignSegments([id]).get(id)).toBe(id);
  });

  it.each(['..', '.', '../etc/passwd', 'a/b', 'a\\b', 'a\0b', 'CON', 'nul.txt', 'com1', 'x.', '', ' lead', 'ü', 'x'.repeat(101), '_x'])(
    'encodes unsafe id %j into one safe segment',
    (id) => {
      const seg = assignSegments([id]).get(id)!;
      expect(seg).not.toBe(id);
      expect(seg).toMatch(SAFE_SEGMENT);
      expect(seg.length).toBeLessThanOrEqual(100);
    },
  );

  it('encodes both ids of a case-insensitive pair and keeps them distinct', () => {
    const segs = assignSegments(['Event', 'event', 'other']);
    expect(segs.get('other')).toBe('other');
    expect(segs.get('Event')).not.toBe('Event');
    expect(segs.get('event')).not.toBe('event');
    expect(segs.get('Event')!.toLowerCase()).not.toBe(segs.get('event')!.toLowerCase());
  });

  it('never maps two different ids to the same segment', () => {
    const ids = ['a', 'A', '_me', 'me', '../a', '..%2fa', 'x'.repeat(200), 'x'.repeat(201), 'ä', 'a\u0308'];
    const segs = [...assignSegments(ids).values()].map((s) => s.toLowerCase());
    expect(new Set(segs).size).toBe(ids.length);
  });

  it('keeps the segments ids were published with: a case twin that appears later is the one encoded', () => {
    const first = assignSegments(['Cal']);
    expect(first.get('Cal')).toBe('Cal');
    const twins = assignSegments(['Cal', 'cal'], first);
    expect(twins.get('Cal')).toBe('Cal');
    expect(twins.get('cal')).toBe(encodedSegment('cal'));
    // Once encoded, an id stays so when its twin goes; a removed id's folder stays taken.
    expect(assignSegments(['cal'], twins).get('cal')).toBe(encodedSegment('cal'));
    expect(assignSegments(['CAL'], new Map([['Cal', 'Cal']])).get('CAL')).toBe(encodedSegment('CAL'));
    // A segment that no longer fits its id (history of another layout) is assigned anew.
    expect(assignSegments(['a/b'], new Map([['a/b', 'a/b']])).get('a/b')).toBe(encodedSegment('a/b'));
  });

  it('never maps two different ids to the same segment, whatever was published before', () => {
    const ids = ['a', 'A', 'b', 'B', 'c', '_me'];
    for (const published of [new Map([['a', 'a']]), new Map([['A', 'A'], ['b', encodedSegment('b')]]), new Map([['gone', 'B']])]) {
      const segs = [...assignSegments(ids, published).values()].map((s) => s.toLowerCase());
      expect(new Set(segs).size).toBe(ids.length);
    }
  });

  it('encodes deterministically', () => {
    expect(encodedSegment('Arts & Culture')).toBe(encodedSegment('Arts & Culture'));
    expect(encodedSegment('x'.repeat(300))).toMatch(/^_0[0-9a-f]{40}$/);
  });
});

describe('layout', () => {
  it('mirrors the API paths', () => {
    expect(paths.calendarsMirror()).toBe('event-calendars');
    expect(paths.eventsMirror('7')).toBe('event-calendar/7/events');
    expect(paths.detailsMirror('7', '9')).toBe('event-calendar/7/event/9/details');
  });
});

describe('category slugs', () => {
  it.each([
    ['PhD Defence', 'phd-defence'],
    ['phd-defence', 'phd-defence'],
    ['PHD  defence', 'phd-defence'],
    ['Field_Trip', 'field-trip'],
    ['Mokslo šventė', 'mokslo-svente_dykkcyzcm7'],
    ['日本語', '_o5yqv3ohj3'],
    // Reserved by Windows: hashed like any name that cannot be used as it is.
    ['Con', 'con_cfb5uk6fjr'],
  ])('%s: %s', (name, slug) => {
    expect(categorySlug(categoryKey(name))).toBe(slug);
  });

  it('is one path segment, and distinct categories never share one', () => {
    const name = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('Lecture', 'lecture', 'Šventė', 'Svente', 'svente', 'a-b', 'a b', 'a_b', 'NUL', 'x'.repeat(120)));
    fc.assert(
      fc.property(fc.uniqueArray(name, { maxLength: 40 }), (names) => {
        const bySlug = new Map<string, string>();
        for (const n of names) {
          const key = categoryKey(n);
          if (key === '') continue;
          const slug = categorySlug(key);
          expect(slug).toMatch(SAFE_SEGMENT);
          expect(slug.length).toBeLessThanOrEqual(80);
          expect(categorySlug(key)).toBe(slug);
          const other = bySlug.get(slug);
          if (other !== undefined) expect(other).toBe(key);
          bySlug.set(slug, key);
        }
      }),
      { numRuns: 500 },
    );
  });
});
