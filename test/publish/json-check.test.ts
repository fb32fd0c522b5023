import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentProblem } from '../../src/publish/content-check.js';
import { isJsonText, JsonScan } from '../../src/publish/json-check.js';

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const check = (text: string): boolean => isJsonText(Buffer.from(text));

describe('isJsonText', () => {
  it('takes what JSON.parse takes, however it is spaced', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 1, '\t', ' \r\n'), (value, space) => {
        expect(check(JSON.stringify(value, null, space))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('answers as JSON.parse does for texts with a byte changed, cut or added', () => {
    const mutated = fc.tuple(fc.jsonValue(), fc.nat(), fc.integer({ min: 0, max: 2 }), fc.constantFrom(...'{}[],:"\\ 0-+.eE1tfnux\u0001\u00e9'.split(''))).map(([value, at, op, c]) => {
      const text = JSON.stringify(value);
      const i = at % (text.length + 1);
      return op === 0 ? text.slice(0, i) + text.slice(i + 1) : op === 1 ? text.slice(0, i) + c + text.slice(i) : text.slice(0, i) + c + text.slice(i + 1);
    });
    fc.assert(
      fc.property(mutated, (text) => {
        expect(check(text), JSON.stringify(text)).toBe(parses(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('numbers, literals, strings and escapes at their edges', () => {
    const cases = [
      '0', '-0', '-', '01', '1.', '.5', '1.5e', '1e+', '1E-7', '-0.0e0', '1e1.5', '+1', '00', '0x1',
      'true', 'tru', 'truee', 'null', 'nul', 'false', 'False',
      '""', '"', '"\\"', '"\\u12"', '"\\u12G4"', '"\\ud800"', '"\\x41"', '"a\tb"', '"a\\tb"', '"\u007f"', '"é🌳"',
      '', ' ', '[', ']', '[]', '[,]', '[1,]', '[1 2]', '{}', '{"a"}', '{"a":}', '{"a":1,}', '{a:1}', '{"a":1 "b":2}', '[{]}', '{"a":[}]',
      ' \n[1, {"a": [true, null]}]\r\n\t', '1 2', '"a" "b"',
    ];
    for (const text of cases) expect(check(text), JSON.stringify(text)).toBe(parses(text));
  });

  it('a byte-order mark first is taken (JSON.parse is given the text after it); nesting 100,000 deep is JSON', () => {
    expect(check('\uFEFF{"a":1}')).toBe(true);
    expect(check('\uFEFF')).toBe(false);
    expect(check('['.repeat(100_000) + ']'.repeat(100_000))).toBe(true);
    expect(check('['.repeat(100_000) + ']'.repeat(99_999))).toBe(false);
  });
});

describe('JsonScan', () => {
  // search.json is checked as it is written, in blocks cut anywhere: inside a string, an escape,
  // a number, a literal, the byte-order mark or a character's UTF-8 bytes.
  it('answers as JSON.parse does for texts cut into chunks anywhere', () => {
    const text = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v, null, 1)),
      fc.tuple(fc.jsonValue(), fc.nat(), fc.constantFrom(...'{}[],:"\\ 0-+.eE1tfnu\u00e9'.split(''))).map(([v, at, c]) => {
        const t = JSON.stringify(v);
        const i = at % (t.length + 1);
        return t.slice(0, i) + c + t.slice(i + 1);
      }),
      fc.constantFrom('\uFEFF[1]', '"\\u00e9"', '-1.5e+10', 'true', 'nul', '[1e]', '{"a":"\\ud83c"}', '12 3', ''),
    );
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 8 }), (t, cuts) => {
        const bytes = Buffer.from(t);
        const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const scan = new JsonScan();
        let from = 0;
        for (const cut of [...at, bytes.length]) {
          scan.push(bytes.subarray(from, cut));
          from = cut;
        }
        expect(scan.end(), JSON.stringify({ t, at })).toBe(parses(t.charCodeAt(0) === 0xfeff ? t.slice(1) : t));
      }),
      { numRuns: 5000 },
    );
  });

  it('a byte at a time', () => {
    for (const t of ['{"a":[1,-2.5e3,true,null,"x\\u0041é"]}', '[1,2', '\uFEFF"a"', '0 ']) {
      const scan = new JsonScan();
      for (const b of Buffer.from(t)) scan.push(Uint8Array.of(b));
      expect(scan.end(), t).toBe(parses(t.replace(/^\uFEFF/, '')));
    }
  });
});

describe('contentProblem on JSON', () => {
  it('words a problem as JSON.parse does; passes a list mirror of many entries', () => {
    expect(contentProblem('api/event-calendars.json', Buffer.from('[{"a":1},]'))).toMatch(/^it is not valid JSON \(/);
    expect(contentProblem('api/event-calendars.json', Buffer.from([0x5b, 0xff, 0x5d]))).toBe('it is not valid UTF-8');
    const list = JSON.stringify({ events: Array.from({ length: 10_000 }, (_, i) => ({ id: i, title: `Ąžuolas ${i}` })) });
    expect(contentProblem('api/event-calendar/x/events.json', Buffer.from(list))).toBeUndefined();
  });
});
