// Staging.writeChunks, the content checks staging runs as it writes, and verify against staging's
// own table (no file read back): the same bytes, the same claims, the same unchanged-file rule and
// the same clear errors as write() and the old read-everything verify.

import { createHash } from 'node:crypto';
import { appendFile, link, mkdir, readdir, readFile, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CalfeedError } from '../../src/errors.js';
import { paths } from '../../src/paths.js';
import { checkOnWrite, chunkCheckFor, contentProblem, IcalScan, Utf8Stream } from '../../src/publish/content-check.js';
import { removeTree } from '../../src/publish/fs-util.js';
import { createStaging, discard, publish, type Staging, writeSiteMeta } from '../../src/publish/index.js';
import { verifyStaging } from '../../src/publish/verify.js';
import { build, CALENDARS, linkKept, renderManifest, sampleSite, snapshot, tempDir, treeHash } from './helpers.js';

const hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

async function messageOf(p: Promise<unknown>): Promise<string> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CalfeedError);
  expect((error as CalfeedError).code).toBe('BUILD');
  return (error as Error).message;
}

/** Cuts text into pieces of pseudo-random lengths (some inside surrogate pairs), strings and bytes mixed. */
function pieces(text: string, seed: number, asBytes = false): Array<string | Uint8Array> {
  const out: Array<string | Uint8Array> = [];
  let x = seed;
  for (let at = 0; at < text.length; ) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const n = 1 + (x % 40_000);
    const piece = text.slice(at, at + n);
    out.push(asBytes && x % 3 === 0 ? Buffer.from(piece, 'utf8') : piece);
    at += n;
  }
  return out;
}

const vevent = (i: number): string => ['BEGIN:VEVENT', `UID:${i}@t`, `SUMMARY:Saulėtekio al. ${i} 🎉`, 'END:VEVENT'].join('\r\n') + '\r\n';
const bigIcs = (n: number): string => 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\n' + Array.from({ length: n }, (_, i) => vevent(i)).join('') + 'END:VCALENDAR\r\n';

/** The sample site staged with manifest; `extra` writes more (or instead of the sample file `skip`). */
async function stagedSite(out: string, extra: (staging: Staging) => Promise<void> = async () => {}, skip?: string): Promise<Staging> {
  const staging = await createStaging(out);
  for (const [rel, data] of Object.entries(sampleSite())) if (rel !== skip) await staging.write(rel, data);
  await extra(staging);
  await writeSiteMeta(staging, CALENDARS, { generator: 'calfeed test' });
  return staging;
}

describe('writeChunks', () => {
  it.each([
    ['small, strings', 'héllo 🎉 wörld'.repeat(10), false],
    ['large, strings cut inside surrogate pairs', '🎉ė'.repeat(200_000) + 'x', false],
    ['large, strings and bytes mixed', ('a'.repeat(70_000) + '🎉').repeat(5), true],
    ['large, a lone surrogate at a cut', 'x'.repeat(65_535) + '\ud800' + 'y'.repeat(70_000), false],
  ])('writes exactly the bytes of the joined chunks (%s) and records their size and SHA-256', async (_label, text, asBytes) => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    const chunks = pieces(text, 7, asBytes);
    const expected = Buffer.concat(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c, 'utf8') : c)));
    // Buffer.from of each string piece would split pairs; the staged bytes are those of the whole.
    const joined = asBytes ? expected : Buffer.from(text, 'utf8');
    await staging.writeChunks('page.html', chunks);
    const written = await readFile(path.join(staging.dir, 'page.html'));
    expect(written.equals(joined)).toBe(true);
    expect(staging.files().get('page.html')).toEqual({ bytes: joined.length, sha256: hex(joined), changed: true });
    await discard(staging);
  });

  // A calendar.ics's VEVENTs are read into one reused buffer (a new one for each of 100,000 events
  // left malloc's heap 20 MB bigger): each chunk must be written, or copied, before the next is made.
  it('writes exactly the bytes of chunks that reuse one buffer, smaller and larger than a block, checked as iCalendar', async () => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    const texts = [10, 70_000, 3, 200_000, 65_536, 1].map((n, i) => vevent(i).replace('SUMMARY:', `SUMMARY:${'ė'.repeat(n)}`));
    const reused = Buffer.alloc(1 << 20);
    function* chunks(): Generator<string | Buffer> {
      yield 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\n';
      for (const text of texts) yield reused.subarray(0, reused.write(text, 'utf8'));
      yield 'END:VCALENDAR\r\n';
    }
    await staging.writeChunks('calendar.ics', chunks());
    const written = await readFile(path.join(staging.dir, 'calendar.ics'), 'utf8');
    expect(written).toBe('BEGIN:VCALENDAR\r\nVERSION:2.0\r\n' + texts.join('') + 'END:VCALENDAR\r\n');
    await discard(staging);
  });

  it('takes async iterables, and stages nothing the chunks did not produce', async () => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    await staging.writeChunks(
      'a/b.html',
      (async function* () {
        for (let i = 0; i < 300; i++) yield `<p>${i}</p>`.repeat(100);
      })(),
    );
    await staging.writeChunks('empty.html', []);
    const text = Array.from({ length: 300 }, (_, i) => `<p>${i}</p>`.repeat(100)).join('');
    expect(await readFile(path.join(staging.dir, 'a', 'b.html'), 'utf8')).toBe(text);
    expect(await readFile(path.join(staging.dir, 'empty.html'), 'utf8')).toBe('');
    expect(staging.files().get('empty.html')).toMatchObject({ bytes: 0, changed: true });
    await discard(staging);
  });

  it('honours the same claims as write()', async () => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    await staging.write('calendars/arts/index.html', 'x');
    expect(await messageOf(staging.writeChunks('calendars/Arts/index.html', ['y']))).toContain('collide');
    expect(await messageOf(staging.writeChunks('calendars/arts/index.html', ['y']))).toContain('same file');
    expect(await messageOf(staging.writeChunks('../escape', ['y']))).toContain('Refusing');
    const results = await Promise.allSettled([staging.writeChunks('twice.html', ['a'.repeat(100_000)]), staging.write('twice.html', 'b')]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    await discard(staging);
  });

  it('removes the partial file when the chunks throw, lists nothing and keeps the path claimed', async () => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    const failing = function* (): Generator<string> {
      yield 'a'.repeat(200_000);
      throw new Error('renderer failed');
    };
    await expect(staging.writeChunks('cal/big.html', failing())).rejects.toThrow('renderer failed');
    expect(await readdir(path.join(staging.dir, 'cal'))).toEqual([]);
    expect(staging.files().has('cal/big.html')).toBe(false);
    expect(await messageOf(staging.write('cal/big.html', 'x'))).toContain('same file');
    await discard(staging);
  });

  it('keeps an unchanged streamed file as the published one (same inode and mtime), large or small', async () => {
    const out = path.join(await tempDir(), 'out');
    const big = bigIcs(3000);
    const site = { ...sampleSite(), [paths.site('calendar.ics')]: big, 'small.html': '<p>small</p>' };
    await build(out, site);
    const old = new Date('2003-04-05T06:07:08Z');
    for (const rel of [paths.site('calendar.ics'), 'small.html', paths.manifest()]) await utimes(path.join(out, rel), old, old);
    const before = await snapshot(out);

    const staging = await createStaging(out);
    for (const [rel, data] of Object.entries(site)) {
      if (rel === paths.site('calendar.ics') || rel === 'small.html') await staging.writeChunks(rel, pieces(data, 3, true));
      else await staging.write(rel, data);
    }
    await writeSiteMeta(staging, CALENDARS, { generator: 'calfeed test' });
    expect([...staging.files().values()].filter((f) => f.changed)).toEqual([]);
    const result = await publish(staging, out);
    expect(result.written).toBe(0);
    const after = await snapshot(out);
    for (const rel of [paths.site('calendar.ics'), 'small.html', paths.manifest()]) {
      expect(after.get(rel)!.ino, rel).toBe(before.get(rel)!.ino);
      expect(after.get(rel)!.mtimeMs, rel).toBe(old.getTime());
    }
  });

  it('compares with the published bytes as it writes when the published manifest cannot be trusted', async () => {
    const out = path.join(await tempDir(), 'out');
    const big = bigIcs(3000);
    await build(out, { ...sampleSite(), [paths.site('calendar.ics')]: big });
    await writeFile(path.join(out, paths.manifest()), 'damaged');
    const staging = await createStaging(out);
    await staging.writeChunks(paths.site('calendar.ics'), pieces(big, 5));
    // Same size, one byte different near the end.
    await staging.writeChunks(paths.calendar('arts', 'calendar.ics'), pieces(big.replace('UID:2999@t', 'UID:2999@u'), 5));
    expect(staging.files().get(paths.site('calendar.ics'))?.changed).toBe(false);
    expect(staging.files().get(paths.calendar('arts', 'calendar.ics'))?.changed).toBe(true);
    const ino = (rel: string, root: string): Promise<number> => stat(path.join(root, rel)).then((s) => s.ino);
    expect(await ino(paths.site('calendar.ics'), staging.dir)).toBe(await ino(paths.site('calendar.ics'), out));
    expect(await ino(paths.calendar('arts', 'calendar.ics'), staging.dir)).not.toBe(await ino(paths.calendar('arts', 'calendar.ics'), out));
    await discard(staging);
  });

  it('streams a manifest byte-identical to renderManifest', async () => {
    const out = path.join(await tempDir(), 'out');
    const staging = await createStaging(out);
    for (let i = 0; i < 2500; i++) await staging.write(paths.detailsMirror(i % 2 ? 'arts' : CALENDARS[1]!.slug, `e${i} "é"`), `{"i":${i}}`);
    await writeSiteMeta(staging, CALENDARS, { generator: 'calfeed "t"' });
    const files = new Map([...staging.files()].filter(([rel]) => rel !== paths.manifest()));
    const text = await readFile(path.join(staging.dir, paths.manifest()), 'utf8');
    expect(text.length).toBeGreaterThan(1 << 17);
    expect(text).toBe(renderManifest(files, CALENDARS, { generator: 'calfeed "t"' }));
    await publish(staging, out);
  });
});

describe('write() of text in pieces', () => {
  it('stages exactly the bytes of the joined pieces, lone and split surrogates included (generated)', async () => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('\ud83c', '\udf89', '🎉', 'ė', '<item>', '')), { maxLength: 30 }), async (parts) => {
        const rel = `p${n++}.txt`;
        await staging.write(rel, parts);
        const expected = Buffer.from(parts.join(''), 'utf8');
        expect((await readFile(path.join(staging.dir, rel))).equals(expected)).toBe(true);
        expect(staging.files().get(rel)).toEqual({ bytes: expected.length, sha256: hex(expected), changed: true });
      }),
      { numRuns: 200 },
    );
    await discard(staging);
  });

  it('streams pieces as long as a large string, with the same bytes', async () => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    const parts = Array.from({ length: 5 }, (_, i) => `${i}🎉${'ė'.repeat(1 << 20)}`);
    await staging.write('big.txt', parts);
    expect((await readFile(path.join(staging.dir, 'big.txt'))).equals(Buffer.from(parts.join(''), 'utf8'))).toBe(true);
    await discard(staging);
  });

  it('checks the whole file, not each piece: XML cut between pieces is fine, a tag left open is not', async () => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    await staging.write('ok/rss.xml', ['<?xml version="1.0"?>\n<rss><chan', 'nel><title>a &amp', '; b</title></channel></rss>\n']);
    await staging.write('bad/rss.xml', ['<rss><channel>', '<item></item>', '</rss>']);
    expect([...staging.files().problems()]).toEqual([['bad/rss.xml', expect.stringContaining('not well-formed XML')]]);
    await discard(staging);
  });
});

describe('content checks at write time', () => {
  it.each([
    ['malformed XML from a template, written whole', paths.calendar('arts', 'rss.xml'), '<rss><channel><title>x</channel></rss>', /not well-formed XML.*<\/channel> does not match <title>/, false],
    ['malformed XML, streamed', paths.site('atom.xml'), `<feed>${'<entry><title>A</title></entry>'.repeat(5000)}<title>A & B</title></feed>`, /not well-formed XML.*'&'/, true],
    ['a JSON Feed that is not JSON, streamed', paths.site('feed.json'), `{"items":[${'{"id":"x"},'.repeat(10_000)}`, /not valid JSON/, true],
    ['a large .ics with a bare LF, streamed', paths.site('calendar.ics'), bigIcs(3000).replace('UID:2000@t\r\n', 'UID:2000@t\n'), /line ending without CR at offset \d+/, true],
    ['an .ics with an unclosed VEVENT', paths.eventIcs('arts', 'e9'), 'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nEND:VCALENDAR\r\n', /END:VCALENDAR closes BEGIN:VEVENT/, false],
    ['a details mirror that is an HTML error page', paths.detailsMirror('arts', 'e9'), '<html>Error</html>', /not valid JSON/, false],
    ['a details mirror that is not UTF-8', paths.detailsMirror('arts', 'e9'), Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]), /not valid UTF-8/, false],
  ])('%s: publish fails before anything is published, naming the file', async (_label, rel, content, pattern, streamed) => {
    const out = path.join(await tempDir(), 'out');
    await build(out, sampleSite());
    const before = await treeHash(out);
    const staging = await stagedSite(out, async (s) => {
      if (streamed) await s.writeChunks(rel, pieces(content as string, 11));
      else await s.write(rel, content);
    }, rel);
    const message = await messageOf(publish(staging, out));
    expect(message).toContain(`Output check failed for ${rel}: `);
    expect(message).toMatch(pattern);
    expect(message).toContain('Nothing was published; the previous output is unchanged.');
    // The same words as the check that reads the file back.
    const bytes = await readFile(path.join(staging.dir, rel));
    expect(message).toContain(contentProblem(rel, bytes)!);
    expect(await messageOf(verifyStaging(staging.dir))).toBe(message);
    expect(await treeHash(out)).toBe(before);
    await discard(staging);
  });

  it('accepts what the crawler writes as a details mirror: any JSON value, with a BOM or spaces', () => {
    for (const body of ['{"id":1}', '\uFEFF {"a":[1,2]}\n', '[]', '"text"', '12.5e3', 'true', 'null', '-1']) {
      expect(checkOnWrite(paths.detailsMirror('a', 'b'), Buffer.from(body)), body).toBeUndefined();
    }
    for (const body of ['', '  ', '<html/>', '{"id":1', 'undefined']) {
      expect(checkOnWrite(paths.detailsMirror('a', 'b'), Buffer.from(body)), body).toMatch(/not valid JSON/);
    }
  });

  const icsCases: Array<[string, (t: string) => string]> = [
    ['valid', (t) => t],
    ['lower-case component names', (t) => t.replace('BEGIN:VEVENT', 'begin:vevent').replace('END:VEVENT', 'end:VEvent')],
    ['a bare LF', (t) => t.replace('UID:1500@t\r\n', 'UID:1500@t\n')],
    ['a lone CR', (t) => t.replace('UID:1200@t\r\n', 'UID:1200@t\rX\r\n')],
    ['an unclosed VEVENT', (t) => t.replace('END:VEVENT\r\nBEGIN:VEVENT\r\nUID:9@t', 'BEGIN:VEVENT\r\nUID:9@t')],
    ['content after END:VCALENDAR', (t) => t + 'X-LATE:1\r\n'],
    ['a second calendar', (t) => t + 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n'],
    ['a BOM', (t) => '\uFEFF' + t],
    ['no final CRLF', (t) => t.slice(0, -2)],
    ['an END with nothing open', (t) => t.replace('VERSION:2.0\r\n', 'VERSION:2.0\r\nEND:VTODO\r\n')],
    ['a SUB control character where a colon belongs', (t) => t.replace('END:VEVENT\r\nBEGIN:VEVENT\r\nUID:9@t', 'END\u001aVEVENT\r\nBEGIN:VEVENT\r\nUID:9@t')],
    ['a line separator in a component name', (t) => t.replace('BEGIN:VEVENT\r\nUID:7@t', 'BEGIN:VEV\u2028ENT\r\nUID:7@t')],
    ['invalid UTF-8', (t) => t.replace('Saulėtekio al. 5 ', 'Saul\udc00tekio al. 5 ')],
  ];
  it.each(icsCases)('checks an .ics fed in chunks (%s) exactly as contentProblem does on the whole', (_label, edit) => {
    const text = edit(bigIcs(2000));
    let bytes = Buffer.from(text, 'utf8');
    if (_label === 'invalid UTF-8') bytes = Buffer.from(bytes.toString('latin1').replace('\u00ef\u00bf\u00bd', '\u00c3('), 'latin1');
    const rel = paths.site('calendar.ics');
    for (const size of [1, 7, 4096, 65_536, bytes.length]) {
      const check = chunkCheckFor(rel)!;
      for (let at = 0; at < bytes.length; at += size) check.push(bytes.subarray(at, at + size));
      expect(check.finish(() => bytes), `${size}`).toBe(contentProblem(rel, bytes));
    }
  });

  it('passes a valid .ics in one scan, however it is cut (no fallback to the full check)', () => {
    for (const text of [bigIcs(500), bigIcs(50).replace(/BEGIN:VEVENT/g, 'begin:vevent').replace(/END:VEVENT/g, 'End:VEvent'), bigIcs(0)]) {
      const bytes = Buffer.from(text, 'utf8');
      for (const size of [1, 3, 17, 1000, bytes.length]) {
        const scan = new IcalScan();
        for (let at = 0; at < bytes.length; at += size) scan.push(bytes.subarray(at, at + size));
        expect(scan.end(), `${size}`).toBe(true);
      }
    }
  });

  it('validates UTF-8 across any cut', () => {
    const good = Buffer.from('aé€🎉'.repeat(50), 'utf8');
    for (let cut = 0; cut <= good.length; cut++) {
      expect(new Utf8Stream().push(good.subarray(0, cut)).push(good.subarray(cut)).end()).toBe(true);
    }
    const truncated = good.subarray(0, good.length - 1);
    expect(new Utf8Stream().push(truncated).end()).toBe(false);
    const bad = Buffer.concat([good, Buffer.from([0xc3, 0x28]), good]);
    for (let cut = 0; cut <= bad.length; cut += 13) expect(new Utf8Stream().push(bad.subarray(0, cut)).push(bad.subarray(cut)).end()).toBe(false);
  });
});

describe('verify against staging table', () => {
  it('reads no staged file back: only the manifest, sizes and the folder listing', async () => {
    const out = path.join(await tempDir(), 'out');
    const staging = await stagedSite(out);
    // Same size, other bytes: only a re-read would notice, and staging wrote this file itself.
    const rel = paths.site('index.html');
    const original = await readFile(path.join(staging.dir, rel));
    await writeFile(path.join(staging.dir, rel), Buffer.alloc(original.length, 0x20));
    await expect(verifyStaging(staging.dir, { staged: staging.files() })).resolves.toBeUndefined();
    expect(await messageOf(verifyStaging(staging.dir))).toContain(`${rel}: its SHA-256 differs`);
    await discard(staging);
  });

  it.each([
    ['a file appended to after staging', async (s: Staging) => appendFile(path.join(s.dir, paths.site('index.html')), 'x'), `${paths.site('index.html')}: it has`],
    ['a stray file', async (s: Staging) => writeFile(path.join(s.dir, 'stray.html'), 'x'), 'stray.html: it is on disk but not listed'],
    ['a missing file', async (s: Staging) => unlink(path.join(s.dir, paths.site('rss.xml'))), `${paths.site('rss.xml')}: it is listed in manifest.json but missing on disk`],
    ['a symlink', async (s: Staging) => import('node:fs/promises').then((fs) => fs.symlink('/etc/passwd', path.join(s.dir, 'passwd'))), 'not a regular file'],
    [
      'a manifest that lists another hash',
      async (s: Staging) => {
        const file = path.join(s.dir, paths.manifest());
        const text = await readFile(file, 'utf8');
        const sha = staged(s, paths.site('rss.xml')).sha256;
        await unlink(file);
        await writeFile(file, text.replace(sha, 'f'.repeat(64)));
      },
      `${paths.site('rss.xml')}: its SHA-256 in manifest.json differs from what was staged`,
    ],
    [
      'a manifest that leaves a staged file out',
      async (s: Staging) => {
        const file = path.join(s.dir, paths.manifest());
        const manifest = JSON.parse(await readFile(file, 'utf8'));
        manifest.files = manifest.files.filter((f: { path: string }) => f.path !== '_headers');
        await unlink(file);
        await writeFile(file, JSON.stringify(manifest, null, 2) + '\n');
      },
      '_headers: it was staged but is not listed in manifest.json',
    ],
  ])('rejects %s', async (_label, spoil, expected) => {
    const staging = await stagedSite(path.join(await tempDir(), 'out'));
    await spoil(staging);
    expect(await messageOf(verifyStaging(staging.dir, { staged: staging.files() }))).toContain(expected);
    await discard(staging);
  });

  it('checks a hard-linked unchanged file by its size', async () => {
    const out = path.join(await tempDir(), 'out');
    await build(out, sampleSite());
    const staging = await stagedSite(out);
    expect([...staging.files().values()].filter((f) => f.changed)).toEqual([]);
    // As publish does: link the kept files first.
    await linkKept(staging);
    await expect(verifyStaging(staging.dir, { staged: staging.files() })).resolves.toBeUndefined();
    const rel = paths.site('rss.xml');
    await unlink(path.join(staging.dir, rel)); // break the link without touching the published copy
    await writeFile(path.join(staging.dir, rel), '<rss>');
    expect(await messageOf(verifyStaging(staging.dir, { staged: staging.files() }))).toContain(`${rel}: it has 5 bytes`);
    await discard(staging);
  });
});

function staged(s: Staging, rel: string): { bytes: number; sha256: string } {
  return s.files().get(rel)!;
}

describe('keep() after isPublished()', () => {
  it('keeps the published file (linked at publish), and still reads a published file edited by hand', async () => {
    const out = path.join(await tempDir(), 'out');
    await build(out, sampleSite());
    const staging = await createStaging(out);
    const page = paths.eventPage('arts', 'e1');
    const ics = paths.eventIcs('arts', 'e1');
    expect(await staging.isPublished(page)).toBe(true);
    expect(await staging.isPublished('calendars/arts/events/none.html')).toBe(false);
    await staging.keep(page);
    // Deferred: nothing in staging until publish links it.
    await expect(stat(path.join(staging.dir, page))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(staging.files().get(page)).toEqual({ bytes: Buffer.byteLength(sampleSite()[page]!), sha256: hex(Buffer.from(sampleSite()[page]!)), changed: false });
    await appendFile(path.join(out, ics), 'edited');
    expect(await staging.isPublished(ics)).toBe(false);
    await staging.keep(ics);
    const edited = await readFile(path.join(out, ics));
    expect(staging.files().get(ics)).toEqual({ bytes: edited.length, sha256: hex(edited), changed: false });
    // The edited file does not match the manifest, so it was linked at once; the page is linked at publish.
    expect((await stat(path.join(staging.dir, ics))).ino).toBe((await stat(path.join(out, ics))).ino);
    await linkKept(staging);
    expect((await stat(path.join(staging.dir, page))).ino).toBe((await stat(path.join(out, page))).ino);
    await discard(staging);
  });
});

describe('removeTree', () => {
  it('removes nested folders, files and links, and accepts a missing root', async () => {
    const root = path.join(await tempDir(), 'tree');
    await mkdir(path.join(root, 'a', 'b', 'c'), { recursive: true });
    for (let i = 0; i < 50; i++) await writeFile(path.join(root, 'a', i % 2 ? 'b' : 'b/c', `f${i}`), 'x');
    await link(path.join(root, 'a', 'b', 'f1'), path.join(root, 'linked'));
    await import('node:fs/promises').then((fs) => fs.symlink('/etc', path.join(root, 'a', 'etc')));
    await removeTree(root);
    await expect(stat(root)).rejects.toMatchObject({ code: 'ENOENT' });
    await removeTree(root);
  });
});
