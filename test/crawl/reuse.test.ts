// decideReuse against a reference rule written out case by case: random stored rows (E and D rows
// present or not, matching or not, validators or not, checked at any time) against random facts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DocEntry } from '../../src/crawl/cache.js';
import { decideReuse, type EventNow, type Reuse, type StoredEvent } from '../../src/crawl/reuse.js';

const HOUR = 3600_000;
const URL = 'event-calendar/arts/event/e1/details';
const ENTRY = 'a'.repeat(64);

/** The rule as the docs state it (docs/incremental.md), one question at a time. */
function reference(stored: StoredEvent, known: EventNow): Reuse {
  const details = stored.details;
  // A recorded mirror counts only when it is one page read from this event's URL.
  if (details === undefined || details.pages.length !== 1 || details.pages[0]!.url !== known.url) return 'fetch';
  const checked = stored.checked;
  const sameEntry = checked !== undefined && checked.entry === known.entry;
  const checkedRecently = checked !== undefined && checked.checkedAt <= known.now && known.now - checked.checkedAt < known.maxAgeMs;
  if (sameEntry && checkedRecently) return stored.row ? 'row' : 'mirror';
  const page = details.pages[0]!;
  return page.etag !== undefined && page.etag !== '' ? 'revalidate' : page.lastModified !== undefined && page.lastModified !== '' ? 'revalidate' : 'fetch';
}

const page = fc.record(
  {
    url: fc.constantFrom(URL, 'event-calendar/arts/event/e2/details', `${URL}?page=2`),
    etag: fc.constantFrom('"v1"', ''),
    lastModified: fc.constantFrom('Tue, 01 Oct 2024 12:00:00 GMT', ''),
    sha256: fc.constant('b'.repeat(64)),
  },
  { requiredKeys: ['url', 'sha256'] },
);
const details: fc.Arbitrary<DocEntry | undefined> = fc.option(fc.record({ sha256: fc.constant('b'.repeat(64)), pages: fc.array(page, { minLength: 0, maxLength: 2 }) }), { nil: undefined });
const NOW = Date.parse('2024-10-01T12:00:00Z');
const stored: fc.Arbitrary<StoredEvent> = fc.record({
  checked: fc.option(
    fc.record({ entry: fc.constantFrom(ENTRY, 'c'.repeat(64)), checkedAt: fc.oneof(fc.integer({ min: NOW - 3 * 24 * HOUR, max: NOW + HOUR }), fc.constant(NOW - 24 * HOUR)) }),
    { nil: undefined },
  ),
  details,
  row: fc.boolean(),
});
const known: fc.Arbitrary<EventNow> = fc.record({
  entry: fc.constantFrom(ENTRY, 'd'.repeat(64)),
  url: fc.constantFrom(URL, undefined),
  now: fc.constant(NOW),
  maxAgeMs: fc.constantFrom(0, HOUR, 24 * HOUR, 48 * HOUR),
});

describe('decideReuse', () => {
  it('answers as the reference rule does, for any stored row and any facts', () => {
    fc.assert(
      fc.property(stored, known, (s, k) => {
        expect(decideReuse(s, k)).toBe(reference(s, k));
      }),
      { numRuns: 5000 },
    );
  });

  it('a row is taken only when it can be, and taking it never needs the portal', () => {
    fc.assert(
      fc.property(stored, known, (s, k) => {
        const answer = decideReuse(s, k);
        if (!s.row) expect(answer).not.toBe('row');
        // The row only turns "the details stand" into "the event stands".
        expect(decideReuse({ ...s, row: false }, k)).toBe(answer === 'row' ? 'mirror' : answer);
        // Without a trusted mirror there is nothing to reuse or revalidate.
        expect(decideReuse({ ...s, details: undefined }, k)).toBe('fetch');
      }),
      { numRuns: 2000 },
    );
  });

  it('details checked exactly --details-max-age ago, or later than now, are not fresh', () => {
    const details: DocEntry = { sha256: 'b'.repeat(64), pages: [{ url: URL, etag: '"v1"', sha256: 'b'.repeat(64) }] };
    const k: EventNow = { entry: ENTRY, url: URL, now: NOW, maxAgeMs: HOUR };
    expect(decideReuse({ checked: { entry: ENTRY, checkedAt: NOW - HOUR }, details, row: true }, k)).toBe('revalidate');
    expect(decideReuse({ checked: { entry: ENTRY, checkedAt: NOW + 1 }, details, row: true }, k)).toBe('revalidate');
    expect(decideReuse({ checked: { entry: ENTRY, checkedAt: NOW - HOUR + 1 }, details, row: true }, k)).toBe('row');
    expect(decideReuse({ checked: { entry: ENTRY, checkedAt: NOW }, details, row: false }, k)).toBe('mirror');
  });
});
