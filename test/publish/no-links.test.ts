// Publishing where hard links are not available (some network and FAT-like file systems): every
// link(2) here fails with EPERM, as it would there. Unchanged files are then copied with their old
// mtime (and flushed to disk before the commit, like written ones).

import { stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { paths } from '../../src/paths.js';
import { createStaging, publish, writeSiteMeta } from '../../src/publish/index.js';
import { walkFiles } from '../../src/publish/fs-util.js';
import { build, CALENDARS, sampleSite, snapshot, tempDir } from './helpers.js';

vi.mock('node:fs', async (importOriginal) => (await import('../support/no-links.js')).withoutLinkSync(await importOriginal<object>()));
vi.mock('node:fs/promises', async (importOriginal) => {
  const { noLink } = await import('../support/no-links.js');
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const link = async (): Promise<never> => noLink();
  return { ...actual, default: { ...actual, link }, link };
});

const OLD = new Date('2001-02-03T04:05:06Z');

describe('publishing without hard links', () => {
  it('copies unchanged files with their mtime, writes only what changed, and says so once', async () => {
    const out = path.join(await tempDir(), 'out');
    await build(out, sampleSite());
    for await (const file of walkFiles(out)) await utimes(file.abs, OLD, OLD);
    const before = await snapshot(out);
    const changed = paths.detailsMirror('arts', 'e1');
    const site = { ...sampleSite(), [changed]: '{"id":"e1","title":"Talk, moved"}' };

    const warnings: string[] = [];
    const staging = await createStaging(out, { onWarning: (w) => warnings.push(w) });
    for (const [rel, data] of Object.entries(site)) await staging.write(rel, data);
    await writeSiteMeta(staging, CALENDARS, { generator: 'calfeed test' });
    const result = await publish(staging, out);

    expect(warnings).toEqual([`Hard links are not available beside ${out} (EPERM); copying unchanged files and keeping their modification times.`]);
    expect(result).toMatchObject({ written: 2, unchanged: before.size - 2, removed: 0 });
    const after = await snapshot(out);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [rel, facts] of after) {
      if (rel === changed || rel === paths.manifest()) {
        expect(facts.mtimeMs, rel).not.toBe(OLD.getTime());
        continue;
      }
      expect(facts.sha256, rel).toBe(before.get(rel)!.sha256);
      expect(facts.mtimeMs, rel).toBe(OLD.getTime());
      // A copy: nothing is ever moved out of --out.
      expect(facts.ino, rel).not.toBe(before.get(rel)!.ino);
    }
    expect(after.get(changed)!.sha256).not.toBe(before.get(changed)!.sha256);
    expect((await stat(path.join(out, 'event-calendar', 'arts'))).isDirectory()).toBe(true);
  });
});
