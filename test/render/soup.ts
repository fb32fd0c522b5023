// Random HTML and text for differential tests: tags allowed and not, raw-text and void elements,
// unclosed and stray tags, attributes with every kind of URL, entities (valid, invalid, numeric,
// control, surrogate), odd whitespace, controls and lone surrogates. Seeded, so failures repeat.

export function seeded(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => (s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0) / 4_294_967_296;
}

const TAGS = [
  'p', 'div', 'a', 'b', 'i', 'em', 'strong', 'br', 'hr', 'img', 'ul', 'ol', 'li', 'table', 'tr', 'td', 'th', 'tbody', 'thead',
  'pre', 'code', 'span', 'h1', 'h2', 'h3', 'blockquote', 'dl', 'dt', 'dd', 'figure', 'figcaption', 'caption', 'section',
  'article', 'script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'svg', 'math', 'xmp', 'textarea',
  'select', 'option', 'title', 'head', 'font', 'center', 'u', 's', 'small', 'sub', 'sup', 'time', 'abbr', 'q', 'cite',
  'mark', 'del', 'ins', 'kbd', 'dfn', 'form', 'input', 'button', 'video', 'source', 'picture', 'body', 'html', 'meta',
  'link', 'base', 'plaintext', 'noembed', 'noframes', 'foreignObject', 'desc', 'mi', 'p', 'a', 'a', 'li', 'br', 'img',
];
const ATTRIBUTES = [
  'href', 'src', 'alt', 'title', 'rel', 'width', 'height', 'colspan', 'rowspan', 'scope', 'start', 'reversed', 'datetime',
  'style', 'class', 'id', 'onclick', 'onerror', 'target', 'name', 'srcset', 'cite', 'data-x', 'xlink:href', 'on"x', 'a<b',
  'HREF', 'Src', "x'y", '=', '/', '1', '__proto__',
];
const URLS = [
  'https://example.org/a?b=1&c=2', 'http://x.test', '/relative/path', 'relative', '#frag', '?q=1', 'javascript:alert(1)',
  'JaVaScRiPt:alert(1)', 'jav&#9;ascript:alert(1)', 'java\tscript:x', 'data:text/html,x', 'vbscript:x', 'mailto:a@b.c',
  'tel:+123', 'ftp://f.test/x', '//proto.rel/x', '\\\\back\\slash', '  https://trim.me/  ', 'https://exa mple.org',
  'http://[::1]/', 'https://ünï.example/ä?ö', '', '&#106;avascript:x', 'https://x.test/&quot;"<>', '%20', 'https://a.b/#x y',
  'mailto:', 'HTTPS://UPPER.CASE/X',
];
const PIECES = [
  'Talk', 'lecture', '&amp;', '&lt;script&gt;', '&nbsp;', '&#160;', '&#x2028;', '&#1;', '&#0;', '&#x7f;', '&#128;', '&bogus;',
  '&amp', '& ', '<', '>', '"', "'", '\u00a0', '\u2003', '\u3000', '\ufeff', '\u200b', '\u0085', '\r\n', '\r', '\n', '\n\n\n',
  '\t', '  ', '   ', '\v', '\f', '\u0001', '\u001f', '\u007f', '\uD800', '\uDC00', '😀', 'Čiurlionio', '日本', 'ąčęėįšųūž',
  'x]]>y', '- item', '(url)', 'http://bare.link/x', '—', '…', '\u2028', '\u2029', '&#x1F600;', '&#xD800;', '&#65;', '&copy;',
  '&notin;', '&notit;', '<!-- c -->', '<![CDATA[x]]>', '<?pi x?>', '<!DOCTYPE html>', '</p>', '</br>', '</a>', '</div>',
  '<p/>', '<div/>', '<br/>', '<img/>', '<a/>', '</>', '<>', '< p>', '<P>', '<DIV>', '</P>', '<A HREF="https://x.test">',
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function words(random: () => number, max: number): string {
  let text = '';
  const n = 1 + Math.floor(random() * max);
  for (let i = 0; i < n; i++) text += (random() < 0.5 ? pick(random, PIECES) : pick(random, ['word', ' ', 'text', '  ', 'a'])) + (random() < 0.5 ? ' ' : '');
  return text;
}

/** Random HTML: nested elements (up to 4 deep), attributes, text; roughly 40 nodes at most. */
export function htmlSoup(random: () => number, depth = 0, budget = { nodes: 40 }): string {
  let html = '';
  const n = 1 + Math.floor(random() * 6);
  for (let k = 0; k < n && budget.nodes-- > 0; k++) {
    if (random() < 0.45) {
      html += words(random, 5);
      continue;
    }
    const tag = pick(random, TAGS);
    let attributes = '';
    const count = Math.floor(random() * 4);
    for (let j = 0; j < count; j++) {
      const name = random() < 0.5 ? pick(random, ['href', 'src', 'alt', 'title']) : pick(random, ATTRIBUTES);
      const value = ['href', 'src', 'cite'].includes(name.toLowerCase()) ? pick(random, URLS) : pick(random, PIECES);
      const quoting = random();
      attributes +=
        ' ' + name +
        (quoting < 0.15 ? '' : quoting < 0.6 ? `="${value.replace(/"/g, '&quot;')}"` : quoting < 0.8 ? `='${value.replace(/'/g, '&#39;')}'` : `=${value.replace(/[\s>]/g, '')}`);
    }
    html += `<${random() < 0.1 ? tag.toUpperCase() : tag}${attributes}${random() < 0.08 ? '/' : ''}>`;
    if (depth < 4 && random() < 0.8) html += htmlSoup(random, depth + 1, budget);
    if (random() < 0.85) html += `</${random() < 0.1 ? tag.toUpperCase() : tag}>`;
  }
  return html;
}

/** Random text without tags (entities, line breaks and odd whitespace included). */
export function textSoup(random: () => number): string {
  let text = '';
  const n = 1 + Math.floor(random() * 12);
  for (let i = 0; i < n; i++) {
    text += random() < 0.4 ? pick(random, PIECES).replace(/</g, '') : pick(random, ['word', ' ', 'text', '  ', '\n', '\n\n', '\r\n', ' \n ', 'a']);
  }
  return text;
}
