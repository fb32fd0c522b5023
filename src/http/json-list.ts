// Reading a list body without its whole object tree in memory: the body is parsed with every object
// or array inside an array left empty, its shape (all findList and the paging rules look at), and
// an array's entries stay byte ranges of the body, each parsed when asked for. Every value is
// parsed once on the way, so a body JSON.parse rejects is never taken; the caller parses it whole.

import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE, bomLength, isJsonSpace, jsonTextOf, skipJsonSpace } from '../json-bytes.js';
import { MAX_JSON_DEPTH } from './json-text.js';
import { ListEntries } from './list-entries.js';

export { ListEntries };

/** A list body as read by readJsonList. */
export interface JsonList {
  /** The body as JSON.parse gives it, except that objects and arrays inside arrays may be empty. */
  readonly shape: unknown;
  /** The entries of the array at `path` (keys of objects), or undefined when the shape cannot tell them. */
  entriesAt(path: readonly string[]): ListEntries | undefined;
  /** The body with the array at `path` replaced by `value` (the envelope of a merged list), or undefined as for entriesAt. */
  replaced(path: readonly string[], value: unknown): unknown;
  /** The body as JSON.parse gives it. */
  full(): unknown;
}

/** The body read as a list, in shape if it can be, else whole; throws JSON.parse's error when it is not JSON. */
export function readJsonList(bytes: Buffer): JsonList {
  return shapeOf(bytes) ?? parsedList(JSON.parse(jsonTextOf(bytes)));
}

/** A JsonList of a value parsed whole: the caller takes what it needs from full(). */
export function parsedList(json: unknown): JsonList {
  return { shape: json, entriesAt: () => undefined, replaced: () => undefined, full: () => json };
}

/** The body read in shape, or undefined when it is not plain JSON by this reader's rules (nested too deep included). */
export function shapeOf(bytes: Buffer): JsonList | undefined {
  const reader = new ShapeReader(bytes);
  let root: Node;
  let text: string;
  try {
    reader.skipSpace();
    root = reader.value(0);
    reader.skipSpace();
    if (reader.pos !== bytes.length) return undefined;
    text = reader.out.join('');
  } catch (error) {
    if (error === NOT_SHAPED || error instanceof SyntaxError) return undefined;
    throw error;
  }
  reader.out = [];
  let shape: unknown;
  try {
    shape = JSON.parse(text);
  } catch {
    return undefined;
  }
  return {
    shape,
    entriesAt(path) {
      const node = nodeAt(root, path);
      return node instanceof ArrayNode ? ListEntries.inBody(bytes, Float64Array.from(node.bounds)) : undefined;
    },
    replaced(path, value) {
      const node = nodeAt(root, path);
      if (!(node instanceof ArrayNode)) return undefined;
      const before = bytes.toString('utf8', bomLength(bytes), node.start);
      return JSON.parse(before + JSON.stringify(value) + bytes.toString('utf8', node.end));
    },
    full: () => JSON.parse(jsonTextOf(bytes)),
  };
}

/** What the reader remembers of a value: an object's members by key (the last of a key wins, as in JSON.parse), an array's elements' byte ranges. */
type Node = ObjectNode | ArrayNode | undefined;

class ObjectNode {
  readonly members = new Map<string, Node>();
}

class ArrayNode {
  /** Start and end of each element, in turn. */
  readonly bounds: number[] = [];
  end = 0;
  constructor(readonly start: number) {}
}

function nodeAt(root: Node, path: readonly string[]): Node {
  let node = root;
  for (const key of path) {
    if (!(node instanceof ObjectNode)) return undefined;
    node = node.members.get(key);
  }
  return node;
}

const NOT_SHAPED = new Error('not shaped');

/** Reads the shape text (`out`) and the nodes of objects and arrays outside arrays. */
class ShapeReader {
  pos = 0;
  out: string[] = [];

  constructor(private readonly b: Buffer) {
    this.pos = bomLength(b);
  }

  skipSpace(): void {
    this.pos = skipJsonSpace(this.b, this.pos);
  }

  /** The value at pos (no space before it), its text appended to `out`. */
  value(depth: number): Node {
    // Objects outside arrays are read recursively: deeper than any API's, the body is parsed whole.
    if (depth > MAX_JSON_DEPTH) throw NOT_SHAPED;
    const c = this.b[this.pos];
    if (c === OPEN_OBJECT) return this.object(depth);
    if (c === OPEN_ARRAY) return this.array();
    const start = this.pos;
    this.pos = this.scalarEnd(start);
    this.out.push(this.b.toString('utf8', start, this.pos));
    return undefined;
  }

  /** Past an opening bracket and the space after it: true when the closing one follows at once (both written out). */
  private empty(open: string, close: number): boolean {
    this.pos++;
    this.out.push(open);
    this.skipSpace();
    return this.b[this.pos] === close && this.separator(close);
  }

  private object(depth: number): ObjectNode {
    const node = new ObjectNode();
    if (this.empty('{', CLOSE_OBJECT)) return node;
    for (;;) {
      if (this.b[this.pos] !== QUOTE) throw NOT_SHAPED;
      const start = this.pos;
      this.pos = this.stringEnd(start);
      const key = this.b.toString('utf8', start, this.pos);
      this.out.push(key);
      this.skipSpace();
      if (this.b[this.pos] !== COLON) throw NOT_SHAPED;
      this.pos++;
      this.out.push(':');
      this.skipSpace();
      // JSON.parse throws a SyntaxError for a bad key: the body is then not shaped.
      node.members.set(JSON.parse(key) as string, this.value(depth + 1));
      if (this.separator(CLOSE_OBJECT)) return node;
    }
  }

  private array(): ArrayNode {
    const node = new ArrayNode(this.pos);
    if (this.empty('[', CLOSE_ARRAY)) {
      node.end = this.pos;
      return node;
    }
    for (;;) {
      const start = this.pos;
      const c = this.b[start];
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        this.pos = this.containerEnd(start);
        // Checked here, parsed again when asked for: the shape keeps it empty.
        JSON.parse(this.b.toString('utf8', start, this.pos));
        this.out.push(c === OPEN_OBJECT ? '{}' : '[]');
      } else {
        this.pos = this.scalarEnd(start);
        this.out.push(this.b.toString('utf8', start, this.pos));
      }
      node.bounds.push(start, this.pos);
      if (this.separator(CLOSE_ARRAY)) {
        node.end = this.pos;
        return node;
      }
    }
  }

  /** After a member or element: a comma (false) or the closing bracket (true), each written out. */
  private separator(close: number): boolean {
    this.skipSpace();
    const c = this.b[this.pos];
    this.pos++;
    if (c === close) {
      this.out.push(close === CLOSE_OBJECT ? '}' : ']');
      return true;
    }
    if (c !== COMMA) throw NOT_SHAPED;
    this.out.push(',');
    this.skipSpace();
    return false;
  }

  /** The end of a string, number or literal starting at `start` (checked by JSON.parse of the shape). */
  private scalarEnd(start: number): number {
    const b = this.b;
    if (b[start] === QUOTE) return this.stringEnd(start);
    let i = start;
    for (; i < b.length; i++) {
      const c = b[i]!;
      if (c === COMMA || c === CLOSE_ARRAY || c === CLOSE_OBJECT || c === COLON || c === QUOTE || c === OPEN_ARRAY || c === OPEN_OBJECT) break;
      if (isJsonSpace(c)) break;
    }
    if (i === start) throw NOT_SHAPED;
    return i;
  }

  private stringEnd(start: number): number {
    const b = this.b;
    for (let i = start + 1; i < b.length; i++) {
      const c = b[i];
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) return i + 1;
    }
    throw NOT_SHAPED;
  }

  /** The end of the object or array at `start`: brackets counted outside strings (JSON.parse checks the rest). */
  private containerEnd(start: number): number {
    const b = this.b;
    let open = 0;
    for (let i = start; i < b.length; i++) {
      const c = b[i];
      if (c === QUOTE) i = this.stringEnd(i) - 1;
      else if (c === OPEN_OBJECT || c === OPEN_ARRAY) open++;
      else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --open === 0) return i + 1;
    }
    throw NOT_SHAPED;
  }
}
