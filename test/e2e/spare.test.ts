// The previous output kept beside --out as the next build's staging folder (src/publish/spare.ts):
// a changed rebuild starts from it instead of making every folder and link anew, and publishes
// exactly what a cold build would. In-process builds at one fixed "now" against a demo portal.
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { buildAt } from '../support/build-at.js';
import type { BuildSummary } from '../../src/pipeline/summary.js';
import { copyHistory, replaceRecord } from '../support/store.js';
import { fileInodes, snapshotTree } from '../support/tree.js';

let portal: DemoPortal;
const now = Date.now();

beforeAll(async () => {
  portal = await startDemoPortal({ now, calendars: 3, eventsPerCalendar: 30 });
});
afterAll(() => portal.close());

const build = (dir: string): ReturnType<typeof buildAt> => buildAt({ portal, work: dir, site: join(dir, 'site'), cache: join(dir, 'cache'), now });
const SPARE = '.site.calfeed-spare';

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'calfeed-spare-'));
  try {
    await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Build `dir` again, and build the portal as it is now from nothing but the event history that
 * build starts from (as the differential test does): the two must publish the same bytes.
 */
async function rebuildAndCold(dir: string): Promise<{ summary: BuildSummary; cold: Map<string, string> }> {
  let cold = new Map<string, string>();
  let summary: BuildSummary | undefined;
  await withDir(async (other) => {
    await mkdir(join(other, 'cache'));
    await copyHistory(join(dir, 'cache'), join(other, 'cache'));
    summary = (await build(dir)).summary;
    await build(other);
    cold = shas(await snapshotTree(join(other, 'site')));
  });
  return { summary: summary!, cold };
}

function shas(tree: Map<string, { sha256: string }>): Map<string, string> {
  return new Map([...tree].map(([file, { sha256 }]) => [file, sha256]));
}

/** A cold build, then a changed one: returns the inode of the spare's calendars/ folder. */
async function withSpare(dir: string): Promise<number> {
  await build(dir);
  portal.changeEvents(2);
  await build(dir);
  return (await stat(join(dir, SPARE, 'calendars'))).ino;
}

async function spareList(dir: string): Promise<{ stale: string[] }> {
  return JSON.parse(await readFile(join(dir, `${SPARE}.json`), 'utf8')) as { stale: string[] };
}

describe('the previous output kept as the next build staging folder', () => {
  it('a changed rebuild keeps the old output as the spare, listing where it differs; the next one starts from it and publishes a cold build bytes', async () => {
    await withDir(async (dir) => {
      const out = join(dir, 'site');
      await build(dir);
      portal.changeEvents(3);
      const before = await fileInodes(out);
      expect((await build(dir)).summary.published).toBe(true);
      const after = await fileInodes(out);
      // The spare is the old output: it differs from the new one where a file was written or removed.
      const differs = [...before].filter(([file, ino]) => after.get(file) !== ino).map(([file]) => file);
      expect((await spareList(dir)).stale.sort()).toEqual(differs.sort());
      expect(differs.length).toBeGreaterThan(3);
      const spareFolder = (await stat(join(dir, SPARE, 'calendars'))).ino;

      portal.changeEvents(3);
      const published = await snapshotTree(out);
      const { summary, cold } = await rebuildAndCold(dir);
      expect(summary).toMatchObject({ published: true });
      // The spare became the new output: its folders are the very folders --out has now.
      expect((await stat(join(out, 'calendars'))).ino).toBe(spareFolder);
      const now2 = await snapshotTree(out);
      expect(shas(now2)).toEqual(cold);
      // What did not change is the published file itself (same mtime), and as many were written as the summary says.
      const rewritten = [...now2].filter(([file, f]) => published.get(file)?.mtimeMs !== f.mtimeMs);
      expect(rewritten.length).toBe(summary.files.written);
      expect(await readdir(dir)).toContain(SPARE);
    });
  });

  it('a spare that does not match --out is removed, not used', async () => {
    await withDir(async (dir) => {
      const out = join(dir, 'site');
      const spareFolder = await withSpare(dir);
      // --out replaced by a copy of itself: the spare's list names the folder it was made against.
      await cp(out, join(dir, 'copy'), { recursive: true });
      await rm(out, { recursive: true });
      await cp(join(dir, 'copy'), out, { recursive: true });
      portal.changeEvents(2);
      const copied = await rebuildAndCold(dir);
      expect(copied.summary.published).toBe(true);
      expect((await stat(join(out, 'calendars'))).ino).not.toBe(spareFolder);
      expect(shas(await snapshotTree(out))).toEqual(copied.cold);

      // A list that cannot be read: the spare goes.
      await writeFile(join(dir, `${SPARE}.json`), '{');
      const spareNow = (await stat(join(dir, SPARE, 'calendars'))).ino;
      portal.changeEvents(2);
      const unreadable = await rebuildAndCold(dir);
      expect(unreadable.summary.published).toBe(true);
      expect((await stat(join(out, 'calendars'))).ino).not.toBe(spareNow);
      expect(shas(await snapshotTree(out))).toEqual(unreadable.cold);
    });
  });

  it('a dot file removed from --out by hand does not come back from the spare', async () => {
    await withDir(async (dir) => {
      const out = join(dir, 'site');
      await build(dir);
      await writeFile(join(out, '.nojekyll'), '');
      portal.changeEvents(1);
      await build(dir);
      expect(await readdir(out)).toContain('.nojekyll');
      await rm(join(out, '.nojekyll'));
      await writeFile(join(out, '.gitkeep'), '');
      portal.changeEvents(1);
      expect((await build(dir)).summary.published).toBe(true);
      const top = await readdir(out);
      expect(top).not.toContain('.nojekyll');
      expect(top).toContain('.gitkeep');
    });
  });

  it('a rebuild that finds the very files --out holds gives the spare back for the next one', async () => {
    await withDir(async (dir) => {
      const out = join(dir, 'site');
      const spareFolder = await withSpare(dir);
      // Without the record, the build renders everything again, to the bytes --out has.
      await replaceRecord(join(dir, 'cache'));
      expect((await build(dir)).summary).toMatchObject({ published: false });
      expect((await stat(join(dir, SPARE, 'calendars'))).ino).toBe(spareFolder);
      portal.changeEvents(2);
      const taken = await rebuildAndCold(dir);
      expect(taken.summary.published).toBe(true);
      expect((await stat(join(out, 'calendars'))).ino).toBe(spareFolder);
      expect(shas(await snapshotTree(out))).toEqual(taken.cold);
    });
  });
});
