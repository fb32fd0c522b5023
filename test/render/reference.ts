// The straightforward implementations that src/render's fast ones replaced, kept as references:
// the fast code must give exactly their output (tests in fast-paths.test.ts).

import { Parser } from 'htmlparser2';
import { looksLikeHtml, stripControl } from '../../src/render/text.js';

const PARAGRAPH = new Set([
  'p', 'div', 'section', 'article', 'header', 'footer', 'aside', 'main', 'nav', 'blockquote', 'pre',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'dl', 'table', 'figure', 'address', 'hr', 'form',
]);
const LINE = new Set(['br', 'li', 'tr', 'dt', 'dd', 'figcaption', 'caption']);
const SKIP = new Set(['script', 'style', 'template', 'noscript', 'iframe', 'object', 'embed', 'svg', 'math', 'head', 'title', 'textarea', 'select']);

function linkTarget(href: string | undefined): string | undefined {
  if (!href) return undefined;
  try {
    const url = new URL(href.trim());
    return ['http:', 'https:', 'mailto:', 'tel:'].includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function linkText(text: string, href: string | undefined): string {
  const label = text.replace(/\s+/g, ' ').trim();
  if (!href) return label;
  if (!label) return href;
  const bare = href.replace(/^(mailto|tel):/i, '');
  if (label === href || label === bare || label + '/' === href) return label === bare ? label : href;
  return `${label} (${href})`;
}

/** htmlToText as it was: regex passes over the whole text, lines split into an array. */
export function referenceHtmlToText(html: string): string {
  const input = stripControl(html);
  const plain = !looksLikeHtml(input);
  let out = '';
  let skipDepth = 0;
  let preDepth = 0;
  const links: { href: string | undefined; start: number }[] = [];
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

/** iCalendar TEXT escaping as it was: four regex replacements. */
export function referenceEscapeText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r\n|\r|\n/g, '\\n');
}

/** A UTC DATE-TIME value as it was: from the Date's UTC fields. */
export function referenceUtcDateTime(ms: number): string {
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
  const d = new Date(ms);
  return (
    pad(d.getUTCFullYear(), 4) + pad(d.getUTCMonth() + 1) + pad(d.getUTCDate()) +
    'T' + pad(d.getUTCHours()) + pad(d.getUTCMinutes()) + pad(d.getUTCSeconds()) + 'Z'
  );
}
