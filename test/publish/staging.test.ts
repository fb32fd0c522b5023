import { readdir, readFile, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CalfeedError } from '../../src/errors.js';
import { paths } from '../../src/paths.js';
import { createStaging, discard, publish, writeSiteMeta } from '../../src/publish/index.js';
import { build, CALENDARS, sampleSite, snapshot, tempDir } from './helpers.js';

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  return error instanceof CalfeedError ? error.code : String(error);
}

describe('staging', () => {
  it('is created beside the output folder, named after it', async () => {
    const root = await tempDir();
    const staging = await createStaging(path.join(root, 'out'));
    expect(path.dirname(staging.dir)).toBe(root);
    expect(path.basename(staging.dir)).toMatch(new RegExp(`^\\.out\\.calfeed-staging-${process.pid}-[0-9a-f]+$`));
    await discard(staging);
    expect(await readdir(root)).toEqual([]);
  });

  it.each([
    '../escape',
    'a/../../escape',
    '/etc/passwd',
    'a\\..\\b',
    'a\0b',
    'a//b',
    './a',
    'a/.',
    '',
    'C:/x',
    'a\nb',
  ])('refuses the unsafe path %j and writes nothing outside', async (rel) => {
    const root = await tempDir();
    const staging = await createStaging(path.join(root, 'out'));
    expect(await codeOf(staging.write(rel, 'x'))).toBe('BUILD');
    expect(await codeOf(staging.keep(rel))).toBe('BUILD');
    expect(await readdir(root)).toEqual([path.basename(staging.dir)]);
    expect(await readdir(staging.dir)).toEqual([]);
    await discard(staging);
  });

  it('keep() publishes the listed file as it was, bytes and mtime; a listed file neither kept nor written is gone', async () => {
    const out = path.join(await tempDir(), 'out');
    const site = sampleSite();
    await build(out, site);
    const before = await snapshot(out);
    const staging = await createStaging(out);
    const changed = paths.calendar('arts', 'rss.xml');
    const dropped = paths.eventPage('arts', 'e1');
    await staging.write(changed, site[changed]!.replace('Arts', 'Arts!'));
    // Every listed file but the one written, the one dropped, and _headers, which writeSiteMeta writes.
    for (const rel of Object.keys(site)) if (rel !== changed && rel !== dropped && rel !== paths.headers()) await staging.keep(rel);
    await writeSiteMeta(staging, CALENDARS, { generator: 'calfeed test' });
    await publish(staging, out);
    const after = await snapshot(out);
    expect(after.has(dropped)).toBe(false);
    expect(after.get(changed)!.sha256).not.toBe(before.get(changed)!.sha256);
    for (const rel of Object.keys(site).filter((r) => r !== dropped && r !== changed)) expect(after.get(rel), rel).toEqual(before.get(rel));
  });

  it('refuses two writes of one path, even concurrent ones', async () => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    const results = await Promise.allSettled([staging.write('index.html', 'a'), staging.write('index.html', 'b')]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(await readFile(path.join(staging.dir, 'index.html'), 'utf8')).toBe('a');
    await discard(staging);
  });

  it.each([
    ['calendars/Arts/index.html', 'calendars/arts/index.html'],
    ['calendars/arts/rss.xml', 'Calendars/arts/atom.xml'],
    ['index.html', 'INDEX.HTML'],
    ['calendars/a', 'calendars/A/index.html'],
  ])('refuses %s and %s, which are one file on case-insensitive systems', async (first, second) => {
    const staging = await createStaging(path.join(await tempDir(), 'out'));
    await staging.write(first, 'x');
    const error = await staging.write(second, 'y').catch((e: unknown) => e);
    expect((error as CalfeedError).code).toBe('BUILD');
    expect((error as Error).message).toContain(first);
    await discard(staging);
  });

  it('keep() keeps the published file, inode and mtime, through publish, and fails clearly when there is none', async () => {
    const out = path.join(await tempDir(), 'out');
    await build(out, sampleSite());
    const rel = paths.detailsMirror('arts', 'e1');
    const old = new Date('2010-01-01T00:00:00Z');
    await utimes(path.join(out, rel), old, old);
    const { ino } = await stat(path.join(out, rel));

    const staging = await createStaging(out);
    for (const [file, data] of Object.entries(sampleSite())) if (file !== rel) await staging.write(file, data);
    await staging.keep(rel);
    expect(staging.files().get(rel)).toMatchObject({ bytes: Buffer.byteLength(sampleSite()[rel]!), changed: false });
    // Deferred to publish: nothing in staging yet, and readPublished() reads the published copy.
    await expect(stat(path.join(staging.dir, rel))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await staging.readPublished(rel))?.toString()).toBe(sampleSite()[rel]);
    const missing = await staging.keep(paths.detailsMirror('arts', 'gone')).catch((e: unknown) => e);
    expect((missing as Error).message).toMatch(/published copy .* is missing.*--cache-dir/);
    await writeSiteMeta(staging, CALENDARS, { generator: 'calfeed test' });
    await publish(staging, out);
    expect(await stat(path.join(out, rel))).toMatchObject({ ino, mtimeMs: old.getTime() });
  });

  it('readPublished() returns staged bytes first, then published ones, else undefined', async () => {
    const out = path.join(await tempDir(), 'out');
    await build(out, sampleSite());
    const staging = await createStaging(out);
    const rel = paths.eventsMirror('arts');
    expect((await staging.readPublished(rel))?.toString()).toBe(sampleSite()[rel]);
    await staging.write(rel, '{"data":[]}');
    expect((await staging.readPublished(rel))?.toString()).toBe('{"data":[]}');
    expect(await staging.readPublished('event-calendar/none/events')).toBeUndefined();
    await expect(staging.readPublished('../x')).rejects.toThrow(/Refusing/);
    await discard(staging);
  });

  it('records sizes and hashes and marks changed files', async () => {
    const out = path.join(await tempDir(), 'out');
    await build(out, { 'index.html': 'same', 'style.css': 'old' });
    const staging = await createStaging(out);
    await staging.write('index.html', 'same');
    await staging.write('style.css', Buffer.from('new!'));
    expect(staging.files().get('index.html')).toEqual({
      bytes: 4,
      sha256: '0967115f2813a3541eaef77de9d9d5773f1c0c04314b0bbfe4ff3b3b1c55b5d5',
      changed: false,
    });
    expect(staging.files().get('style.css')).toMatchObject({ bytes: 4, changed: true });
    await discard(staging);
  });

  it('cannot be written after it was published', async () => {
    const out = path.join(await tempDir(), 'out');
    const staging = await createStaging(out);
    await staging.write('index.html', '<p>hi</p>');
    await writeSiteMeta(staging, CALENDARS, { generator: 't' });
    await publish(staging, out);
    await expect(staging.write('late.html', 'x')).rejects.toThrow(/already published or discarded/);
  });

  it('stops writing once its signal is aborted', async () => {
    const controller = new AbortController();
    const staging = await createStaging(path.join(await tempDir(), 'out'), { signal: controller.signal });
    controller.abort(new Error('SIGTERM'));
    await expect(staging.write('index.html', 'x')).rejects.toThrow('SIGTERM');
    await discard(staging);
  });
});
