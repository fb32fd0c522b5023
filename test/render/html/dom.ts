// A few DOM helpers over htmlparser2 (the parser browsers' rules are closest to among those
// installed), so tests can assert on elements and text rather than on raw strings.

import { DomUtils, parseDocument } from 'htmlparser2';
import type { Document, Element } from 'domhandler';

export type { Element };

export function parse(html: string): Document {
  return parseDocument(html);
}

/** Every element matching a tag name and optional attribute values (undefined = must exist). */
export function select(doc: Document | Element, tag: string, attrs: Record<string, string | true> = {}): Element[] {
  return DomUtils.findAll(
    (el) =>
      (tag === '*' || el.name === tag) &&
      Object.entries(attrs).every(([name, want]) => (want === true ? el.attribs[name] !== undefined : el.attribs[name] === want)),
    'children' in doc ? doc.children : [],
  );
}

/** Elements whose class list contains a class. */
export function byClass(doc: Document | Element, cls: string): Element[] {
  return DomUtils.findAll((el) => (el.attribs.class ?? '').split(/\s+/).includes(cls), doc.children);
}

export function text(el: Element): string {
  return DomUtils.textContent(el);
}

export function one<T>(list: T[], what = 'element'): T {
  if (list.length !== 1) throw new Error(`expected exactly one ${what}, found ${list.length}`);
  return list[0]!;
}
