import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ListEntries, readJsonList, shapeOf } from '../../src/http/json-list.js';
import { parseJson, parseJsonList } from '../../src/http/json.js';
import type { FetchResult } from '../../src/http/client.js';

/** What shapeOf promises: JSON.parse's value, objects and arrays inside arrays emptied. */
function expectedShape(value: unknown, inArray = false): unknown {
  if (Array.isArray(value)) return inArray ? [] : value.map((v) => expectedShape(v, true));
  if (typeof value === 'object' && value !== null) {
    if (inArray) return {};
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: expectedShape(v), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

/** Every array reachable through object keys only, with its path. */
function arraysIn(value: unknown, path: string[] = []): Array<{ path: string[]; items: unknown[] }> {
  if (Array.isArray(value)) return [{ path, items: value }];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => arraysIn(v, [...path, k]));
}

/** JSON text with random JSON whitespace between tokens (what a portal's pretty-printer might send). */
const spaced = fc.tuple(fc.jsonValue(), fc.constantFrom(undefined, 1, 2, '\t', '\r\n ')).map(([value, space]) => {
  const text = space === '\r\n ' ? JSON.stringify(value, null, 1).replace(/\n/g, '\r\n ') : JSON.stringify(value, null, space);
  return { value: JSON.parse(text) as unknown, text };
});

const result = (body: Buffer): FetchResult => ({ url: 'https://portal.example/api/event-calendar/1/events', status: 200, notModified: false, body, contentType: 'application/json' });

describe('shapeOf / readJsonList', () => {
  it('gives JSON.parse value in shape, and every array entries as JSON.parse gives them', () => {
    fc.assert(
      fc.property(spaced, fc.boolean(), ({ value, text }, bom) => {
        const bytes = Buffer.from((bom ? '\uFEFF' : '') + text);
        const list = shapeOf(bytes);
        expect(list).toBeDefined();
        expect(list!.shape).toStrictEqual(expectedShape(value));
        expect(list!.full()).toStrictEqual(value);
        for (const { path, items } of arraysIn(value)) {
          const entries = list!.entriesAt(path)!;
          expect(entries.length).toBe(items.length);
          expect(entries.toArray()).toStrictEqual(items);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('takes nothing JSON.parse refuses (bytes changed, cut or added at random)', () => {
    const mutated = fc.tuple(spaced, fc.nat(), fc.integer({ min: 0, max: 2 }), fc.constantFrom(...'{}[],:"\\ 0-.eE1tfnx\u0001\u00e9'.split(''))).map(([{ text }, at, op, c]) => {
      const i = text.length === 0 ? 0 : at % text.length;
      return op === 0 ? text.slice(0, i) + text.slice(i + 1) : op === 1 ? text.slice(0, i) + c + text.slice(i) : text.slice(0, i) + c + text.slice(i + 1);
    });
    fc.assert(
      fc.property(mutated, (text) => {
        let parsed: { value: unknown } | undefined;
        try {
          parsed = { value: JSON.parse(text) };
        } catch {
          parsed = undefined;
        }
        const list = shapeOf(Buffer.from(text));
        if (!parsed) expect(list).toBeUndefined();
        else if (list) expect(list.full()).toStrictEqual(parsed.value);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps entries as byte ranges across multi-byte characters, huge strings and escapes', () => {
    const big = 'Ą🌳'.repeat(200_000);
    const text = `{"events":[{"t":"${big}"},{"t":"é\u2028\\"\\\\\\u0000"}, "🌳" ,1E21,-0,null,[[[]]],{"":{"k":"[{"}}]}`;
    const list = shapeOf(Buffer.from(text))!;
    expect(list.shape).toStrictEqual({ events: [{}, {}, '🌳', 1e21, -0, null, [], {}] });
    expect(list.entriesAt(['events'])!.toArray()).toStrictEqual((JSON.parse(text) as { events: unknown[] }).events);
  });

  it('the last of a repeated key wins, as in JSON.parse; __proto__ is a key like any other', () => {
    const text = '{"events":[{"a":1}],"__proto__":[{"p":1}],"events":[{"b":2},{"c":3}]}';
    const list = shapeOf(Buffer.from(text))!;
    expect(list.shape).toStrictEqual(expectedShape(JSON.parse(text)));
    expect(list.entriesAt(['events'])!.toArray()).toEqual([{ b: 2 }, { c: 3 }]);
    expect(list.entriesAt(['__proto__'])!.toArray()).toEqual([{ p: 1 }]);
    expect(list.replaced(['events'], 'X')).toStrictEqual(JSON.parse('{"events":"X","__proto__":[{"p":1}]}'));
  });

  it('cannot tell an array inside an array: entriesAt says so, and full() has it', () => {
    const list = readJsonList(Buffer.from('{"data":[{"events":[{"id":1}]}]}'));
    expect(list.entriesAt(['data', '0', 'events'])).toBeUndefined();
    expect(list.replaced(['data', '0', 'events'], 1)).toBeUndefined();
    expect(list.full()).toEqual({ data: [{ events: [{ id: 1 }] }] });
  });

  it('nesting 100,000 deep is not shaped, and does not overflow the stack', () => {
    const deep = (inner: string) => Buffer.from('{"a":' + inner + '}');
    expect(shapeOf(deep('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)))).toBeUndefined();
    // Inside an array it is only counted: JSON.parse (which does not recurse) checks it.
    const inArray = shapeOf(deep('[' + '['.repeat(100_000) + ']'.repeat(100_000) + ']'));
    expect(inArray?.entriesAt(['a'])?.length).toBe(1);
  });
});

describe('parseJsonList', () => {
  it('fails as parseJson does: empty, invalid UTF-8, too deep, not JSON, an HTML page', () => {
    const bodies = [
      Buffer.alloc(0),
      Buffer.concat([Buffer.from('[{"a":"'), Buffer.from([0xff]), Buffer.from('"}]')]),
      Buffer.from('['.repeat(100_000) + ']'.repeat(100_000)),
      Buffer.from('[{"a":1},]'),
      Buffer.from('<html>\n::error::PWNED\u001b[31m</html>'),
    ];
    for (const body of bodies) {
      let expected: unknown;
      try {
        parseJson(result(body), 'TOKEN');
      } catch (error) {
        expected = error;
      }
      expect(expected).toBeInstanceOf(Error);
      expect(() => parseJsonList(result(body), 'TOKEN')).toThrow((expected as Error).message);
    }
  });

  it('reads a list body in shape', () => {
    const list = parseJsonList(result(Buffer.from('{"events":[{"id":1},{"id":2}]}')), undefined);
    expect(list.shape).toEqual({ events: [{}, {}] });
    expect(list.entriesAt(['events'])!.at(1)).toEqual({ id: 2 });
  });
});

describe('ListEntries', () => {
  it('joins pages, whatever each is made of, and parses an entry afresh each time', () => {
    const a = shapeOf(Buffer.from('[{"n":0},{"n":1}]'))!.entriesAt([])!;
    const b = ListEntries.of([{ n: 2 }]);
    const c = shapeOf(Buffer.from('{"x":[{"n":3},{"n":4}]}'))!.entriesAt(['x'])!;
    const all = a.concat(b).concat(c);
    expect(all.length).toBe(5);
    expect(all.toArray()).toEqual([0, 1, 2, 3, 4].map((n) => ({ n })));
    expect(all.at(0)).not.toBe(all.at(0));
    expect(() => all.at(5)).toThrow(RangeError);
  });
});
