import { describe, expect, it } from 'vitest';
import { sanitizeHtml } from '../../../src/render/sanitize.js';
import { htmlToText, stripControl } from '../../../src/render/text.js';
import { createRenderContext } from '../../../src/render/context.js';

const ctx = createRenderContext();

// Attack vectors from issue 7 (and the classic ones around them). None may leave anything
// executable, styled or pointing at a script URL.
const ATTACKS: [string, string][] = [
  ['script element', '<p>hi</p><script>alert(1)</script>'],
  ['script with odd case and attributes', '<ScRiPt type="text/javascript" src="https://evil.example/x.js"></ScRiPt>'],
  ['style element', '<style>body{display:none}</style><p>x</p>'],
  ['iframe', '<iframe src="https://evil.example/" srcdoc="<script>alert(1)</script>"></iframe>'],
  ['object', '<object data="https://evil.example/x.swf"><param name="x" value="y"></object>'],
  ['embed', '<embed src="https://evil.example/x.swf">'],
  ['form and input', '<form action="https://evil.example/steal"><input name="password" type="password"><button formaction="javascript:alert(1)">go</button></form>'],
  ['svg with onload', '<svg onload="alert(1)"><script>alert(2)</script><a xlink:href="javascript:alert(3)">x</a></svg>'],
  ['math with javascript link', '<math><mi xlink:href="javascript:alert(1)">x</mi></math>'],
  ['img onerror', '<img src="x" onerror="alert(1)">'],
  ['event handler on allowed tag', '<p onclick="alert(1)" onmouseover="alert(2)">click</p>'],
  ['style attribute', '<p style="background:url(javascript:alert(1))">styled</p>'],
  ['javascript: link', '<a href="javascript:alert(1)">j</a>'],
  ['mixed-case javascript: link', '<a href="JaVaScRiPt:alert(1)">j</a>'],
  ['entity-obfuscated javascript: link', '<a href="jav&#x09;ascript:alert(1)">j</a><a href="&#106;avascript:alert(1)">k</a>'],
  ['leading-space javascript: link', '<a href="  javascript:alert(1)">j</a>'],
  ['vbscript: link', '<a href="vbscript:msgbox(1)">v</a>'],
  ['data: link', '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">d</a>'],
  ['data: image', '<img src="data:image/svg+xml;base64,PHN2Zy8+">'],
  ['noscript mutation', '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>'],
  ['meta refresh and base', '<meta http-equiv="refresh" content="0;url=javascript:alert(1)"><base href="javascript:alert(1)//">'],
  ['link stylesheet', '<link rel="stylesheet" href="https://evil.example/x.css">'],
  ['template', '<template><script>alert(1)</script></template>'],
  ['comment trick', '<!--<script>alert(1)</script>--><p>ok</p>'],
  ['unclosed attribute', '<a href="https://x.example/" onclick="alert(1)'],
  ['textarea breakout', '<textarea></textarea><script>alert(1)</script>'],
];

const FORBIDDEN = /<(script|style|iframe|object|embed|form|input|button|svg|math|meta|base|link|template|noscript|textarea)\b|\son\w+\s*=|javascript:|vbscript:|data:|style\s*=|srcdoc/i;

describe('sanitizeHtml: attack vectors', () => {
  it.each(ATTACKS)('removes %s', (_name, html) => {
    const out = sanitizeHtml(ctx, html);
    expect(out).not.toMatch(FORBIDDEN);
    // Nothing executable comes back when the result is sanitized again (the allowlist is stable).
    expect(sanitizeHtml(ctx, out)).not.toMatch(FORBIDDEN);
  });

  it('keeps the harmless content around the attacks', () => {
    expect(sanitizeHtml(ctx, '<p onclick="alert(1)" onmouseover="alert(2)">click</p>')).toBe('<p>click</p>');
    expect(sanitizeHtml(ctx, '<p style="color:red">styled</p>')).toBe('<p>styled</p>');
    expect(sanitizeHtml(ctx, '<p>hi</p><script>alert(1)</script>')).toBe('<p>hi</p>');
    expect(sanitizeHtml(ctx, '<a href="javascript:alert(1)">j</a>')).toBe('<a rel="noopener nofollow ugc">j</a>');
  });
});

describe('sanitizeHtml: what is kept', () => {
  const cases: [string, string, string | undefined, string][] = [
    ['formatting', '<p>A <b>bold</b>, <em>em</em> and <code>code</code></p>', undefined, '<p>A <b>bold</b>, <em>em</em> and <code>code</code></p>'],
    ['lists', '<ul><li>one</li><li>two</li></ul>', undefined, '<ul><li>one</li><li>two</li></ul>'],
    ['http link gets rel', '<a href="https://example.edu/x" target="_blank">x</a>', undefined, '<a href="https://example.edu/x" rel="noopener nofollow ugc">x</a>'],
    ['portal rel is replaced', '<a href="https://example.edu/" rel="opener">x</a>', undefined, '<a href="https://example.edu/" rel="noopener nofollow ugc">x</a>'],
    ['mailto and tel', '<a href="mailto:ada@example.edu">m</a><a href="tel:+37012345">t</a>', undefined, '<a href="mailto:ada@example.edu" rel="noopener nofollow ugc">m</a><a href="tel:+37012345" rel="noopener nofollow ugc">t</a>'],
    ['relative link with a base', '<a href="/events/7?x=1">r</a>', 'https://portal.example.edu/calendars/a', '<a href="https://portal.example.edu/events/7?x=1" rel="noopener nofollow ugc">r</a>'],
    ['protocol-relative link with a base', '<a href="//cdn.example.edu/a">p</a>', 'https://portal.example.edu/', '<a href="https://cdn.example.edu/a" rel="noopener nofollow ugc">p</a>'],
    ['relative link without a base', '<a href="/events/7">r</a>', undefined, '<a rel="noopener nofollow ugc">r</a>'],
    ['protocol-relative link without a base', '<a href="//evil.example/">p</a>', undefined, '<a rel="noopener nofollow ugc">p</a>'],
    ['https image', '<img src="https://example.edu/a.png" alt="A" onerror="x">', undefined, '<img src="https://example.edu/a.png" alt="A" />'],
    ['relative image with a base', '<img src="a.png" alt="A">', 'https://portal.example.edu/e/', '<img src="https://portal.example.edu/e/a.png" alt="A" />'],
    ['image without usable src', '<p>x<img src="javascript:alert(1)"></p>', undefined, '<p>x</p>'],
    ['class and id dropped', '<p class="x" id="y">p</p>', undefined, '<p>p</p>'],
    ['entities stay encoded', '<p>Talks, labs &amp; open days &lt;3</p>', undefined, '<p>Talks, labs &amp; open days &lt;3</p>'],
    ['CDATA end in text', '<p>a ]]> b</p>', undefined, '<p>a ]]&gt; b</p>'],
  ];
  it.each(cases)('%s', (_name, html, base, expected) => {
    expect(sanitizeHtml(ctx, html, base)).toBe(expected);
  });
});

describe('sanitizeHtml: plain text', () => {
  it.each([
    ['escapes and wraps in a paragraph', 'Fish & chips < 5 €', '<p>Fish &amp; chips &lt; 5 €</p>'],
    ['single newlines become <br>', 'Line 1\nLine 2', '<p>Line 1<br />Line 2</p>'],
    ['blank lines become paragraphs', 'One\r\n\r\nTwo\n\n\nThree', '<p>One</p><p>Two</p><p>Three</p>'],
    ['existing entities are not double-encoded', 'Talks &amp; labs', '<p>Talks &amp; labs</p>'],
    ['quotes survive', 'He said "hi" & \'bye\'', '<p>He said "hi" &amp; \'bye\'</p>'],
    ['empty text gives nothing', '  \n ', ''],
  ])('%s', (_name, input, expected) => {
    expect(sanitizeHtml(ctx, input)).toBe(expected);
  });

  it('removes control and XML-illegal characters', () => {
    expect(sanitizeHtml(ctx, 'a\u0000b\u0007c\u001bd\u007fe\u0085f\uFFFEg\uD800h')).toBe('<p>abcdefgh</p>');
    expect(sanitizeHtml(ctx, '<p>a\u0000b\u000bc</p>')).toBe('<p>abc</p>');
  });
});

describe('htmlToText', () => {
  it.each([
    ['paragraphs', '<p>One</p><p>Two</p>', 'One\n\nTwo'],
    ['line breaks', 'a<br>b<br/>c', 'a\nb\nc'],
    ['headings and divs', '<h2>Title</h2><div>Body</div>', 'Title\n\nBody'],
    ['lists as "- " lines', '<ul><li>a</li><li>b <b>c</b></li></ul><p>after</p>', '- a\n- b c\n\nafter'],
    ['link with text', 'See <a href="https://x.example/a">the site</a>.', 'See the site (https://x.example/a).'],
    ['link whose text is the url', '<a href="https://x.example/a">https://x.example/a</a>', 'https://x.example/a'],
    ['mailto whose text is the address', '<a href="mailto:ada@example.edu">ada@example.edu</a>', 'ada@example.edu'],
    ['javascript link keeps only its text', '<a href="javascript:alert(1)">click</a>', 'click'],
    ['relative link keeps only its text', '<a href="/x">here</a>', 'here'],
    ['entities decoded', '<p>&amp; &lt;b&gt; &eacute; &#x1F600; &nbsp;x</p>', '& <b> é 😀 x'],
    ['whitespace collapsed', '<p>  lots \n\t of   space  </p>', 'lots of space'],
    ['script and style dropped', '<style>p{}</style><script>alert(1)</script><p>ok</p>', 'ok'],
    ['plain text keeps its lines', 'Line 1\nLine 2\n\n\n\nLine 3', 'Line 1\nLine 2\n\nLine 3'],
    ['plain text entities decoded', 'Talks &amp; labs', 'Talks & labs'],
    ['pre keeps line breaks', '<pre>a\n  b</pre>', 'a\nb'],
    ['image alt text', '<p>Map: <img src="m.png" alt="campus map"></p>', 'Map: campus map'],
    ['table cells', '<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>', 'a b\nc'],
    ['control characters removed', '<p>a\u0000b\u0007c\u0085d</p>', 'abcd'],
    ['empty', '', ''],
  ])('%s', (_name, html, expected) => {
    expect(htmlToText(ctx, html)).toBe(expected);
  });
});

describe('stripControl', () => {
  it.each([
    ['keeps tab, LF, CR', 'a\tb\nc\rd', 'a\tb\nc\rd'],
    ['drops C0 controls', 'a\u0000\u0001\u0008\u000b\u000c\u000e\u001fb', 'ab'],
    ['drops DEL and C1 controls', 'a\u007f\u0080\u0085\u009fb', 'ab'],
    ['drops U+FFFE and U+FFFF', 'a\uFFFE\uFFFFb', 'ab'],
    ['drops lone surrogates, keeps pairs', 'a\uD800b\uDC00c😀', 'abc😀'],
    ['keeps ordinary Unicode', 'Ąžuolas 日本語 — “quotes”', 'Ąžuolas 日本語 — “quotes”'],
  ])('%s', (_name, input, expected) => {
    expect(stripControl(input)).toBe(expected);
  });
});
