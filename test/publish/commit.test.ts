// Publishing with one commit step that never touches the live tree before it (folder mode: --out a
// folder): the new output is built beside --out, unchanged files hard-linked from it (same inode,
// bytes and mtime), and --out is whole up to the two final renames; a failure or crash at any
// point leaves the old output or the new one.

import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CalfeedError } from '../../src/errors.js';
import { paths } from '../../src/paths.js';
import { createStaging, discard, publish, recover, type Staging, writeSiteMeta } from '../../src/publish/index.js';
import type { SwapStep } from '../../src/publish/swap.js';
import { build, CALENDARS, killWhenPaused, siblingNames, tempDir } from './helpers.js';

const OLD = new Date('2001-02-03T04:05:06Z');

const ics = (summary: string): string =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calfeed//test//EN', 'BEGIN:VEVENT', `UID:${summary}@test`, `SUMMARY:${summary}`, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');

/** Two calendars of three events, laid out as a build lays them out (one folder per event's mirror). */
function eventSite(): Record<string, string> {
  const site: Record<string, string> = { [paths.calendarsMirror()]: '[{"id":"arts"},{"id":"music"}]', [paths.site('index.html')]: '<!doctype html><title>All</title>' };
  for (const cal of ['arts', 'music']) {
    site[paths.eventsMirror(cal)] = JSON.stringify(['e1', 'e2', 'e3']);
    site[paths.calendar(cal, 'index.html')] = `<!doctype html><title>${cal}</title>`;
    site[paths.calendar(cal, 'calendar.ics')] = ics(cal);
    for (const id of ['e1', 'e2', 'e3']) {
      site[paths.detailsMirror(cal, id)] = JSON.stringify({ id, title: `${cal} ${id}` });
      site[paths.eventPage(cal, id)] = `<!doctype html><title>${cal} ${id}</title>`;
      site[paths.eventIcs(cal, id)] = ics(`${cal}-${id}`);
    }
  }
  return site;
}

/** The site with one event's three files changed. */
function withChangedEvent(cal: string, id: string): Record<string, string> {
  return {
    ...eventSite(),
    [paths.detailsMirror(cal, id)]: JSON.stringify({ id, title: 'moved to Friday' }),
    [paths.eventPage(cal, id)]: '<!doctype html><title>moved to Friday</title>',
    [paths.eventIcs(cal, id)]: ics('moved to Friday'),
  };
}

interface Entry {
  type: 'file' | 'folder' | 'other';
  ino: number;
  /** Files only: */
  size?: number;
  mtimeMs?: number;
  sha256?: string;
}

/** Every entry under root: files with size, SHA-256, mtime and inode, folders with their inode. */
async function listing(root: string): Promise<Map<string, Entry>> {
  const out = new Map<string, Entry>();
  const walk = async (dir: string, rel: string): Promise<void> => {
    for (const name of (await readdir(dir)).sort()) {
      const abs = path.join(dir, name);
      const childRel = rel === '' ? name : `${rel}/${name}`;
      const info = await lstat(abs);
      if (info.isDirectory()) {
        out.set(childRel, { type: 'folder', ino: info.ino });
        await walk(abs, childRel);
      } else if (info.isFile()) {
        const sha256 = createHash('sha256').update(await readFile(abs)).digest('hex');
        out.set(childRel, { type: 'file', ino: info.ino, size: info.size, mtimeMs: info.mtimeMs, sha256 });
      } else {
        out.set(childRel, { type: 'other', ino: info.ino });
      }
    }
  };
  await walk(root, '');
  return out;
}

/** Publish the site into a fresh --out, then date every file back to OLD (so a rewrite shows). */
async function published(site: Record<string, string>): Promise<{ root: string; out: string }> {
  const root = await tempDir();
  const out = path.join(root, 'out');
  await build(out, site);
  for (const [rel, entry] of await listing(out)) if (entry.type === 'file') await utimes(path.join(out, rel), OLD, OLD);
  return { root, out };
}

/** A published site, its listing, and a staging of it with one event changed, ready to publish. */
async function stagedChange(): Promise<{ root: string; out: string; before: Map<string, Entry>; staging: Staging }> {
  const { root, out } = await published(eventSite());
  const before = await listing(out);
  const staging = await createStaging(out);
  for (const [rel, data] of Object.entries(withChangedEvent('arts', 'e2'))) await staging.write(rel, data);
  await writeSiteMeta(staging, CALENDARS, { generator: 'calfeed test' });
  return { root, out, before, staging };
}

/** Files of `after` whose bytes, mtime or inode differ from `before` (or that are new). */
function touchedFiles(before: Map<string, Entry>, after: Map<string, Entry>): string[] {
  const touched: string[] = [];
  for (const [rel, entry] of after) {
    if (entry.type !== 'file') continue;
    const was = before.get(rel);
    if (was === undefined || was.sha256 !== entry.sha256 || was.mtimeMs !== entry.mtimeMs || was.ino !== entry.ino) touched.push(rel);
  }
  return touched.sort();
}

describe('building the new output beside --out', () => {
  it('leaves the old output whole up to the commit, then keeps every unchanged file as the same file', async () => {
    const { root, out } = await published(eventSite());
    const before = await listing(out);
    const seen = new Map<string, Map<string, Entry>>();
    const atStep = (step: SwapStep): void => {
      // At 'backup' the old output is the backup folder beside --out; before it, --out itself.
      const old = step === 'backup' ? backupOf(root) : out;
      seen.set(step, listingSync(old));
    };

    const result = await build(out, eventSite(), { onStep: atStep });

    for (const step of ['verified', 'committing', 'backup'] as const) expect(seen.get(step), step).toEqual(before);
    const after = await listing(out);
    const files = [...before].filter(([, e]) => e.type === 'file');
    expect(touchedFiles(before, after)).toEqual([]);
    for (const [rel, entry] of files) expect(after.get(rel), rel).toEqual(entry);
    expect(result).toEqual({ written: 0, unchanged: files.length, removed: 0, files: files.length });
    expect(await siblingNames(root)).toEqual(['out']);
  });

  it('writes only the changed event and the manifest; the rest are hard links to the published files', async () => {
    const { out } = await published(eventSite());
    const before = await listing(out);

    const result = await build(out, withChangedEvent('arts', 'e2'));

    const after = await listing(out);
    const changed = [paths.detailsMirror('arts', 'e2'), paths.eventPage('arts', 'e2'), paths.eventIcs('arts', 'e2')];
    expect(touchedFiles(before, after)).toEqual([...changed, paths.manifest()].sort());
    expect(result.written).toBe(4);
    for (const [rel, data] of Object.entries(withChangedEvent('arts', 'e2'))) expect(await readFile(path.join(out, rel), 'utf8'), rel).toBe(data);
  });

  it("drops a removed event's files and what the manifest does not list", async () => {
    const { out } = await published(eventSite());
    await writeFile(path.join(out, 'event-calendar/arts/event/e1/notes.txt'), 'mine');
    await mkdir(path.join(out, 'calendars/music/events/empty'));
    await symlink('/etc/hostname', path.join(out, 'calendars/arts/link'));
    const before = await listing(out);
    const site = eventSite();
    for (const rel of [paths.detailsMirror('arts', 'e3'), paths.eventPage('arts', 'e3'), paths.eventIcs('arts', 'e3')]) delete site[rel];

    const result = await build(out, site);

    expect(result).toMatchObject({ written: 1, removed: 3 });
    const after = await listing(out);
    const files = [...after].filter(([, e]) => e.type !== 'folder').map(([rel]) => rel);
    expect(files.sort()).toEqual([...Object.keys(site), paths.headers(), paths.manifest()].sort());
    expect(after.has('calendars/music/events/empty')).toBe(false);
    expect(touchedFiles(before, after)).toEqual([paths.manifest()]);
  });
});

describe('when publishing fails or dies', () => {
  it('puts the old output back when the second rename fails, and fails clearly', async () => {
    const { root, out, before, staging } = await stagedChange();
    const moved = path.join(root, 'elsewhere');

    const error = await publish(staging, out, {
      // Between the renames, the staging folder goes missing: the rename into --out fails.
      onStep: (step) => void (step === 'backup' && renameSync(staging.dir, moved)),
    }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(CalfeedError);
    expect((error as Error).message).toContain(`Could not move the new output into ${out} (ENOENT); the previous output was kept as it was.`);
    expect(await listing(out)).toEqual(before);
    renameSync(moved, staging.dir);
    await discard(staging);
    expect(await siblingNames(root)).toEqual(['out']);
    expect(await recover(out)).toEqual([]);
  });

  it.each(['verified', 'synced', 'committing', 'backup'] as const)('a crash after %s is repaired by recover(): --out exactly as it was', async (step: SwapStep) => {
    const { root, out } = await published(eventSite());
    const before = await listing(out);

    await expect(build(out, withChangedEvent('arts', 'e2'), { onStep: (s) => void (s === step && throwCrash(s)) })).rejects.toBeInstanceOf(Crash);
    if (step !== 'backup') expect(await listing(out)).toEqual(before);

    const notes = await recover(out);

    expect(notes.join('\n')).toMatch(step === 'backup' ? /restored the previous output/ : /Removed .*calfeed-staging-/);
    expect(await listing(out)).toEqual(before);
    expect(await siblingNames(root)).toEqual(['out']);
    expect((await build(out, eventSite())).written).toBe(0);
  });

  it('a crash once the new output is in place keeps the new output', async () => {
    const { root, out } = await published(eventSite());
    const site = withChangedEvent('arts', 'e2');
    await expect(build(out, site, { onStep: (s) => void (s === 'swapped' && throwCrash(s)) })).rejects.toBeInstanceOf(Crash);
    const after = await listing(out);

    await recover(out);

    expect(await listing(out)).toEqual(after);
    expect(await siblingNames(root)).toEqual(['out']);
    for (const [rel, data] of Object.entries(site)) expect(await readFile(path.join(out, rel), 'utf8'), rel).toBe(data);
  });

  it('a build process killed (SIGKILL) between the two renames is repaired by the next run: --out exactly as it was', async () => {
    const { root, out } = await published(eventSite());
    const before = await listing(out);
    const siteFile = path.join(root, 'site.json');
    await writeFile(siteFile, JSON.stringify(withChangedEvent('arts', 'e2')));

    const said = await killWhenPaused(out, siteFile, 'backup');

    expect(said).toBe('paused at backup\n');
    expect((await siblingNames(root)).filter((n) => n.startsWith('.out.calfeed-old-'))).toHaveLength(1);
    expect((await recover(out)).join('\n')).toContain('restored the previous output');
    expect(await listing(out)).toEqual(before);
    expect(await siblingNames(root)).toEqual(['out', 'site.json']);
  });
});

/** Synchronously (onStep is synchronous): every entry under root, as listing() gives it. */
function listingSync(root: string): Map<string, Entry> {
  const out = new Map<string, Entry>();
  const walk = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const abs = path.join(dir, name);
      const childRel = rel === '' ? name : `${rel}/${name}`;
      const info = lstatSync(abs);
      if (info.isDirectory()) {
        out.set(childRel, { type: 'folder', ino: info.ino });
        walk(abs, childRel);
      } else if (info.isFile()) {
        const sha256 = createHash('sha256').update(readFileSync(abs)).digest('hex');
        out.set(childRel, { type: 'file', ino: info.ino, size: info.size, mtimeMs: info.mtimeMs, sha256 });
      } else out.set(childRel, { type: 'other', ino: info.ino });
    }
  };
  walk(root, '');
  return out;
}

function backupOf(root: string): string {
  const name = readdirSync(root).find((n) => n.startsWith('.out.calfeed-old-'));
  if (name === undefined) throw new Error('no backup beside --out');
  return path.join(root, name);
}

class Crash extends Error {}

function throwCrash(step: string): never {
  throw new Crash(step);
}
