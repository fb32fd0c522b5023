// Text helpers every output format shares: XML/iCalendar-safe character filtering, HTML escaping,
// and HTML -> plain text for formats that cannot carry markup (iCalendar DESCRIPTION, summaries).

import { Parser } from 'htmlparser2';
import { StringMemo } from './memo.js';

// C0 controls except TAB, LF, CR; DEL and C1 controls; U+FFFE/U+FFFF (not XML characters). Lone
// surrogates are matched separately because a regex with the `u` flag cannot see them.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const HAS_CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]/;
// String.prototype.isWellFormed (Node 20+, not in the ES2023 lib typings): true when the string
// has no lone surrogate, a native scan far cheaper than the look-behind regex.
const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

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
  const label = text.replace(/\s+/g, ' ').trim();
  if (!href) return label;
  if (!label) return href;
  const bare = href.replace(/^(mailto|tel):/i, '');
  if (label === href || label === bare || label + '/' === href) return label === bare ? label : href;
  return `${label} (${href})`;
}

// One description is converted for its page summary, its JSON-LD, its .ics and the calendar's .ics:
// the answers are remembered (bounded: a few thousand descriptions, at most 4M characters).
const textMemo = new StringMemo(4096, 4_000_000);

/** HTML -> plain text for iCalendar and summaries: block elements become line breaks, lists become "- " lines, links kept as "text (url)" (just the url when the text equals it), entities decoded, whitespace collapsed, control characters removed. */
export function htmlToText(html: string): string {
  return textMemo.get(html, convertHtmlToText);
}

function convertHtmlToText(html: string): string {
  const input = stripControl(html);
  // Plain text keeps its own line breaks; only HTML collapses whitespace.
  const plain = !looksLikeHtml(input);
  let out = '';
  let skipDepth = 0;
  let preDepth = 0;
  const links: { href: string | undefined; start: number }[] = [];

  // Called at every block boundary: looks only at the end of `out` (a regex anchored with $ would
  // scan all of it each time, quadratic in the length of a long description).
  const breakLines = (n: number): void => {
    let end = out.length;
    while (end > 0 && (out.charCodeAt(end - 1) === 0x20 || out.charCodeAt(end - 1) === 0x09)) end--;
    const trimmed = end === out.length ? out : out.slice(0, end);
    let have = 0;
    while (have < end && trimmed.charCodeAt(end - 1 - have) === 0x0a) have++;
    out = trimmed + (trimmed ? '\n'.repeat(Math.max(0, n - have)) : '');
  };

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (SKIP.has(name)) skipDepth++;
        if (skipDepth) return;
        if (name === 'pre') preDepth++;
        if (PARAGRAPH.has(name)) breakLines(2);
        else if (name === 'br') out += '\n';
        else if (LINE.has(name)) breakLines(1);
        if (name === 'li') out += '- ';
        if (name === 'a') links.push({ href: linkTarget(attribs.href), start: out.length });
        if (name === 'img' && attribs.alt) out += attribs.alt;
        if (name === 'td' || name === 'th') out += out.endsWith('\n') || out === '' ? '' : ' ';
      },
      ontext(text) {
        if (skipDepth) return;
        if (plain || preDepth) {
          out += text.replace(/\r\n?/g, '\n').replace(/[ \t\f\v]+/g, ' ');
          return;
        }
        const collapsed = text.replace(/\s+/g, ' ');
        const last = out.charCodeAt(out.length - 1);
        out += out === '' || last === 0x20 || last === 0x0a ? collapsed.replace(/^ /, '') : collapsed;
      },
      onclosetag(name) {
        if (SKIP.has(name)) {
          skipDepth = Math.max(0, skipDepth - 1);
          return;
        }
        if (skipDepth) return;
        if (name === 'a') {
          const link = links.pop();
          if (link) out = out.slice(0, link.start) + linkText(out.slice(link.start), link.href);
        }
        if (name === 'pre') preDepth = Math.max(0, preDepth - 1);
        if (PARAGRAPH.has(name)) breakLines(2);
        else if (LINE.has(name) && name !== 'br') breakLines(1);
      },
    },
    { decodeEntities: true, recognizeSelfClosing: true },
  );
  parser.write(input);
  parser.end();

  return stripControl(
    out
      .split('\n')
      .map((line) => line.replace(/[ \t]+/g, ' ').trim())
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim(),
  );
}
