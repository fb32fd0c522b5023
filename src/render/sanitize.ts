// The one HTML allowlist for everything calfeed publishes (pages and feeds alike). Portal HTML is
// untrusted: news sites embed our feeds and pages, so anything executable would run on their origin.
// An allowlist (not a blocklist) means a tag or attribute nobody thought of is dropped, not kept.

import sanitize from 'sanitize-html';
import { remember, type RenderContext } from './context.js';
import { escapeHtml, looksLikeHtml, stripControl } from './text.js';

const SAFE_SCHEMES = ['http', 'https', 'mailto', 'tel'];
const LINK_REL = 'noopener nofollow ugc';

const ALLOWED_TAGS = [
  'a', 'abbr', 'b', 'blockquote', 'br', 'caption', 'cite', 'code', 'dd', 'del', 'dfn', 'div', 'dl', 'dt',
  'em', 'figcaption', 'figure', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'img', 'ins', 'kbd', 'li', 'mark',
  'ol', 'p', 'pre', 'q', 's', 'small', 'span', 'strong', 'sub', 'sup', 'table', 'tbody', 'td', 'tfoot',
  'th', 'thead', 'time', 'tr', 'u', 'ul',
];

// Elements whose content must vanish with them: their text is code, not prose (script, style), or
// is parsed differently by browsers than by htmlparser2 (noscript, template, xmp...), which is where
// mutation-XSS tricks hide.
const DROP_WITH_CONTENT = [
  'script', 'style', 'textarea', 'option', 'noscript', 'template', 'title', 'iframe', 'object', 'embed',
  'svg', 'math', 'xmp', 'noembed', 'noframes', 'plaintext', 'select', 'head',
];

/**
 * A URL attribute resolved (against baseUrl when given), or undefined to drop it unless its scheme
 * is allowed. new URL() strips the tabs and newlines "jav&#9;ascript:" tricks rely on, so the
 * scheme checked is the one a browser would see.
 */
function safeUrl(value: string | undefined, baseUrl: string | undefined, schemes: string[]): string | undefined {
  if (value === undefined) return undefined;
  const raw = value.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = baseUrl ? new URL(raw, baseUrl) : new URL(raw);
  } catch {
    return undefined;
  }
  return schemes.includes(url.protocol.slice(0, -1)) ? url.href : undefined;
}

function withUrl(
  attribs: Record<string, string>,
  name: string,
  baseUrl: string | undefined,
  schemes: string[],
): Record<string, string> {
  const { [name]: value, ...rest } = attribs;
  const url = safeUrl(value, baseUrl, schemes);
  // The URL first, then the rest: attribute order then does not depend on the portal's markup.
  return url === undefined ? rest : { [name]: url, ...rest };
}

function options(baseUrl: string | undefined): sanitize.IOptions {
  return {
    allowedTags: ALLOWED_TAGS,
    // No event handlers, no style, no class/id (they could hook into the host page's scripts/CSS).
    allowedAttributes: {
      a: ['href', 'title', 'rel'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      abbr: ['title'],
      td: ['colspan', 'rowspan'],
      th: ['colspan', 'rowspan', 'scope'],
      ol: ['start', 'reversed'],
      time: ['datetime'],
    },
    allowedSchemes: SAFE_SCHEMES,
    allowedSchemesByTag: { img: ['http', 'https'] },
    allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
    allowProtocolRelative: false,
    disallowedTagsMode: 'discard',
    nonTextTags: DROP_WITH_CONTENT,
    transformTags: {
      a: (tagName, { rel: _portalRel, ...attribs }) => ({
        tagName,
        attribs: { ...withUrl(attribs, 'href', baseUrl, SAFE_SCHEMES), rel: LINK_REL },
      }),
      img: (tagName, attribs) => ({ tagName, attribs: withUrl(attribs, 'src', baseUrl, ['http', 'https']) }),
    },
    // An <img> without a usable src is noise; drop it.
    exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
  };
}

/** Plain text -> HTML: escape, blank lines become paragraphs, single newlines <br>. */
function textToHtml(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n+/)
    .map((para) => para.trim())
    .filter((para) => para !== '')
    .map((para) => `<p>${escapeHtml(para).replace(/\n/g, '<br>')}</p>`)
    .join('');
}

/** Clean untrusted portal HTML with calfeed's allowlist: no script/style/iframe/object/embed/form/input/svg/math, no event-handler or style attributes, only http(s)/mailto/tel URLs (relative URLs resolved against baseUrl when given, else dropped), links get rel="noopener nofollow ugc". Plain text (no tags) is escaped and newlines become <br>/<p>. Control and XML-illegal characters removed. */
export function sanitizeHtml(ctx: RenderContext, html: string, baseUrl?: string): string {
  // Remembered: a description is cleaned for its event page and again for its calendar's feeds.
  // Keyed by base and HTML; the length prefix keeps any two (base, html) pairs apart.
  const base = baseUrl ?? '';
  return ctx.sanitized.get(`${baseUrl === undefined ? '-' : base.length}:${base}${html}`, () => clean(ctx, html, baseUrl));
}

// Options hold closures over the base URL; a site has few distinct bases (the portal's pages), so
// they are built once per base rather than once per call (ctx.sanitizeOptions).
function optionsFor(ctx: RenderContext, baseUrl: string | undefined): sanitize.IOptions {
  return remember(ctx.sanitizeOptions, baseUrl === undefined ? '' : `:${baseUrl}`, 1000, () => options(baseUrl));
}

function clean(ctx: RenderContext, html: string, baseUrl: string | undefined): string {
  const input = stripControl(html);
  // Plain text may still carry entities ("Talks &amp; labs"): let the sanitizer decode and
  // re-encode them, so text and HTML descriptions come out encoded the same way.
  const markup = looksLikeHtml(input) ? input : textToHtml(input).replace(/&amp;/g, '&');
  return stripControl(sanitize(markup, optionsFor(ctx, baseUrl)));
}
