// A small XML 1.0 well-formedness checker for the content checks and verify. The XML parsers in
// node_modules are dev dependencies, and a yes/no with a line number is all that is needed: one
// root element, balanced and properly nested tags, quoted unique attributes, valid references,
// legal characters, sane comments and CDATA. Documents with an internal DTD subset are not
// supported (calfeed never writes one); entity references other than the five predefined ones are
// errors. It reads the file's UTF-8 bytes as they are: a feed of a megabyte decoded into a string
// to be checked would be a fresh allocation of twice that, for every feed of every build.

const LT = 0x3c;
const GT = 0x3e;
const AMP = 0x26;
const SLASH = 0x2f;
const EQUALS = 0x3d;
const SEMICOLON = 0x3b;
const HASH = 0x23;
const LINE_FEED = 0x0a;

class XmlError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

/**
 * Why UTF-8 bytes are not well-formed XML (with a line number), or undefined if they are. The
 * bytes must be valid UTF-8 (the caller checks that first), so they hold no lone surrogate.
 */
export function xmlProblem(bytes: Uint8Array): string | undefined {
  const s = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const illegal = firstIllegal(s);
  if (illegal) return `line ${lineOf(s, illegal.at)}: character U+${illegal.code.toString(16).toUpperCase().padStart(4, '0')} is not allowed in XML`;
  try {
    new Checker(s).document();
    return undefined;
  } catch (error) {
    if (error instanceof XmlError) return `line ${lineOf(s, error.at)}: ${error.message}`;
    throw error;
  }
}

// XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]. In valid
// UTF-8 (no surrogates) what is left out is C0 controls but tab, LF and CR, and U+FFFE and U+FFFF.
function firstIllegal(s: Buffer): { at: number; code: number } | undefined {
  for (let i = 0; i < s.length; i++) {
    const b = s[i]!;
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return { at: i, code: b };
    if (b === 0xef && s[i + 1] === 0xbf && (s[i + 2] === 0xbe || s[i + 2] === 0xbf)) return { at: i, code: 0xfffe + s[i + 2]! - 0xbe };
  }
  return undefined;
}

function lineOf(s: Buffer, index: number): number {
  let line = 1;
  for (let i = 0; i < index && i < s.length; i++) if (s[i] === LINE_FEED) line++;
  return line;
}

// Names are held as Latin-1 strings of their bytes (equal exactly when the bytes are) and decoded
// only to word a problem.
const shown = (name: string): string => Buffer.from(name, 'latin1').toString('utf8');
const isSpace = (b: number | undefined): boolean => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
const isLetter = (b: number): boolean => (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
const isDigit = (b: number | undefined): b is number => b !== undefined && b >= 0x30 && b <= 0x39;
const isHexDigit = (b: number | undefined): b is number => isDigit(b) || (b !== undefined && ((b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)));
// A character from U+00C0 up (as a name may hold) starts with a byte from 0xC3 up.
const isNameStart = (b: number): boolean => isLetter(b) || b === 0x5f || b === 0x3a || b >= 0xc3;
const digitValue = (b: number): number => (b <= 0x39 ? b - 0x30 : (b | 0x20) - 0x57);
const PREDEFINED = ['lt;', 'gt;', 'amp;', 'quot;', 'apos;'];

class Checker {
  private i: number;
  constructor(private readonly s: Buffer) {
    this.i = s[0] === 0xef && s[1] === 0xbb && s[2] === 0xbf ? 3 : 0;
  }

  document(): void {
    if (this.has('<?xml')) this.pi();
    this.misc();
    if (this.has('<!DOCTYPE')) {
      this.doctype();
      this.misc();
    }
    if (this.s[this.i] !== LT) this.fail('expected the root element');
    this.element();
    this.misc();
    if (this.i < this.s.length) this.fail('content after the root element');
  }

  private fail(message: string): never {
    throw new XmlError(message, this.i);
  }

  // Whether the ASCII text `literal` is at `at`.
  private has(literal: string, at = this.i): boolean {
    for (let k = 0; k < literal.length; k++) if (this.s[at + k] !== literal.charCodeAt(k)) return false;
    return true;
  }

  private space(): number {
    const from = this.i;
    while (isSpace(this.s[this.i])) this.i++;
    return this.i - from;
  }

  // [A-Za-z_:\u00C0-\uFFFF][-A-Za-z0-9._:\u00B7\u00C0-\uFFFF]*, over UTF-8.
  private name(): string {
    const { s } = this;
    const from = this.i;
    const first = s[this.i];
    if (first === undefined || !isNameStart(first)) this.fail('expected a name');
    for (;;) {
      const b = s[this.i];
      if (b === undefined) break;
      if (b >= 0xc3) {
        this.i++;
        while (s[this.i] !== undefined && s[this.i]! >= 0x80 && s[this.i]! < 0xc0) this.i++;
      } else if (b === 0xc2 && s[this.i + 1] === 0xb7 && this.i > from) this.i += 2;
      else if (this.i > from ? isLetter(b) || isDigit(b) || b === 0x2d || b === 0x2e || b === 0x5f || b === 0x3a : isNameStart(b)) this.i++;
      else break;
    }
    return s.toString('latin1', from, this.i);
  }

  // Comments, processing instructions and white space, allowed around the root element.
  private misc(): void {
    for (;;) {
      this.space();
      if (this.has('<!--')) this.comment();
      else if (this.has('<?')) this.pi();
      else return;
    }
  }

  private comment(): void {
    const end = this.s.indexOf('-->', this.i + 4);
    if (end < 0) this.fail('unclosed comment');
    const dashes = this.s.indexOf('--', this.i + 4);
    if ((dashes >= 0 && dashes < end) || this.s[end - 1] === 0x2d) this.fail("'--' inside a comment");
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
    const end = this.s.indexOf(GT, this.i);
    if (end < 0) this.fail('unclosed DOCTYPE');
    const bracket = this.s.indexOf(0x5b, this.i);
    if (bracket >= 0 && bracket < end) this.fail('DOCTYPE with an internal subset is not supported');
    this.i = end + 1;
  }

  private element(): void {
    const stack: string[] = [];
    this.startTag(stack);
    if (stack.length > 0) this.content(stack);
  }

  private attributeValue(): void {
    const quote = this.s[this.i];
    if (quote !== 0x22 && quote !== 0x27) this.fail('attribute value not quoted');
    const end = this.s.indexOf(quote, this.i + 1);
    if (end < 0) this.fail('unclosed attribute value');
    this.i++;
    while (this.i < end) {
      const c = this.s[this.i];
      if (c === LT) this.fail("'<' in an attribute value");
      if (c === AMP) this.reference();
      else this.i++;
    }
    this.i = end + 1;
  }

  // &(lt|gt|amp|quot|apos); or &#[0-9]+; or &#x[0-9a-fA-F]+;, the character one XML allows.
  private reference(): void {
    const { s } = this;
    const from = this.i;
    let at = from + 1;
    if (s[at] === HASH) {
      const hex = s[at + 1] === 0x78;
      at += hex ? 2 : 1;
      const digitsFrom = at;
      let code = 0;
      while (hex ? isHexDigit(s[at]) : isDigit(s[at])) {
        // Past the last code point the value no longer matters, only that it is too large.
        if (code <= 0x10ffff) code = code * (hex ? 16 : 10) + digitValue(s[at]!);
        at++;
      }
      if (at === digitsFrom || s[at] !== SEMICOLON) this.fail("'&' that does not start a valid reference (write &amp;)");
      const legal = code === 9 || code === 10 || code === 13 || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);
      if (!legal) this.fail(`character reference ${s.toString('latin1', from, at + 1)} is not an XML character`);
      this.i = at + 1;
      return;
    }
    for (const entity of PREDEFINED) {
      if (this.has(entity, at)) {
        this.i = at + entity.length;
        return;
      }
    }
    this.fail("'&' that does not start a valid reference (write &amp;)");
  }

  // Element content up to the matching end tag, or up to a child start tag (pushed by element()).
  private content(stack: string[]): void {
    for (;;) {
      const lt = this.s.indexOf(LT, this.i);
      if (lt < 0) this.fail(`unclosed element <${shown(stack[stack.length - 1]!)}>`);
      this.text(lt);
      if (this.has('</')) {
        this.i += 2;
        const tag = this.name();
        this.space();
        if (this.s[this.i] !== GT) this.fail(`malformed end tag </${shown(tag)}>`);
        const open = stack.pop()!;
        if (open !== tag) this.fail(`end tag </${shown(tag)}> does not match <${shown(open)}>`);
        this.i++;
        if (stack.length === 0) return;
      } else if (this.has('<!--')) {
        this.comment();
      } else if (this.has('<![CDATA[')) {
        const end = this.s.indexOf(']]>', this.i + 9);
        if (end < 0) this.fail('unclosed CDATA section');
        this.i = end + 3;
      } else if (this.has('<?')) {
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
    const seen: string[] = [];
    for (;;) {
      const hadSpace = this.space() > 0;
      const c = this.s[this.i];
      if (c === GT || c === SLASH) break;
      if (c === undefined) this.fail(`unclosed tag <${shown(tag)}>`);
      if (!hadSpace) this.fail(`expected white space before an attribute of <${shown(tag)}>`);
      const attr = this.name();
      if (seen.includes(attr)) this.fail(`duplicate attribute ${shown(attr)} on <${shown(tag)}>`);
      seen.push(attr);
      this.space();
      if (this.s[this.i] !== EQUALS) this.fail(`attribute ${shown(attr)} has no value`);
      this.i++;
      this.space();
      this.attributeValue();
    }
    if (this.has('/>')) this.i += 2;
    else if (this.s[this.i] === GT) {
      this.i++;
      stack.push(tag);
    } else this.fail(`malformed tag <${shown(tag)}>`);
  }

  // Character data between this.i and end: no ']]>', and every '&' starts a valid reference.
  private text(end: number): void {
    const { s } = this;
    const start = this.i;
    for (let k = start; k + 2 < end; k++) {
      if (s[k] === 0x5d && s[k + 1] === 0x5d && s[k + 2] === GT) {
        this.i = k;
        this.fail("']]>' in text");
      }
    }
    for (let k = start; k < end; ) {
      if (s[k] !== AMP) {
        k++;
        continue;
      }
      this.i = k;
      this.reference();
      k = this.i;
    }
    this.i = end;
  }
}
