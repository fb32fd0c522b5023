// A small XML 1.0 well-formedness checker for verify. The XML parsers in node_modules are dev
// dependencies, and verify only needs a yes/no with a line number: one root element, balanced and
// properly nested tags, quoted unique attributes, valid references, legal characters, sane
// comments and CDATA. Documents with an internal DTD subset are not supported (calfeed never
// writes one); entity references other than the five predefined ones are errors.

import { isWellFormed } from '../safe-text.js';

const NAME = /[A-Za-z_:\u00C0-\uFFFF][-A-Za-z0-9._:\u00B7\u00C0-\uFFFF]*/y;
const SPACE = /[ \t\r\n]*/y;
// XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
// eslint-disable-next-line no-control-regex
const ILLEGAL_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
// The same for a string with no lone surrogate (every surrogate is then half of a legal pair):
// without the `u` flag V8 scans about 3 times as fast, and every feed is checked as it is written.
// eslint-disable-next-line no-control-regex
const ILLEGAL_UNIT = /[^\t\n\r\u0020-\uFFFD]/;
const REFERENCE = /&(?:(lt|gt|amp|quot|apos)|#([0-9]+)|#x([0-9a-fA-F]+));/y;

class XmlError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

/** Why text is not well-formed XML (with a line number), or undefined if it is. */
export function xmlProblem(text: string): string | undefined {
  const illegal = (isWellFormed(text) ? ILLEGAL_UNIT : ILLEGAL_CHAR).exec(text);
  if (illegal) return `line ${lineOf(text, illegal.index)}: character U+${illegal[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} is not allowed in XML`;
  try {
    new Checker(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).document();
    return undefined;
  } catch (error) {
    if (error instanceof XmlError) return `line ${lineOf(text, error.at)}: ${error.message}`;
    throw error;
  }
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

class Checker {
  private i = 0;
  constructor(private readonly s: string) {}

  document(): void {
    if (this.s.startsWith('<?xml')) this.pi();
    this.misc();
    if (this.s.startsWith('<!DOCTYPE', this.i)) {
      this.doctype();
      this.misc();
    }
    if (this.s[this.i] !== '<') this.fail('expected the root element');
    this.element();
    this.misc();
    if (this.i < this.s.length) this.fail('content after the root element');
  }

  private fail(message: string): never {
    throw new XmlError(message, this.i);
  }

  private space(): number {
    SPACE.lastIndex = this.i;
    SPACE.exec(this.s);
    const n = SPACE.lastIndex - this.i;
    this.i = SPACE.lastIndex;
    return n;
  }

  private name(): string {
    NAME.lastIndex = this.i;
    const m = NAME.exec(this.s);
    if (!m) this.fail('expected a name');
    this.i = NAME.lastIndex;
    return m[0];
  }

  // Comments, processing instructions and white space, allowed around the root element.
  private misc(): void {
    for (;;) {
      this.space();
      if (this.s.startsWith('<!--', this.i)) this.comment();
      else if (this.s.startsWith('<?', this.i)) this.pi();
      else return;
    }
  }

  private comment(): void {
    const end = this.s.indexOf('-->', this.i + 4);
    if (end < 0) this.fail('unclosed comment');
    if (this.s.slice(this.i + 4, end).includes('--') || this.s[end - 1] === '-') this.fail("'--' inside a comment");
    this.i = end + 3;
  }

  private pi(): void {
    const end = this.s.indexOf('?>', this.i + 2);
    if (end < 0) this.fail('unclosed processing instruction');
    this.i += 2;
    this.name();
    this.i = end + 2;
  }

  private doctype(): void {
    const end = this.s.indexOf('>', this.i);
    if (end < 0) this.fail('unclosed DOCTYPE');
    if (this.s.slice(this.i, end).includes('[')) this.fail('DOCTYPE with an internal subset is not supported');
    this.i = end + 1;
  }

  private element(): void {
    const stack: string[] = [];
    this.startTag(stack);
    if (stack.length > 0) this.content(stack);
  }

  private attributeValue(): void {
    const quote = this.s[this.i];
    if (quote !== '"' && quote !== "'") this.fail('attribute value not quoted');
    const end = this.s.indexOf(quote, this.i + 1);
    if (end < 0) this.fail('unclosed attribute value');
    this.i++;
    while (this.i < end) {
      const c = this.s[this.i];
      if (c === '<') this.fail("'<' in an attribute value");
      if (c === '&') this.reference();
      else this.i++;
    }
    this.i = end + 1;
  }

  private reference(): void {
    REFERENCE.lastIndex = this.i;
    const m = REFERENCE.exec(this.s);
    if (!m) this.fail("'&' that does not start a valid reference (write &amp;)");
    if (m[1] === undefined) {
      const code = m[2] !== undefined ? Number.parseInt(m[2], 10) : Number.parseInt(m[3]!, 16);
      const legal = code === 9 || code === 10 || code === 13 || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);
      if (!legal) this.fail(`character reference ${m[0]} is not an XML character`);
    }
    this.i = REFERENCE.lastIndex;
  }

  // Element content up to the matching end tag, or up to a child start tag (pushed by element()).
  private content(stack: string[]): void {
    for (;;) {
      const lt = this.s.indexOf('<', this.i);
      if (lt < 0) this.fail(`unclosed element <${stack[stack.length - 1]}>`);
      this.text(lt);
      if (this.s.startsWith('</', this.i)) {
        this.i += 2;
        const tag = this.name();
        this.space();
        if (this.s[this.i] !== '>') this.fail(`malformed end tag </${tag}>`);
        const open = stack.pop();
        if (open !== tag) this.fail(`end tag </${tag}> does not match <${open}>`);
        this.i++;
        if (stack.length === 0) return;
      } else if (this.s.startsWith('<!--', this.i)) {
        this.comment();
      } else if (this.s.startsWith('<![CDATA[', this.i)) {
        const end = this.s.indexOf(']]>', this.i + 9);
        if (end < 0) this.fail('unclosed CDATA section');
        this.i = end + 3;
      } else if (this.s.startsWith('<?', this.i)) {
        this.pi();
      } else {
        // An explicit stack instead of recursion: deeply nested hostile markup cannot overflow it.
        this.startTag(stack);
      }
    }
  }

  // A start tag or empty-element tag; an open element is pushed on the stack.
  private startTag(stack: string[]): void {
    this.i++;
    const tag = this.name();
    const seen = new Set<string>();
    for (;;) {
      const hadSpace = this.space() > 0;
      const c = this.s[this.i];
      if (c === '>' || c === '/') break;
      if (c === undefined) this.fail(`unclosed tag <${tag}>`);
      if (!hadSpace) this.fail(`expected white space before an attribute of <${tag}>`);
      const attr = this.name();
      if (seen.has(attr)) this.fail(`duplicate attribute ${attr} on <${tag}>`);
      seen.add(attr);
      this.space();
      if (this.s[this.i] !== '=') this.fail(`attribute ${attr} has no value`);
      this.i++;
      this.space();
      this.attributeValue();
    }
    if (this.s.startsWith('/>', this.i)) this.i += 2;
    else if (this.s[this.i] === '>') {
      this.i++;
      stack.push(tag);
    } else this.fail(`malformed tag <${tag}>`);
  }

  // Character data between this.i and end: no ']]>', and every '&' starts a valid reference.
  private text(end: number): void {
    const start = this.i;
    const segment = this.s.slice(start, end);
    const bad = segment.indexOf(']]>');
    if (bad >= 0) {
      this.i = start + bad;
      this.fail("']]>' in text");
    }
    let amp = segment.indexOf('&');
    while (amp >= 0) {
      this.i = start + amp;
      this.reference();
      amp = segment.indexOf('&', this.i - start);
    }
    this.i = end;
  }
}
