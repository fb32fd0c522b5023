// The renderers' fast paths (remembered offsets and labels, linear folding, memoized conversions)
// must give exactly what the straightforward computation gives. Each test compares against that
// computation done here with the same libraries (luxon, Intl, Buffer), over many inputs, including
// daylight-saving days, odd zones and multi-byte text.

import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { dayKeyOf, formatListTime, formatLongWhen, isoInZone } from '../../src/render/html/format.js';
import { relHref } from '../../src/render/html/links.js';
import { eventView } from '../../src/render/html/view.js';
import { paths } from '../../src/paths.js';
import { escapeText, foldLine, serialize, utcDateTime } from '../../src/render/ical/lines.js';
import { StringMemo } from '../../src/render/memo.js';
import { WallRangeFormatter } from '../../src/render/range.js';
import { sanitizeHtml } from '../../src/render/sanitize.js';
import { formatWhenLong } from '../../src/render/syndication/when.js';
import { htmlToText, stripControl } from '../../src/render/text.js';
import { referenceEscapeText, referenceHtmlToText, referenceUtcDateTime } from './reference.js';
import { htmlSoup, seeded, textSoup } from './soup.js';
import { calendarViews, loadTemplates } from '../support/render.js';
import { clockAt } from '../../src/render/clock.js';
import { createRenderContext } from '../../src/render/context.js';

const ctx = createRenderContext();

const ZONES = ['UTC', 'utc', 'Etc/UTC', 'Europe/Vilnius', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Pacific/Chatham', 'America/St_Johns', 'Pacific/Apia', 'Europe/London'];
const HOUR = 3_600_000;

/** Instants around the 2026 DST changes of the zones above, at odd minutes and with milliseconds. */
function instants(): number[] {
  const out: number[] = [];
  for (const day of ['2026-03-08', '2026-03-29', '2026-04-05', '2026-10-04', '2026-10-25', '2026-11-01', '2011-12-29', '2011-12-30', '1969-12-31', '2099-07-01']) {
    const base = Date.parse(`${day}T00:00:00Z`);
    for (let m = -26 * 60; m <= 26 * 60; m += 37) out.push(base + m * 60_000, base + m * 60_000 + 999);
  }
  out.push(-2_208_988_800_001, 253_402_300_799_999, Date.parse('1880-06-01T12:00:00Z'), Date.parse('1500-01-01T00:00:00Z'));
  return out;
}

describe('zone fast paths agree with luxon and Intl', () => {
  it('isoInZone is luxon toISO({ suppressMilliseconds: true })', () => {
    for (const zone of ZONES) {
      for (const ms of instants()) {
        expect(isoInZone(ctx, ms, zone), `${zone} ${ms}`).toBe(DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true }));
      }
    }
  });

  it('dayKeyOf is the wall date Intl gives in the zone', () => {
    for (const zone of ZONES) {
      const f = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
      for (const ms of instants().filter((t) => t > Date.parse('1900-01-02T00:00:00Z') && t < Date.parse('9999-12-30T00:00:00Z'))) {
        expect(dayKeyOf(ctx, ms, zone), `${zone} ${ms}`).toBe(f.format(ms));
      }
    }
  });

  it('list and page time labels are what Intl formats in the zone itself', () => {
    // Every zone, instant and length, in one locale each, taken in turn: each locale meets every
    // zone and thousands of instants, at a quarter of the cross product's Intl calls.
    const locales = ['en', 'lt', 'de', 'ja'];
    let turn = 0;
    for (const zone of ZONES) {
      const formats = locales.map((locale) => ({
        locale,
        same: new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit', timeZone: zone }),
        multi: new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZone: zone }),
        long: new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeStyle: 'short', timeZone: zone }),
      }));
      const day = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
      const starts = instants().filter((_, i) => i % 7 === 0 && i < 1400);
      for (const start of starts) {
        for (const length of [0, 1_000, 30 * 60_000, HOUR + 17 * 60_000, 3 * HOUR, 26 * HOUR]) {
          const { locale, same, multi, long } = formats[turn++ % locales.length]!;
          const end = start + length;
          const f = day.format(start) === day.format(end) ? same : multi;
          const expected = end > start ? f.formatRange(start, end) : f.format(start);
          const when = { kind: 'timed' as const, start, end };
          expect(formatListTime(ctx, when, zone, locale), `${locale} ${zone} ${start} ${end}`).toBe(expected);
          expect(formatLongWhen(ctx, when, zone, locale)).toBe(end > start ? long.formatRange(start, end) : long.format(start));
        }
      }
    }
  });

  it('feed item time spans are what Intl formats in the zone itself', () => {
    const DATE_TIME: Intl.DateTimeFormatOptions = { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: 'numeric', minute: '2-digit' };
    for (const locale of ['en', 'lt', 'ja', 'lt,en']) {
      for (const zone of ZONES) {
        let f: Intl.DateTimeFormat;
        try {
          f = new Intl.DateTimeFormat(locale, { ...DATE_TIME, timeZone: zone });
        } catch {
          f = new Intl.DateTimeFormat('en', { ...DATE_TIME, timeZone: zone });
        }
        for (const start of instants().filter((_, i) => i % 31 === 0)) {
          for (const length of [1_000, 30 * 60_000, 3 * HOUR, 26 * HOUR]) {
            const end = start + length;
            const event = { calendarId: 'c', calendarSlug: 'c', id: 'e', slug: 'e', title: 't', status: 'confirmed' as const, categories: [], when: { kind: 'timed' as const, start, end } };
            expect(formatWhenLong(ctx, event, locale, zone), `${locale} ${zone} ${start} ${end}`).toBe(`${f.formatRange(start, end)} (${zone})`);
          }
        }
      }
    }
  });
});

describe('composed same-day ranges', () => {
  it('are exactly formatRange, in scripts, calendars and hour cycles of every kind', () => {
    const locales = ['en', 'en-GB', 'lt', 'de', 'ja', 'ko', 'zh', 'ar', 'fa', 'he', 'hi', 'th', 'ru', 'pl', 'ja-JP-u-ca-japanese', 'zh-u-ca-chinese', 'en-u-hc-h23', 'ar-SA', 'my'];
    const styles: Intl.DateTimeFormatOptions[] = [
      { dateStyle: 'full', timeStyle: 'short' },
      { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: 'numeric', minute: '2-digit' },
    ];
    const random = seeded(11);
    const DAY = 86_400_000;
    for (const locale of locales) {
      for (const style of styles) {
        const f = new Intl.DateTimeFormat(locale, { ...style, timeZone: 'UTC' });
        const composer = new WallRangeFormatter(f);
        // Few days and few times of day, so that most ranges are composed from remembered parts.
        for (let n = 0; n < 300; n++) {
          const day = 20_000 + Math.floor(random() * 40) * 97;
          const from = day * DAY + Math.floor(random() * 96) * 15 * 60_000 + (random() < 0.05 ? 30_000 : 0);
          const to = from + [1, 30_000, 60_000, 15 * 60_000, HOUR, 2 * HOUR, 12 * HOUR, DAY][Math.floor(random() * 8)]!;
          expect(composer.formatRange(from, to), `${locale} ${JSON.stringify(style)} ${from} ${to}`).toBe(f.formatRange(from, to));
        }
      }
    }
  });
});

/** RFC 5545 folding by the book: whole code points, 75 octets, then 74 after the leading space. */
function referenceFold(line: string): string {
  if (Buffer.byteLength(line) <= 75) return line;
  const parts: string[] = [];
  let current = '';
  let octets = 0;
  let limit = 75;
  for (const ch of line) {
    const size = Buffer.byteLength(ch);
    if (octets + size > limit) {
      parts.push(current);
      current = '';
      octets = 0;
      limit = 74;
    }
    current += ch;
    octets += size;
  }
  parts.push(current);
  return parts.join('\r\n ');
}

describe('iCalendar folding', () => {
  it('cuts where the octet-by-octet reference cuts, for ASCII, 2-, 3- and 4-octet text and lone surrogates', () => {
    const pieces = ['a', 'Č', 'ž', '€', '日', '😀', '\uD800', '\uDC00', ' ', ';', '\\n'];
    let seed = 7;
    const random = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 2000; n++) {
      let line = 'DESCRIPTION:';
      const length = Math.floor(random() * 400);
      for (let i = 0; i < length; i++) line += pieces[Math.floor(random() * pieces.length)];
      expect(foldLine(line), JSON.stringify(line)).toBe(referenceFold(line));
    }
  });

  it('never writes a physical line over 75 octets', () => {
    const text = serialize([`SUMMARY:${'😀Č'.repeat(200)}`, `DESCRIPTION:${'x'.repeat(1000)}`]);
    for (const physical of text.split('\r\n')) expect(Buffer.byteLength(physical)).toBeLessThanOrEqual(75);
  });
});

describe('text conversions', () => {
  it('stripControl removes controls and lone surrogates, keeps pairs', () => {
    const reference = (s: string): string =>
      s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]/g, '').replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '');
    for (const s of ['plain', 'tab\tand\nnewline', 'a\u0000b\u0007c', '😀 ok', 'lone \uD800 high', 'lone \uDC00 low', '\uD800\u0001\uDC00', 'x\uFFFEy\u0085z', '']) {
      expect(stripControl(s), JSON.stringify(s)).toBe(reference(s));
    }
  });

  it('remembered conversions return the same answer as the first time, per input and base URL', () => {
    const html = '<p>Talk &amp; <a href="/more">more</a></p><ul><li>one</li><li>two</li></ul>';
    const first = htmlToText(ctx, html);
    expect(first).toContain('- one');
    expect(htmlToText(ctx, html)).toBe(first);
    const a = sanitizeHtml(ctx, html, 'https://a.example/x/');
    const b = sanitizeHtml(ctx, html, 'https://b.example/y/');
    expect(a).toContain('https://a.example/more');
    expect(b).toContain('https://b.example/more');
    expect(sanitizeHtml(ctx, html, 'https://a.example/x/')).toBe(a);
    // No base: the relative link is dropped, and that answer is not confused with a base-URL one.
    expect(sanitizeHtml(ctx, html)).not.toContain('example');
  });

  it('htmlToText is the regex-by-regex conversion it replaced, over hostile markup and text', () => {
    const random = seeded(3);
    for (let n = 0; n < 4000; n++) {
      const input = random() < 0.8 ? htmlSoup(random) : textSoup(random);
      expect(htmlToText(ctx, input), JSON.stringify(input)).toBe(referenceHtmlToText(input));
    }
  });

  it('iCalendar TEXT escaping and UTC date-times are what the regex and Date-field versions give', () => {
    const random = seeded(5);
    for (let n = 0; n < 2000; n++) {
      const input = random() < 0.5 ? textSoup(random) : htmlSoup(random);
      expect(escapeText(input)).toBe(referenceEscapeText(input));
    }
    for (const text of ['', '\\', ';,', '\r\n\r\n', '\r\r\n\n', 'a\rb', 'end\r']) expect(escapeText(text)).toBe(referenceEscapeText(text));
    const edges = [0, -1, 1, -62_167_219_200_001, -62_167_219_200_000, 253_402_300_799_999, 253_402_300_800_000, 8.64e15, -8.64e15, NaN, 1_790_000_000_123];
    for (const ms of [...edges, ...Array.from({ length: 2000 }, () => Math.round((random() - 0.3) * 4e14))]) {
      expect(utcDateTime(ms), String(ms)).toBe(referenceUtcDateTime(ms));
    }
  });

  it('StringMemo stays within its bounds and evicts the least recently used entry', () => {
    const memo = new StringMemo(3, 1000);
    let computed = 0;
    const upper = (s: string): string => (computed++, s.toUpperCase());
    for (const k of ['a', 'b', 'c']) memo.get(k, upper);
    memo.get('a', upper); // a is now the most recent
    memo.get('d', upper); // evicts b
    expect(memo.size).toBe(3);
    const before = computed;
    expect(memo.get('a', upper)).toBe('A');
    expect(computed).toBe(before);
    memo.get('b', upper);
    expect(computed).toBe(before + 1);
    // An answer larger than a quarter of the character budget is returned, not kept.
    memo.get('z'.repeat(200), upper);
    expect(memo.size).toBe(3);
  });
});

describe('event page views', () => {
  it('share what depends on the calendar and site only while those stay the same', async () => {
    const site = { siteUrl: 'https://a.example/', title: 'A', locale: 'en', timeZone: 'Europe/Vilnius', clock: clockAt(0), feedLimit: 10, icalPastDays: 90, refreshMinutes: 180, version: '1' };
    const cal = { id: 'c1', slug: 'c1', title: 'Cal', timeZone: 'Europe/Vilnius', url: 'https://portal.example/c1' };
    const event = {
      calendarId: 'c1', calendarSlug: 'c1', id: 'e1', slug: 'e1', title: 'Talk', status: 'confirmed' as const, categories: [],
      when: { kind: 'timed' as const, start: Date.parse('2026-09-24T12:00:00Z'), end: Date.parse('2026-09-24T14:00:00Z') },
      description: '<p><a href="/more">More</a></p>', firstSeen: 0, changedAt: 0, sequence: 0,
    };
    // A fresh render context, with nothing remembered, is the uncached computation.
    const { catalogs } = await loadTemplates();
    // The page text of a site's --locale, as the renderer picks it.
    const tx = (s: typeof site) => catalogs.pick([s.locale]);
    const fresh = async (s: typeof site, c: typeof cal, e = event) => eventView(createRenderContext(), { ...c }, e, s, tx(s));
    expect(eventView(ctx, cal, event, site, tx(site))).toEqual(await fresh(site, cal));
    for (const other of [
      { ...site, siteUrl: 'https://b.example/x/' }, { ...site, title: 'B' }, { ...site, locale: 'lt' }, { ...site, timeZone: 'UTC' }, { ...site, version: '2' },
      { ...site, logo: '/logo.svg' }, { ...site, primaryColor: '#7a0019' },
    ]) {
      expect(eventView(ctx, cal, event, other, tx(other))).toEqual(await fresh(other, cal));
    }
    for (const change of [{ title: 'Renamed' }, { slug: 'c-1' }, { timeZone: 'Asia/Tokyo' }, { url: undefined }, { url: 'https://elsewhere.example/' }]) {
      // Remembered for this calendar and site first; then the changed calendar comes as the same
      // object, and as a copy (as a page worker gets it).
      eventView(ctx, cal, event, site, tx(site));
      Object.assign(cal, change);
      expect(eventView(ctx, cal, event, site, tx(site))).toEqual(await fresh(site, cal));
      expect(eventView(ctx, { ...cal, ...change }, event, site, tx(site))).toEqual(await fresh(site, cal));
    }
    // Calendar pages link their events as relHref would, whatever the slugs.
    for (const slug of ['c1', 'a/b', 'x/', '..', 'a/../b', '']) {
      const c = { ...cal, slug };
      const events = ['e1', 'a/b', '..', '_x.y-z'].map((s, i) => ({ ...event, id: `e${i}`, slug: s, title: s, when: { ...event.when, start: site.clock.now + (i + 1) * HOUR, end: site.clock.now + (i + 2) * HOUR } }));
      const views = calendarViews(ctx, c, events, site, tx(site));
      const listed = views.index.days.flatMap((d) => d.events);
      expect(listed.length + views.widget.events.length).toBe(2 * events.length);
      for (const link of listed) expect(link.href, `${slug} ${link.title}`).toBe(relHref(paths.calendar(slug, 'index.html'), paths.eventPage(slug, link.title)));
      for (const link of views.widget.events) expect(link.href, `${slug} ${link.title}`).toBe(relHref(paths.calendar(slug, 'widget.html'), paths.eventPage(slug, link.title)));
    }
    // A slug that is not one plain segment takes the general path.
    const odd = { ...event, slug: 'a/b' };
    expect(eventView(ctx, cal, odd, site, tx(site)).event.icsHref).toBe('b.ics');
    expect(eventView(ctx, cal, odd, site, tx(site)).page.home).toBe('../../../../index.html');
  });
});
