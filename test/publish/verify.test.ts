import { appendFile, mkdir, readFile, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { CalfeedError } from '../../src/errors.js';
import { paths } from '../../src/paths.js';
import { createStaging, discard, type Staging, writeSiteMeta } from '../../src/publish/index.js';
import { icalProblem } from '../../src/publish/content-check.js';
import { verifyStaging } from '../../src/publish/verify.js';
import { xmlProblem } from '../../src/publish/xml-check.js';
import { build, CALENDARS, linkKept, sampleSite, tempDir } from './helpers.js';

async function staged(overrides: Record<string, string> = {}): Promise<Staging> {
  const staging = await createStaging(path.join(await tempDir(), 'out'));
  for (const [rel, data] of Object.entries({ ...sampleSite(), ...overrides })) await staging.write(rel, data);
  await writeSiteMeta(staging, CALENDARS, { generator: 'calfeed test' });
  return staging;
}

async function verifyError(staging: Staging): Promise<CalfeedError> {
  const error = await verifyStaging(staging.dir).then(
    () => undefined,
    (e: unknown) => e,
  );
  await discard(staging);
  expect(error).toBeInstanceOf(CalfeedError);
  expect((error as CalfeedError).code).toBe('BUILD');
  return error as CalfeedError;
}

describe('verifyStaging', () => {
  it('accepts a valid staged site', async () => {
    const staging = await staged();
    await expect(verifyStaging(staging.dir)).resolves.toBeUndefined();
    await discard(staging);
  });

  it.each([
    ['a mirror file that is not JSON', paths.eventsMirror('arts'), '<html>Error</html>', /not valid JSON/],
    ['a JSON Feed that is not JSON', paths.site('feed.json'), '{"items":', /not valid JSON/],
    ['an RSS file that is not well-formed', paths.site('rss.xml'), '<rss><channel><title>x</channel></rss>', /not well-formed XML.*<\/channel> does not match <title>/],
    ['an Atom file with a bare ampersand', paths.calendar('arts', 'atom.xml'), '<feed><title>A & B</title></feed>', /not well-formed XML.*'&'/],
    ['an XML file with an illegal control character', paths.site('rss.xml'), '<rss>\u0001</rss>', /U\+0001/],
    ['an .ics with LF line endings', paths.site('calendar.ics'), 'BEGIN:VCALENDAR\nEND:VCALENDAR\n', /CRLF/],
    ['an .ics that is not a calendar', paths.eventIcs('arts', 'e1'), 'hello\r\n', /BEGIN:VCALENDAR/],
    ['an .ics with an unclosed VEVENT', paths.site('calendar.ics'), 'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nEND:VCALENDAR\r\n', /END:VCALENDAR closes BEGIN:VEVENT/],
    ['a file that is not UTF-8', paths.site('feed.json'), Buffer.from([0x7b, 0xff, 0x7d]).toString('latin1'), /not valid JSON|UTF-8/],
  ])('rejects %s and names the file', async (_label, rel, content, pattern) => {
    const error = await verifyError(await staged({ [rel]: content }));
    expect(error.message).toContain(`Output check failed for ${rel}`);
    expect(error.message).toMatch(pattern);
  });

  it('rejects a file changed after the manifest was written', async () => {
    const staging = await staged();
    await appendFile(path.join(staging.dir, paths.site('index.html')), '<!-- late -->');
    const error = await verifyError(staging);
    expect(error.message).toContain(`${paths.site('index.html')}: it has`);
  });

  it('checks unchanged (hard-linked) files by size when given what staging recorded', async () => {
    const out = path.join(await tempDir(), 'out');
    await build(out, sampleSite());
    const staging = await createStaging(out);
    for (const [rel, data] of Object.entries(sampleSite())) await staging.write(rel, data);
    await writeSiteMeta(staging, CALENDARS, { generator: 'calfeed test' });
    expect([...staging.files().values()].every((f) => !f.changed)).toBe(true);
    // As publish does: link the kept files first.
    await linkKept(staging);
    await expect(verifyStaging(staging.dir, { staged: staging.files() })).resolves.toBeUndefined();

    const rel = paths.site('rss.xml');
    await unlink(path.join(staging.dir, rel)); // break the link without touching the published copy
    await writeFile(path.join(staging.dir, rel), '<rss>');
    const error = await verifyStaging(staging.dir, { staged: staging.files() }).catch((e: unknown) => e);
    expect((error as Error).message).toContain(`${rel}: it has 5 bytes`);
    await discard(staging);
  });

  it('rejects a file missing from the manifest, and a listed file missing on disk', async () => {
    const extra = await staged();
    await writeFile(path.join(extra.dir, 'stray.html'), 'x');
    expect((await verifyError(extra)).message).toContain('stray.html: it is on disk but not listed');

    const missing = await staged();
    await unlink(path.join(missing.dir, paths.site('rss.xml')));
    expect((await verifyError(missing)).message).toContain(`${paths.site('rss.xml')}: it is listed in manifest.json but missing`);
  });

  it('rejects a missing manifest and a symlink', async () => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    await staging.write('index.html', 'x');
    expect((await verifyError(staging)).message).toContain('manifest.json: it is missing');

    const linked = await staged();
    await symlink('/etc/passwd', path.join(linked.dir, 'passwd'));
    expect((await verifyError(linked)).message).toContain('not a regular file');
  });

  it('rejects a binary file written as a real byte that is not UTF-8', async () => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    await staging.write(paths.site('rss.xml'), Buffer.from([0x3c, 0x61, 0x3e, 0xc3, 0x28, 0x3c, 0x2f, 0x61, 0x3e]));
    await writeSiteMeta(staging, CALENDARS, { generator: 't' });
    expect((await verifyError(staging)).message).toContain('not valid UTF-8');
  });
});

describe('verifyStaging against what staging recorded, in big folders', () => {
  // The walk reads each folder an entry at a time and never lists the folders still to visit: it
  // must still find any one thing wrong, whether in a folder of thousands of files or deep in one
  // of a thousand folders.
  const EVENTS = 1500;
  const DETAILS = 1000;
  const page = (n: number): string => paths.eventPage('arts', `x${n}`);
  const details = (n: number): string => paths.detailsMirror('arts', `x${n}`);

  it('finds a missing, an extra, a resized or a linked file anywhere', async () => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    for (const [rel, data] of Object.entries(sampleSite())) await staging.write(rel, data);
    for (let n = 0; n < EVENTS; n++) {
      await staging.write(page(n), `<!doctype html><title>Event ${n}</title>`);
      await staging.write(paths.eventIcs('arts', `x${n}`), ['BEGIN:VCALENDAR', 'VERSION:2.0', 'END:VCALENDAR', ''].join('\r\n'));
    }
    for (let n = 0; n < DETAILS; n++) await staging.write(details(n), `{"id":"e${n}"}`);
    await writeSiteMeta(staging, CALENDARS, { generator: 'calfeed test' });
    await linkKept(staging);
    const table = staging.files();
    const check = (): Promise<unknown> => verifyStaging(staging.dir, { staged: table }).then(() => undefined, (e: unknown) => e);
    expect(await check()).toBeUndefined();

    const at = (rel: string): string => path.join(staging.dir, rel);
    const damages = {
      // Each: what to do, what verify must say, and how to put it back.
      missing: async (rel: string) => {
        await rename(at(rel), `${staging.dir}.aside`);
        return { says: `${rel}: it is listed in manifest.json but missing on disk`, undo: () => rename(`${staging.dir}.aside`, at(rel)) };
      },
      extra: async (rel: string) => {
        const stray = `${rel}.stray`;
        await writeFile(at(stray), 'x');
        return { says: `${stray}: it is on disk but not listed`, undo: () => unlink(at(stray)) };
      },
      extraInNewFolder: async (rel: string) => {
        const stray = `${path.posix.dirname(rel)}/new/stray.json`;
        await mkdir(path.dirname(at(stray)));
        await writeFile(at(stray), '{}');
        return { says: `${stray}: it is on disk but not listed`, undo: () => rm(path.dirname(at(stray)), { recursive: true }) };
      },
      resized: async (rel: string) => {
        const bytes = await readFile(at(rel));
        await appendFile(at(rel), ' ');
        return { says: `${rel}: it has ${bytes.length + 1} bytes, the manifest says ${bytes.length}`, undo: () => writeFile(at(rel), bytes) };
      },
      linked: async (rel: string) => {
        const link = `${rel}.link`;
        await symlink(at(rel), at(link));
        return { says: `${link}: it is not a regular file`, undo: () => unlink(at(link)) };
      },
    };
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...(Object.keys(damages) as Array<keyof typeof damages>)), fc.boolean(), fc.nat({ max: DETAILS - 1 }), async (kind, inBigFolder, n) => {
        const { says, undo } = await damages[kind](inBigFolder ? page(n) : details(n));
        const error = await check();
        await undo();
        expect(error).toBeInstanceOf(CalfeedError);
        expect((error as Error).message).toContain(`Output check failed for ${says}`);
      }),
      { numRuns: 30 },
    );
    expect(await check()).toBeUndefined();
    await discard(staging);
  }, 60_000);
});

describe('xmlProblem', () => {
  const wellFormed = [
    '<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel/></rss>',
    '<a><b x="1" y=\'2\'>t &amp; &#233; &#x1F389;</b><!-- c --><![CDATA[ <raw> & ]]></a>',
    '<?xml version="1.0"?><!DOCTYPE html><a/>',
    '<a xmlns:atom="http://www.w3.org/2005/Atom"><atom:link rel="self" href="https://x/?a=1&amp;b=2"/></a>',
    '\uFEFF<a>\n  <b />\n</a>\n',
  ];
  it.each(wellFormed)('accepts %j, as a real XML parser does', (doc) => {
    expect(XMLValidator.validate(doc.replace('\uFEFF', ''))).toBe(true);
    expect(xmlProblem(Buffer.from(doc))).toBeUndefined();
  });

  // XML 1.0 errors; fast-xml-parser (the oracle for the first group) is lenient about the second.
  const malformedBoth = ['<a><b></a></b>', '<a></a><b></b>', '<a x="1" x="2"/>', '<a x=1/>', '<a><![CDATA[ unclosed </a>', 'text only', '<a>', '', '<a></A>', '<a x="1"y="2"/>'];
  const malformedStrict = ['<a>&nbsp;</a>', '<a>&#0;</a>', '<a><!-- a -- b --></a>', '<a>text ]]> here</a>', '<a b="<"/>'];
  it.each(malformedBoth)('rejects %j, as a real XML parser does', (doc) => {
    expect(XMLValidator.validate(doc)).not.toBe(true);
    expect(xmlProblem(Buffer.from(doc))).toMatch(/^line \d+: /);
  });
  it.each(malformedStrict)('rejects %j (an XML 1.0 error that lenient parsers let through)', (doc) => {
    expect(xmlProblem(Buffer.from(doc))).toMatch(/^line \d+: /);
  });

  it('checks a large document with many references in linear time (no quadratic rescans)', () => {
    const doc = `<r>${'<i>a &amp; b &lt; c</i>'.repeat(50_000)}</r>`;
    expect(xmlProblem(Buffer.from(doc))).toBeUndefined();
    expect(xmlProblem(Buffer.from(doc.replace('</r>', '</x>')))).toMatch(/line 1: end tag <\/x> does not match <r>/);
  });

  it('names the first character XML 1.0 does not allow, by the letter of its Char production, in any text (generated)', () => {
    // The production as a regex over code points, character by character: the oracle.
    const allowed = (c: number): boolean => c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
    const firstIllegal = (text: string): { at: number; code: number } | undefined => {
      for (let i = 0; i < text.length; ) {
        const code = text.codePointAt(i)!;
        // A surrogate codePointAt cannot pair is a lone surrogate: illegal, as any code point of its range.
        if (!allowed(code)) return { at: i, code };
        i += code > 0xffff ? 2 : 1;
      }
      return undefined;
    };
    // Every kind of UTF-16 unit: legal text, controls, U+FFFE/U+FFFF, pairs and lone halves of them.
    const unit = fc.oneof(
      fc.constantFrom('a', '\n', '\t', '\r', ' ', 'é', '\uFFFD', '\uFFFE', '\uFFFF', '\u0000', '\u0008', '\u000B', '\u001F', '\u007F', '\u0085', '\uE000', '\uD7FF'),
      fc.constantFrom('\uD83C\uDF89', '\uD800', '\uDBFF', '\uDC00', '\uDFFF'),
      fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 30 }), (units) => {
        // As UTF-8 bytes hold it: a lone surrogate is U+FFFD there.
        const doc = Buffer.from(`<a>\n${units.join('')}</a>`).toString();
        const illegal = firstIllegal(doc);
        if (!illegal) {
          expect(xmlProblem(Buffer.from(doc)) ?? '').not.toMatch(/is not allowed in XML/);
        } else {
          const line = doc.slice(0, illegal.at).split('\n').length;
          expect(xmlProblem(Buffer.from(doc))).toBe(`line ${line}: character U+${illegal.code.toString(16).toUpperCase().padStart(4, '0')} is not allowed in XML`);
        }
      }),
      { numRuns: 2000 },
    );
  });

  // Documents made from a grammar (non-ASCII names, references, CDATA, comments, a BOM), each
  // line a node: accepted as a real parser accepts them; then one change that breaks the XML at a
  // known line, named with that line.
  it('accepts generated documents and names the line of a break put into them (generated)', () => {
    const name = fc.constantFrom('a', 'item', 'atom:link', 'ė', 'x·y', 'Ω2', '_n-1.2');
    const text = fc.constantFrom('t', 'a &amp; b', '&#233; &#x1F389;', 'ąčę 🎉', '&lt;p&gt;', '');
    const node: fc.Arbitrary<string[]> = fc.letrec<{ node: string[] }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        text.map((t) => [t]),
        text.map((t) => [`<![CDATA[ ${t} <b>&</b> ]]>`]),
        fc.constant<string[]>(['<!-- note -->']),
        fc.tuple(name, fc.uniqueArray(name, { maxLength: 2 }), fc.array(tie('node'), { maxLength: 3 })).map(([tag, attrs, kids]) => {
          const open = `<${tag}${attrs.map((a, i) => ` ${a}="v${i} &quot;"`).join('')}>`;
          return [open, ...kids.flat(), `</${tag}>`];
        }),
      ),
    })).node;
    const breaks: Array<(line: string) => string | undefined> = [
      (line) => (line.startsWith('</') ? `</zz${line.slice(2)}` : undefined),
      (line) => (/^<[^/!]/.test(line) && line.includes('="') ? line.replace('="', '=') : undefined),
      (line) => (/^[^<]/.test(line) ? `${line} & more` : undefined),
      (line) => (/^[^<]/.test(line) ? `${line} ]]> more` : undefined),
      (line) => (/^<[^/!]/.test(line) && line.includes('="') ? line.replace('="', '="<') : undefined),
    ];
    fc.assert(
      fc.property(fc.array(node, { maxLength: 4 }), fc.boolean(), fc.nat(), fc.nat(), (kids, bom, at, which) => {
        const lines = ['<?xml version="1.0" encoding="utf-8"?>', '<root>', ...kids.flat(), '</root>'];
        const doc = lines.join('\n');
        expect(XMLValidator.validate(doc)).toBe(true);
        expect(xmlProblem(Buffer.from((bom ? '\uFEFF' : '') + doc))).toBeUndefined();
        const i = 2 + (at % Math.max(1, lines.length - 3));
        const broken = breaks[which % breaks.length]!(lines[i]!);
        if (broken === undefined || i >= lines.length - 1) return;
        const bad = [...lines.slice(0, i), broken, ...lines.slice(i + 1)].join('\n');
        expect(xmlProblem(Buffer.from(bad))).toMatch(new RegExp(`^line ${i + 1}: `));
      }),
      { numRuns: 1000 },
    );
  });

  it('words problems with the names as written, non-ASCII ones included', () => {
    expect(xmlProblem(Buffer.from('<ė>\n</a>'))).toBe('line 2: end tag </a> does not match <ė>');
    expect(xmlProblem(Buffer.from('<r ė="1" ė="2"/>'))).toBe('line 1: duplicate attribute ė on <r>');
    expect(xmlProblem(Buffer.from('<r>&#1114112;</r>'))).toBe('line 1: character reference &#1114112; is not an XML character');
    expect(xmlProblem(Buffer.from('<r>\n\n\uFFFE</r>'))).toBe('line 3: character U+FFFE is not allowed in XML');
  });

  it('handles deep nesting without a stack overflow', () => {
    const depth = 100_000;
    expect(xmlProblem(Buffer.from('<a>'.repeat(depth) + '</a>'.repeat(depth)))).toBeUndefined();
  });
});

describe('icalProblem', () => {
  it('accepts a minimal calendar and reports content after END:VCALENDAR', () => {
    expect(icalProblem('BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n')).toBeUndefined();
    expect(icalProblem('BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\nBEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n')).toMatch(/after END:VCALENDAR/);
  });
});
