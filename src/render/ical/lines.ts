// RFC 5545 content lines, written by hand: the `ics` package (3.12) folds by code points, not
// octets, lacks NAME, X-WR-*, REFRESH-INTERVAL and SOURCE, leaves CATEGORIES unescaped, puts DQUOTEs
// inside a quoted CN, fills a random UID and DTSTAMP=now, and rejects a calendar for one bad URL.

import type { RenderContext } from '../context.js';
import { safeHttpUrl } from '../html/links.js';

const CRLF = '\r\n';
const MAX_OCTETS = 75;

/** Escape a TEXT value (RFC 5545 3.3.11): backslash, semicolon, comma, and newlines as \n. */
export function escapeText(text: string): string {
  // (Four native replacements beat one pass in JavaScript; most short values need none of them.)
  if (!TEXT_SPECIAL.test(text)) return text;
  return text
    .replace(/\\/g, '\\\\')
    .replace(/;/g, '\\;')
    .replace(/,/g, '\\,')
    .replace(/\r\n|\r|\n/g, '\\n');
}
const TEXT_SPECIAL = /[\\;,\r\n]/;

/**
 * A parameter value (RFC 5545 3.2): always quoted, so ; : , need no escaping, and with the
 * characters a quoted-string cannot hold (DQUOTE, controls, newlines) removed.
 */
export function paramValue(text: string): string {
  return `"${text.replace(/["\r\n\t]/g, ' ').replace(/ {2,}/g, ' ').trim()}"`;
}

/**
 * Fold one content line at 75 octets (RFC 5545 3.1). Continuation lines start with one space, which
 * counts toward their 75, and a UTF-8 sequence is never split: we cut between code points only.
 */
export function foldLine(line: string): string {
  // A UTF-16 code unit is at most 3 octets (a pair of them, 4): short lines need no counting.
  if (line.length * 3 <= MAX_OCTETS) return line;
  // One pass over code units, cutting by index: Buffer.byteLength per character costs too much.
  let parts: string[] | undefined;
  let start = 0;
  let octets = 0;
  let limit = MAX_OCTETS;
  for (let i = 0; i < line.length; ) {
    const code = line.charCodeAt(i);
    let units = 1;
    let size: number;
    if (code < 0x80) size = 1;
    else if (code < 0x800) size = 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < line.length && (line.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      size = 4;
      units = 2;
    } else size = 3; // the rest of the BMP; a lone surrogate is written as U+FFFD, also 3 octets
    if (octets + size > limit) {
      (parts ??= []).push(line.slice(start, i));
      start = i;
      octets = 0;
      limit = MAX_OCTETS - 1;
    }
    octets += size;
    i += units;
  }
  if (!parts) return line;
  parts.push(line.slice(start));
  return parts.join(CRLF + ' ');
}

/** Join content lines into an iCalendar stream: folded, CRLF after every line including the last. */
export function serialize(lines: string[]): string {
  let out = '';
  for (const line of lines) out += foldLine(line) + CRLF;
  return out;
}

/** A UTC DATE-TIME value, e.g. 20260325T150000Z. */
export function utcDateTime(ms: number): string {
  const d = new Date(ms);
  return (
    String(d.getUTCFullYear()).padStart(4, '0') + pad2(d.getUTCMonth() + 1) + pad2(d.getUTCDate()) +
    'T' + pad2(d.getUTCHours()) + pad2(d.getUTCMinutes()) + pad2(d.getUTCSeconds()) + 'Z'
  );
}

// Two digits for the fields above (NaN too), without padStart: four of them per DATE-TIME.
const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** A DATE value from `YYYY-MM-DD`, e.g. 20261224. */
export function dateValue(isoDate: string): string {
  return isoDate.replace(/-/g, '');
}

/** A DURATION value from minutes, e.g. 180 -> PT3H, 90 -> PT1H30M (never zero or negative). */
export function durationValue(minutes: number): string {
  const total = Math.max(1, Math.round(minutes));
  const h = Math.floor(total / 60);
  const m = total % 60;
  return 'PT' + (h ? `${h}H` : '') + (m ? `${m}M` : '');
}

/**
 * An absolute http(s) URL fit for a URI value, or undefined: the WHATWG href is percent-encoded, so
 * untrusted spaces or line breaks cannot break the line. A page's links' check, sharing its memo.
 */
export function uriValue(ctx: RenderContext, url: string | undefined): string | undefined {
  return safeHttpUrl(ctx, url) ?? undefined;
}
