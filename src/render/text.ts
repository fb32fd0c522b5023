// Text helpers every output format shares: XML/iCalendar-safe character filtering, HTML escaping,
// and HTML -> plain text for formats that cannot carry markup (iCalendar DESCRIPTION, summaries).

import { Parser } from 'htmlparser2';
import { isWellFormed } from '../safe-text.js';
import type { RenderContext } from './context.js';

// C0 controls except TAB, LF, CR; DEL and C1 controls; U+FFFE/U+FFFF (not XML characters). Lone
// surrogates are matched separately because a regex with the `u` flag cannot see them.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]/g;
const HAS_CONTROL = new RegExp(CONTROL.source);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Remove characters illegal in XML 1.0 and C0/C1 controls except tab, LF, CR (and lone surrogates). */
export function stripControl(text: string): string {
  // Every page, feed and text value passes through here, almost always clean: test before copying.
  const kept = HAS_CONTROL.test(text) ? text.replace(CONTROL, '') : text;
  return isWellFormed(kept) ? kept : kept.replace(LONE_SURROGATE, '');
}

/** "A, B, C" for a combined feed's description; past `max` calendars, "A, B and 290 more". */
export function calendarList(calendars: { title: string }[], max = 10): string {
  const titles = calendars.map((c) => stripControl(c.title).trim()).filter((t) => t !== '');
  if (titles.length <= max) return titles.join(', ');
  return `${titles.slice(0, max).join(', ')} and ${titles.length - max} more`;
}

/** Escape text for HTML element content or a double-quoted attribute. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** True when a string contains something that looks like an HTML tag, comment or entity-free markup. */
export function looksLikeHtml(text: string): boolean {
  return /<[a-zA-Z!/?]/.test(text);
}

// Elements that end a paragraph (blank line) or a line, for plain-text layout.
const PARAGRAPH = new Set([
  'p', 'div', 'section', 'article', 'header', 'footer', 'aside', 'main', 'nav', 'blockquote', 'pre',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'dl', 'table', 'figure', 'address', 'hr', 'form',
]);
const LINE = new Set(['br', 'li', 'tr', 'dt', 'dd', 'figcaption', 'caption']);
// Content of these never reaches a reader as text.
const SKIP = new Set(['script', 'style', 'template', 'noscript', 'iframe', 'object', 'embed', 'svg', 'math', 'head', 'title', 'textarea', 'select']);

/** A link's target as plain text: absolute http(s)/mailto/tel only (others say nothing useful). */
function linkTarget(href: string | undefined): string | undefined {
  if (!href) return undefined;
  try {
    const url = new URL(href.trim());
    return ['http:', 'https:', 'mailto:', 'tel:'].includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** "text (url)", or just one of them when the other adds nothing. */
function linkText(text: string, href: string | undefined): string {
  const label = collapseWhitespace(text).trim();
  if (!href) return label;
  if (!label) return href;
  const bare = href.replace(/^(mailto|tel):/i, '');
  if (label === href || label === bare || label + '/' === href) return label === bare ? label : href;
  return `${label} (${href})`;
}

/** HTML -> plain text for iCalendar and summaries: block elements become line breaks, lists become "- " lines, links kept as "text (url)" (just the url when the text equals it), entities decoded, whitespace collapsed, control characters removed. */
export function htmlToText(ctx: RenderContext, html: string): string {
  // Remembered: a description is converted by its event's render job and again by its calendar's.
  return ctx.plainText.get(html, convertHtmlToText);
}

/**
 * Plain text being written. The last code unit of `out` (NaN when empty) is kept beside it: asking
 * `out` itself would flatten the rope that += builds, copying all of it on every text chunk (and
 * every entity is a chunk).
 */
class PlainText {
  out = '';
  last = NaN;

  append(piece: string): void {
    if (piece === '') return;
    this.out += piece;
    this.last = piece.charCodeAt(piece.length - 1);
  }

  /** Whether the text is empty or ends in a space or a line break. */
  atSpace(): boolean {
    return this.out === '' || this.last === 0x20 || this.last === 0x0a;
  }

  // Called at every block boundary: looks only at the end of `out` (a regex anchored with $ would
  // scan all of it each time, quadratic in the length of a long description).
  breakLines(n: number): void {
    let end = this.out.length;
    while (end > 0 && (this.out.charCodeAt(end - 1) === 0x20 || this.out.charCodeAt(end - 1) === 0x09)) end--;
    if (end !== this.out.length) {
      this.out = this.out.slice(0, end);
      this.last = end === 0 ? NaN : this.out.charCodeAt(end - 1);
    }
    if (end === 0) return;
    let have = 0;
    while (have < n && have < end && this.out.charCodeAt(end - 1 - have) === 0x0a) have++;
    if (have < n) this.append(n - have === 1 ? '\n' : '\n\n');
  }

  /** Rewrites the text from `start` on, a link's text, as linkText() says it. */
  endLink(start: number, href: string | undefined): void {
    this.out = this.out.slice(0, start) + linkText(this.out.slice(start), href);
    this.last = this.out.charCodeAt(this.out.length - 1);
  }
}

function convertHtmlToText(html: string): string {
  const input = stripControl(html);
  // Plain text keeps its own line breaks; only HTML collapses whitespace.
  const plain = !looksLikeHtml(input);
  const text = new PlainText();
  let skipDepth = 0;
  let preDepth = 0;
  const links: { href: string | undefined; start: number }[] = [];

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (SKIP.has(name)) skipDepth++;
        if (skipDepth) return;
        if (name === 'pre') preDepth++;
        if (PARAGRAPH.has(name)) text.breakLines(2);
        else if (name === 'br') text.append('\n');
        else if (LINE.has(name)) text.breakLines(1);
        if (name === 'li') text.append('- ');
        if (name === 'a') links.push({ href: linkTarget(attribs.href), start: text.out.length });
        if (name === 'img' && attribs.alt) text.append(attribs.alt);
        if ((name === 'td' || name === 'th') && text.out !== '' && text.last !== 0x0a) text.append(' ');
      },
      ontext(chunk) {
        if (skipDepth) return;
        if (plain || preDepth) return text.append(keepLines(chunk));
        const collapsed = collapseWhitespace(chunk);
        text.append(text.atSpace() && collapsed.charCodeAt(0) === 0x20 ? collapsed.slice(1) : collapsed);
      },
      onclosetag(name) {
        if (SKIP.has(name)) {
          skipDepth = Math.max(0, skipDepth - 1);
          return;
        }
        if (skipDepth) return;
        const link = name === 'a' ? links.pop() : undefined;
        if (link) text.endLink(link.start, link.href);
        if (name === 'pre') preDepth = Math.max(0, preDepth - 1);
        if (PARAGRAPH.has(name)) text.breakLines(2);
        else if (LINE.has(name) && name !== 'br') text.breakLines(1);
      },
    },
    { decodeEntities: true, recognizeSelfClosing: true },
  );
  parser.write(input);
  parser.end();

  return stripControl(tidyLines(text.out));
}

const SPACES = /\s+/g;
// Text that \s+ -> ' ' would change: two whitespace characters in a row, or one that is not a space.
const SPACES_TO_COLLAPSE = /\s\s|[^\S ]/;

/** text.replace(/\s+/g, ' '), testing first: most text chunks have single spaces only. */
export function collapseWhitespace(text: string): string {
  return SPACES_TO_COLLAPSE.test(text) ? text.replace(SPACES, ' ') : text;
}

const BLANKS = /[ \t\f\v]+/g;
// Text the two replacements in keepLines would change.
const LINES_TO_KEEP = /[\r\t\f\v]| {2}/;

/** Plain or preformatted text: CR LF and CR become LF, runs of blanks one space. */
function keepLines(text: string): string {
  return LINES_TO_KEEP.test(text) ? text.replace(/\r\n?/g, '\n').replace(BLANKS, ' ') : text;
}

const SPACE_TAB = /[ \t]+/g;

/**
 * The converted text's final layout in one pass, without arrays: the same as
 * out.split('\n').map((l) => l.replace(/[ \t]+/g, ' ').trim()).join('\n').replace(/\n{3,}/g, '\n\n').trim().
 */
function tidyLines(out: string): string {
  let result = '';
  // Lines ended since the last non-blank one: 1 means the next line follows directly, 2 or more
  // that one blank line separates them.
  let breaks = 0;
  let from = 0;
  for (;;) {
    const newline = out.indexOf('\n', from);
    const end = newline === -1 ? out.length : newline;
    let line = out.slice(from, end).trim();
    if (line !== '') {
      if (line.indexOf('\t') !== -1 || line.indexOf('  ') !== -1) line = line.replace(SPACE_TAB, ' ');
      if (result !== '') result += breaks === 1 ? '\n' : '\n\n';
      result += line;
      breaks = 0;
    }
    if (newline === -1) return result;
    breaks++;
    from = newline + 1;
  }
}

/** A short plain-text summary (200 characters at most) for <meta name="description">. */
export function textSummary(ctx: RenderContext, html: string | undefined): string | undefined {
  if (!html) return undefined;
  const text = collapseWhitespace(htmlToText(ctx, html)).trim();
  return text === '' ? undefined : cutText(text, 200);
}

/** Text of at most `max` code points: cut to max - 1 and an ellipsis when longer. */
export function cutText(text: string, max: number): string {
  // By code point, so an emoji is never cut in half; counted in place, not by spreading the text.
  let i = 0;
  let count = 0;
  let cut = 0;
  while (i < text.length && count <= max) {
    if (count === max - 1) cut = i;
    const code = text.charCodeAt(i);
    const pair = code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    i += pair ? 2 : 1;
    count++;
  }
  return count > max ? text.slice(0, cut).trimEnd() + '…' : text;
}
