// The compact structures that keep a 100,000-event build small: staging's claims and file table,
// the manifest read an entry at a time, verify's byte-level iCalendar check. Each must give exactly
// what the plain versions gave (same files, same collisions, same messages).

import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CalfeedError } from '../../src/errors.js';
import { paths } from '../../src/paths.js';
import { FileTable } from '../../src/publish/file-table.js';
import type { ManifestFile } from '../../src/publish/manifest.js';
import { parseManifest, scanManifest } from '../../src/publish/manifest-read.js';
import { createStaging, discard, publish, writeSiteMeta } from '../../src/publish/index.js';
import { contentProblem, icalProblem } from '../../src/publish/content-check.js';
import { verifyStaging } from '../../src/publish/verify.js';
import { build, CALENDARS, manifestText, readManifest, renderManifest, sampleSite, tempDir } from './helpers.js';

async function messageOf(p: Promise<unknown>): Promise<string> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CalfeedError);
  return (error as Error).message;
}

async function scanAll(file: string): Promise<{ meta: unknown; files: ManifestFile[] }> {
  const { manifest, result } = await scanManifest(file, () => {
    const files: ManifestFile[] = [];
    return { add: (f) => files.push(f), done: () => files };
  });
  return { meta: manifest, files: result };
}

describe('staging claims', () => {
  it.each([
    ['A.html', 'a.html'],
    ['a.html', 'A.html'],
    ['Docs/x.html', 'docs'],
    ['docs/x.html', 'DOCS/y.html'],
    ['a/B/c.html', 'a/b/c/d.html'],
    ['x.html', 'X.HTML/y.html'],
  ])('refuses %s then %s (one path on case-insensitive systems), naming the first', async (first, second) => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    await staging.write(first, 'x');
    const message = await messageOf(staging.write(second, 'y'));
    expect(message).toContain(`${second} and ${first} collide`);
    expect([...staging.files().keys()]).toEqual([first]);
    await discard(staging);
  });

  it('refuses the same path with capitals twice as a bug, and allows folders shared under one spelling', async () => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    await staging.write('Cal/One.html', '1');
    expect(await messageOf(staging.write('Cal/One.html', '2'))).toContain('Two outputs were written to the same file Cal/One.html');
    await staging.write('Cal/two.html', '2');
    await staging.write('Cal/Sub/three.html', '3');
    expect([...staging.files().keys()]).toEqual(['Cal/One.html', 'Cal/two.html', 'Cal/Sub/three.html']);
    expect(await readFile(path.join(staging.dir, 'Cal', 'Sub', 'three.html'), 'utf8')).toBe('3');
    await discard(staging);
  });

  it('makes every folder once, however many writes race into new nested folders', async () => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    const rels: string[] = [];
    for (let i = 0; i < 300; i++) rels.push(`event-calendar/c${i % 3}/event/${i % 7}/${i % 2 ? 'deep/' : ''}f${i}.json`);
    await Promise.all(rels.map((rel, i) => staging.write(rel, `{"i":${i}}`)));
    expect(staging.files().size).toBe(300);
    for (const [i, rel] of rels.entries()) expect(await readFile(path.join(staging.dir, rel), 'utf8')).toBe(`{"i":${i}}`);
    expect((await readdir(path.join(staging.dir, 'event-calendar'))).sort()).toEqual(['c0', 'c1', 'c2']);
    await discard(staging);
  });

  it('accepts and refuses exactly what claims kept as plain Maps of paths did, over random case-twin paths', async () => {
    // The Map-based claims staging used before PathClaims, as the oracle: same walk, same messages.
    const files = new Set<string>();
    const upper = new Map<string, string>();
    const folders = new Map<string, string>();
    const lower = (p: string): string => p.toLowerCase();
    const isFolderOf = (folder: string, by: string): boolean => by.length > folder.length && by[folder.length] === '/' && by.startsWith(folder);
    const fileClaim = (key: string): string | undefined => (files.has(key) ? key : upper.get(key));
    const oracle = (relPath: string): string | undefined => {
      const open: string[] = [];
      for (let f = relPath.slice(0, Math.max(0, relPath.lastIndexOf('/'))); f !== ''; f = f.slice(0, Math.max(0, f.lastIndexOf('/')))) {
        const by = folders.get(lower(f));
        if (by !== undefined && isFolderOf(f, by)) break;
        open.push(f);
      }
      for (const f of open.reverse()) {
        const other = fileClaim(lower(f));
        if (other !== undefined) return `${relPath} and ${other} collide`;
        const by = folders.get(lower(f));
        if (by === undefined) folders.set(lower(f), relPath);
        else if (!isFolderOf(f, by)) return `${relPath} and ${by} collide`;
      }
      const prior = fileClaim(lower(relPath)) ?? folders.get(lower(relPath));
      if (prior === relPath) return `same file ${relPath}`;
      if (prior !== undefined) return `${relPath} and ${prior} collide`;
      if (lower(relPath) === relPath) files.add(relPath);
      else upper.set(lower(relPath), relPath);
      return undefined;
    };
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const segments = ['a', 'A', 'b', 'B', 'ab', 'aB', 'Ab', 'İ', 'i̇', 'ς', 'Σ'];
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    let refused = 0;
    for (let n = 0; n < 600; n++) {
      // Mostly new file names (folders then collide by case), sometimes a bare segment deeper down
      // (files and folders collide too).
      const parts = Array.from({ length: 1 + random(4) }, () => segments[random(segments.length)]!);
      if (parts.length < 3 || random(8) > 0) parts.push(`${segments[random(segments.length)]}${n}.txt`);
      const relPath = parts.join('/');
      const expected = oracle(relPath);
      const message = await staging.write(relPath, relPath).then(
        () => undefined,
        (e: unknown) => (e as Error).message,
      );
      if (expected === undefined) expect(message, relPath).toBeUndefined();
      else {
        refused++;
        expect(message, relPath).toContain(expected);
      }
    }
    expect(refused).toBeGreaterThan(100);
    expect(staging.files().size).toBeGreaterThan(100);
    await discard(staging);
  });

  it('lists a file only once its bytes are staged: a write that fails leaves no entry', async () => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    await staging.write('a.html', 'a');
    // A streamed file whose bytes have not all arrived: claimed, not listed.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const pending = staging.writeChunks(
      'b.html',
      (async function* () {
        await gate;
        yield 'b';
      })(),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(staging.files().has('b.html')).toBe(false);
    expect(staging.files().size).toBe(1);
    await expect(staging.write('b.html', 'x')).rejects.toThrow(/same file b.html/);
    release();
    await pending;
    expect(staging.files().get('b.html')).toEqual({ bytes: 1, sha256: await sha256Hex('b'), changed: true });
    // Something else put a file where c.html goes: the write fails (EEXIST) after its claim.
    await writeFile(path.join(staging.dir, 'c.html'), 'intruder');
    await expect(staging.write('c.html', 'c')).rejects.toMatchObject({ code: 'EEXIST' });
    expect(staging.files().has('c.html')).toBe(false);
    expect([...staging.files().keys()]).toEqual(['a.html', 'b.html']);
    expect(await messageOf(staging.write('c.html', 'again'))).toContain('same file c.html');
    await discard(staging);
  });
});

describe('staging large texts', () => {
  // Over 4 M code units, so staging hashes, compares and writes it in 1 M slices; a surrogate pair
  // straddles the first cut and a lone surrogate sits near the second.
  const big = (fill: string): string => 'x'.repeat((1 << 20) - 1) + '\u{1f389}' + fill.repeat(1 << 20) + '\ud800' + 'ė'.repeat(3 << 20) + 'end';

  it('writes exactly the UTF-8 bytes of the string, and records their size and SHA-256', async () => {
    const text = big('a');
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    await staging.write('big.html', text);
    const expected = Buffer.from(text, 'utf8');
    const written = await readFile(path.join(staging.dir, 'big.html'));
    expect(written.equals(expected)).toBe(true);
    const { createHash } = await import('node:crypto');
    expect(staging.files().get('big.html')).toEqual({ bytes: expected.length, sha256: createHash('sha256').update(expected).digest('hex'), changed: true });
    await discard(staging);
  });

  it('keeps an unchanged large file as published and rewrites a changed one of the same size', async () => {
    const out = path.join(await tempDir(), 'out');
    await build(out, { ...sampleSite(), 'big.html': big('a') });
    const staging = await createStaging(out);
    await staging.write('big.html', big('a'));
    await staging.write(paths.manifest(), await readFile(path.join(out, paths.manifest()), 'utf8') + ' '.repeat(5 << 20));
    expect(staging.files().get('big.html')?.changed).toBe(false);
    expect(staging.files().get(paths.manifest())?.changed).toBe(true);
    await discard(staging);
    const again = await createStaging(out);
    await again.write('big.html', big('b'));
    expect(again.files().get('big.html')?.changed).toBe(true);
    expect((await readFile(path.join(again.dir, 'big.html'))).equals(Buffer.from(big('b')))).toBe(true);
    await discard(again);
    // With the published manifest damaged, staging compares the bytes themselves, slice by slice.
    await writeFile(path.join(out, paths.manifest()), 'damaged');
    const unknown = await createStaging(out);
    await unknown.write('big.html', big('a'));
    await unknown.write('other.html', big('b'));
    expect(unknown.files().get('big.html')?.changed).toBe(false);
    expect(unknown.files().get('other.html')?.changed).toBe(true);
    await discard(unknown);
  });
});

async function sha256Hex(text: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(text).digest('hex');
}

describe('FileTable', () => {
  it('behaves as a read-only Map of { bytes, sha256, changed } in insertion order', () => {
    const table = new FileTable();
    const hex = 'ab'.repeat(32);
    table.set('b', 3, hex, true).set('a', 5, 'not-hex').set('c', 1, Buffer.alloc(32, 1));
    table.reserve('d');
    expect(table.size).toBe(3);
    expect(table.has('d')).toBe(false);
    expect(table.claimed('d')).toBe(true);
    expect(table.reserve('a')).toBe(false);
    expect([...table]).toEqual([
      ['b', { bytes: 3, sha256: hex, changed: true }],
      ['a', { bytes: 5, sha256: 'not-hex', changed: false }],
      ['c', { bytes: 1, sha256: '01'.repeat(32), changed: false }],
    ]);
    expect(table.matches('b', 3, hex)).toBe(true);
    expect(table.matches('b', 3, Buffer.from(hex, 'hex'))).toBe(true);
    expect(table.matches('b', 4, hex)).toBe(false);
    expect(table.matches('a', 5, 'not-hex')).toBe(true);
    expect(table.matches('d', 0, hex)).toBe(false);
    table.set('d', 2, hex);
    expect(table.size).toBe(4);
    const seenSlots = new Uint8Array(table.slotCount());
    seenSlots[table.slotOf('a')] = 1;
    expect(table.slotOf('zz')).toBe(-1);
    expect([...table.unseen(seenSlots)]).toEqual(['b', 'c', 'd']);
    const seen: string[] = [];
    table.forEach((v, k) => seen.push(`${k}:${v.bytes}`));
    expect(seen).toEqual(['b:3', 'a:5', 'c:1', 'd:2']);
  });

  it('grows past its first allocation without losing entries', () => {
    const table = new FileTable();
    for (let i = 0; i < 5000; i++) table.set(`f${i}`, i, Buffer.alloc(32, i % 256));
    expect(table.size).toBe(5000);
    expect(table.get('f4999')).toEqual({ bytes: 4999, sha256: (4999 % 256).toString(16).padStart(2, '0').repeat(32), changed: false });
    expect(table.get('f0')?.bytes).toBe(0);
  });
});

describe('scanManifest', () => {
  const files = (n: number): Map<string, { bytes: number; sha256: string }> => {
    const map = new Map<string, { bytes: number; sha256: string }>();
    for (let i = 0; i < n; i++) map.set(`calendars/arts/events/e${i}.html`, { bytes: i, sha256: (i % 16).toString(16).repeat(64) });
    map.set('calendars/arts/events/"quoted" \u00e9\u{1f389}.ics', { bytes: 7, sha256: 'f'.repeat(64) });
    return map;
  };

  it('reads what manifestChunks wrote exactly as parseManifest does', async () => {
    const text = manifestText(files(2500), CALENDARS, { generator: 'calfeed t' });
    const file = path.join(await tempDir(), 'manifest.json');
    await writeFile(file, text);
    const { meta, files: scanned } = await scanAll(file);
    const { files: parsed, ...rest } = parseManifest(text);
    expect(meta).toEqual(rest);
    expect(scanned).toEqual(parsed);
    expect(scanned).toHaveLength(2501);
  });

  it.each([
    ['re-indented', (t: string) => JSON.stringify(JSON.parse(t), null, 4)],
    ['on one line', (t: string) => JSON.stringify(JSON.parse(t))],
    ['with CRLF line ends', (t: string) => t.replace(/\n/g, '\r\n')],
    ['with keys in another order', (t: string) => t.replace(/"path": ("[^"]*"),\n(\s+)"kind": ("[^"]*"),/g, '"kind": $3,\n$2"path": $1,')],
    ['with an escaped path', (t: string) => t.replace('"calendars/arts/events/e1.html"', '"calendars\\/arts\\/events\\/e1.html"')],
    ['with an empty files list', () => manifestText(new Map(), CALENDARS, { generator: 'g' })],
  ])('falls back to the whole-file parse for a manifest %s, with the same result', async (_label, edit) => {
    const text = edit(manifestText(files(30), CALENDARS, { generator: 'g' }));
    const file = path.join(await tempDir(), 'manifest.json');
    await writeFile(file, text);
    const { meta, files: scanned } = await scanAll(file);
    const { files: parsed, ...rest } = parseManifest(text);
    expect(meta).toEqual(rest);
    expect(scanned).toEqual(parsed);
  });

  it('starts a fresh consumer when it falls back, so no entry is counted twice', async () => {
    const text = manifestText(files(10), CALENDARS, { generator: 'g' }).replace(/\n\}\n$/, '\n}\n\n');
    const file = path.join(await tempDir(), 'manifest.json');
    await writeFile(file, text);
    let started = 0;
    const { result } = await scanManifest(file, () => {
      started++;
      let n = 0;
      return { add: () => void n++, done: () => n };
    });
    expect(started).toBe(2);
    expect(result).toBe(11);
  });

  it('throws parseManifest errors for damaged files and the read error for missing ones', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'manifest.json');
    const good = manifestText(files(5), CALENDARS, { generator: 'g' });
    await writeFile(file, good.slice(0, good.length / 2));
    await expect(scanAll(file)).rejects.toThrow(/manifest.json is not valid JSON/);
    await writeFile(file, good.replace('"bytes": 3,', '"bytes": "3",'));
    await expect(scanAll(file)).rejects.toThrow(/does not have the shape/);
    await writeFile(file, '\uFEFF' + good);
    await expect(scanAll(file)).rejects.toThrow(/not valid JSON/);
    await expect(scanAll(path.join(dir, 'none.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('backs readManifest, and publish counts removed files from it', async () => {
    const out = path.join(await tempDir(), 'out');
    const site = sampleSite();
    await build(out, site);
    const text = await readFile(path.join(out, paths.manifest()), 'utf8');
    expect(await readManifest(out)).toEqual(parseManifest(text));
    const smaller = { ...site };
    delete smaller[paths.eventPage('arts', 'e1')];
    delete smaller[paths.eventIcs('arts', 'e1')];
    const result = await build(out, smaller);
    expect(result.removed).toBe(2);
  });
});

// manifestChunks, joined, is exactly the reference renderManifest's text.
describe('manifestChunks', () => {
  it.each([
    ['no files', new Map<string, { bytes: number; sha256: string }>()],
    ['only itself', new Map([[paths.manifest(), { bytes: 1, sha256: 'a'.repeat(64) }]])],
    [
      'the sample site, odd names and hashes',
      new Map<string, { bytes: number; sha256: string }>([
        ...Object.entries(sampleSite()).map(([rel, data], i): [string, { bytes: number; sha256: string }] => [rel, { bytes: Buffer.byteLength(data), sha256: String(i).repeat(64).slice(0, 64) }]),
        ['calendars/arts/events/"q" \u00e9\u{1f389}\u2028.html', { bytes: 0, sha256: 'not hex "at" all' }],
        [paths.manifest(), { bytes: 9, sha256: 'f'.repeat(64) }],
      ]),
    ],
  ])('is byte-identical to renderManifest (%s)', (_label, files) => {
    expect(Buffer.from(manifestText(files, CALENDARS, { generator: 'calfeed "1"' })).equals(Buffer.from(renderManifest(files, CALENDARS, { generator: 'calfeed "1"' })))).toBe(true);
  });

  it('is byte-identical for thousands of staged files', async () => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    for (let i = 0; i < 3000; i++) await staging.write(paths.detailsMirror(i % 2 ? 'arts' : CALENDARS[1]!.slug, `e${i}`), `{"i":${i}}`);
    const files = staging.files();
    expect(manifestText(files, CALENDARS, { generator: 'g' })).toBe(renderManifest(files, CALENDARS, { generator: 'g' }));
    await discard(staging);
  });
});

describe('verify at scale', () => {
  it('reports a file listed twice in the manifest', async () => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    for (const [rel, data] of Object.entries(sampleSite())) await staging.write(rel, data);
    await writeSiteMeta(staging, CALENDARS, { generator: 'g' });
    const file = path.join(staging.dir, paths.manifest());
    const manifest = parseManifest(await readFile(file, 'utf8'));
    manifest.files.push(manifest.files[0]!);
    await writeFile(file, JSON.stringify(manifest, null, 2) + '\n');
    expect(await messageOf(verifyStaging(staging.dir))).toContain(`it lists ${manifest.files[0]!.path} twice`);
    await discard(staging);
  });

  it('checks a large site with many files and publishes it', async () => {
    const out = path.join(await tempDir(), 'out');
    const staging = await createStaging(out);
    const site = sampleSite();
    for (let i = 0; i < 1500; i++) site[paths.detailsMirror('arts', `x${i}`)] = JSON.stringify({ id: i });
    await Promise.all(Object.entries(site).map(([rel, data]) => staging.write(rel, data)));
    await writeSiteMeta(staging, CALENDARS, { generator: 'g' });
    const result = await publish(staging, out);
    expect(result.files).toBe(Object.keys(site).length + 2);
  });

  const event = (i: number): string[] => ['BEGIN:VEVENT', `UID:${i}@t`, `SUMMARY:Saulėtekio al. ${i} 🎉`, 'END:VEVENT'];
  const calendar = (n: number): string => ['BEGIN:VCALENDAR', 'VERSION:2.0', ...Array.from({ length: n }, (_, i) => event(i)).flat(), 'END:VCALENDAR', ''].join('\r\n');

  it.each([
    ['valid, with non-ASCII text', (t: string) => t],
    ['valid, lower-case component names', (t: string) => t.replace('BEGIN:VEVENT', 'begin:vevent').replace('END:VEVENT', 'end:VEvent')],
    ['a bare LF deep inside', (t: string) => t.replace('UID:20000@t\r\n', 'UID:20000@t\n')],
    ['a lone CR', (t: string) => t.replace('UID:15000@t\r\n', 'UID:15000@t\rX\r\n')],
    ['an unclosed VEVENT', (t: string) => t.replace('END:VEVENT\r\nBEGIN:VEVENT\r\nUID:9@t', 'BEGIN:VEVENT\r\nUID:9@t')],
    ['content after END:VCALENDAR', (t: string) => t + 'X-LATE:1\r\n'],
    ['a second calendar after the first', (t: string) => t + 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n'],
    ['a BOM', (t: string) => '\uFEFF' + t],
    ['no final CRLF', (t: string) => t.slice(0, -2)],
    ['an END with nothing open', (t: string) => t.replace('VERSION:2.0\r\n', 'VERSION:2.0\r\nEND:VTODO\r\n')],
  ])('words a large .ics (%s) exactly as icalProblem does', (_label, edit) => {
    const text = edit(calendar(30000));
    const bytes = Buffer.from(text, 'utf8');
    expect(bytes.length).toBeGreaterThan(2_000_000);
    const decoded = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    expect(contentProblem(paths.site('calendar.ics'), bytes)).toBe(icalProblem(decoded));
  });

  it('still reports invalid UTF-8 in an .ics', () => {
    const bytes = Buffer.concat([Buffer.from('BEGIN:VCALENDAR\r\nX:'), Buffer.from([0xc3, 0x28]), Buffer.from('\r\nEND:VCALENDAR\r\n')]);
    expect(contentProblem(paths.site('calendar.ics'), bytes)).toBe('it is not valid UTF-8');
  });
});
