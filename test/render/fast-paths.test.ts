// The renderers' fast paths (remembered offsets and labels, linear folding, memoized conversions)
// must give exactly what the straightforward computation gives. Each test compares against that
// computation done here with the same libraries (luxon, Intl, Buffer), over many inputs, including
// daylight-saving days, odd zones and multi-byte text.

import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { dayKeyOf, formatListTime, formatLongWhen, isoInZone } from '../../src/render/html/format.js';
import { foldLine, serialize } from '../../src/render/ical/lines.js';
import { StringMemo } from '../../src/render/memo.js';
import { sanitizeHtml } from '../../src/render/sanitize.js';
import { htmlToText, stripControl } from '../../src/render/text.js';

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
        expect(isoInZone(ms, zone), `${zone} ${ms}`).toBe(DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true }));
      }
    }
  });

  it('dayKeyOf is the wall date Intl gives in the zone', () => {
    for (const zone of ZONES) {
      const f = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
      for (const ms of instants().filter((t) => t > Date.parse('1900-01-02T00:00:00Z') && t < Date.parse('9999-12-30T00:00:00Z'))) {
        expect(dayKeyOf(ms, zone), `${zone} ${ms}`).toBe(f.format(ms));
      }
    }
  });

  it('list and page time labels are what Intl formats in the zone itself', () => {
    for (const locale of ['en', 'lt', 'de', 'ja']) {
      for (const zone of ZONES) {
        const same = new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit', timeZone: zone });
        const multi = new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZone: zone });
        const long = new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeStyle: 'short', timeZone: zone });
        const day = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
        const starts = instants().filter((_, i) => i % 7 === 0 && i < 1400);
        for (const start of starts) {
          for (const length of [0, 1_000, 30 * 60_000, HOUR + 17 * 60_000, 3 * HOUR, 26 * HOUR]) {
            const end = start + length;
            const f = day.format(start) === day.format(end) ? same : multi;
            const expected = end > start ? f.formatRange(start, end) : f.format(start);
            const when = { kind: 'timed' as const, start, end };
            expect(formatListTime(when, zone, locale), `${locale} ${zone} ${start} ${end}`).toBe(expected);
            expect(formatLongWhen(when, zone, locale)).toBe(end > start ? long.formatRange(start, end) : long.format(start));
          }
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
    const first = htmlToText(html);
    expect(first).toContain('- one');
    expect(htmlToText(html)).toBe(first);
    const a = sanitizeHtml(html, 'https://a.example/x/');
    const b = sanitizeHtml(html, 'https://b.example/y/');
    expect(a).toContain('https://a.example/more');
    expect(b).toContain('https://b.example/more');
    expect(sanitizeHtml(html, 'https://a.example/x/')).toBe(a);
    // No base: the relative link is dropped, and that answer is not confused with a base-URL one.
    expect(sanitizeHtml(html)).not.toContain('example');
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
