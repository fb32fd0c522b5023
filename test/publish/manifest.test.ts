import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { paths } from '../../src/paths.js';
import { shrinkReason } from '../../src/publish/index.js';
import { contentTypeFor } from '../../src/publish/content-types.js';
import type { Manifest } from '../../src/publish/manifest.js';
import { parseManifest } from '../../src/publish/manifest-read.js';
import { build, CALENDARS, manifestText, readManifest, sampleSite, tempDir } from './helpers.js';

function filesOf(site: Record<string, string>): Map<string, { bytes: number; sha256: string }> {
  return new Map(Object.entries(site).map(([rel, data]) => [rel, { bytes: Buffer.byteLength(data), sha256: 'f'.repeat(64) }]));
}

describe('manifest.json', () => {
  it('lists every file but itself, sorted by path, with kind, content type, size and hash', () => {
    const site = sampleSite();
    const manifest = JSON.parse(manifestText(filesOf({ ...site, 'manifest.json': '{}' }), CALENDARS, { generator: 'calfeed 1.2.3' })) as Manifest;
    const listed = manifest.files.map((f) => f.path);
    expect(listed).toEqual(Object.keys(site).sort());
    expect(listed).not.toContain('manifest.json');
    const details = manifest.files.find((f) => f.path === paths.detailsMirror('arts', 'e1'));
    expect(details).toEqual({
      path: paths.detailsMirror('arts', 'e1'),
      kind: 'mirror',
      contentType: 'application/json; charset=utf-8',
      bytes: Buffer.byteLength(site[paths.detailsMirror('arts', 'e1')]!),
      sha256: 'f'.repeat(64),
    });
    expect(manifest.generator).toBe('calfeed 1.2.3');
  });

  it('counts events and files per calendar (both its folders)', () => {
    const manifest = parseManifest(manifestText(filesOf(sampleSite()), CALENDARS, { generator: 'g' }));
    expect(manifest.counts).toEqual({ calendars: 2, events: 3, files: Object.keys(sampleSite()).length });
    // arts: events mirror, 2 details, rss, atom, calendar.ics, 1 event .ics, 1 event page
    expect(manifest.calendars).toEqual([
      { id: 'arts', slug: 'arts', title: 'Arts', events: 2, files: 8 },
      { id: 'Sport & Fun', slug: CALENDARS[1]!.slug, title: 'Sport', events: 1, files: 2 },
    ]);
  });

  it('is deterministic and carries no timestamps', () => {
    const a = manifestText(filesOf(sampleSite()), CALENDARS, { generator: 'g' });
    const reversed = new Map([...filesOf(sampleSite())].reverse());
    expect(manifestText(reversed, CALENDARS, { generator: 'g' })).toBe(a);
    expect(a).not.toMatch(/\d{4}-\d{2}-\d{2}T|"(date|time|generated|built)[A-Za-z]*"/i);
    expect(a).not.toMatch(/\b1[6-9]\d{11}\b/); // epoch milliseconds
  });

  it('is what the published folder holds, byte-identical across unchanged builds', async () => {
    const out = path.join(await tempDir(), 'out');
    await build(out, sampleSite());
    const first = await readManifest(out);
    await build(out, sampleSite());
    expect(await readManifest(out)).toEqual(first);
    expect(first?.files.find((f) => f.path === '_headers')?.contentType).toBe(contentTypeFor('_headers'));
  });
});

describe('shrinkReason', () => {
  const previous = parseManifest(
    manifestText(new Map(), [
      { id: 'a', slug: 'a', title: 'A', events: 60 },
      { id: 'b', slug: 'b', title: 'B', events: 40 },
    ], { generator: 'g' }),
  );

  it('allows the first build and builds that keep at least half', () => {
    expect(shrinkReason(undefined, { calendars: 0, events: 0 })).toBeUndefined();
    expect(shrinkReason(previous, { calendars: 2, events: 100 })).toBeUndefined();
    expect(shrinkReason(previous, { calendars: 1, events: 50 })).toBeUndefined();
    expect(shrinkReason(previous, { calendars: 5, events: 500 })).toBeUndefined();
  });

  it('refuses less than half the events or calendars, saying how many and what to do', () => {
    expect(shrinkReason(previous, { calendars: 2, events: 49 })).toMatch(/49 events, less than half of the 100 .*--allow-shrink/);
    expect(shrinkReason(previous, { calendars: 0, events: 0 })).toMatch(/0 calendars, less than half of the 2/);
  });

  it('never refuses when the last build had nothing', () => {
    const empty = parseManifest(manifestText(new Map(), [], { generator: 'g' }));
    expect(shrinkReason(empty, { calendars: 0, events: 0 })).toBeUndefined();
  });
});
