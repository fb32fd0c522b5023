// Carrying unchanged folders of --out into the new output whole (one rename each) instead of
// re-creating their folders and hard links: which folders move, that every file keeps its bytes,
// mtime and inode, and that a failure or crash at any point leaves --out as it was.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CalfeedError } from '../../src/errors.js';
import { paths } from '../../src/paths.js';
import { createStaging, discard, publish, recover, type Staging, type SwapStep, writeSiteMeta } from '../../src/publish/index.js';
import { prepareCarry } from '../../src/publish/staging.js';
import { build, CALENDARS, siblingNames, tempDir } from './helpers.js';

const CHILD = fileURLToPath(new URL('./fixtures/child.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));
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

/**
 * Every entry under root: files with size, SHA-256, mtime and inode, folders with their inode.
 * (A folder's own mtime is left out: moving a folder out and back in changes its parent's.)
 */
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

/** Publish `site` into out and return the folders moved in whole, in order. */
async function rebuild(out: string, site: Record<string, string>): Promise<{ moved: string[]; result: Awaited<ReturnType<typeof build>> }> {
  const moved: string[] = [];
  const result = await build(out, site, { onStep: (step, folder) => void (step === 'moved' && moved.push(folder!)) });
  return { moved, result };
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

describe('carrying unchanged folders', () => {
  it('moves the unchanged folders in whole on a no-change rebuild: same folder inodes, every file kept', async () => {
    const { out } = await published(eventSite());
    const before = await listing(out);

    const { moved, result } = await rebuild(out, eventSite());

    expect(moved.sort()).toEqual(['calendars', 'event-calendar']);
    const after = await listing(out);
    expect([...after.keys()]).toEqual([...before.keys()]);
    expect(touchedFiles(before, after)).toEqual([]);
    for (const [rel, entry] of after) {
      if (entry.type === 'file') expect(entry.mtimeMs, rel).toBe(OLD.getTime());
      // Every folder below the carried ones is the very same folder, not a new one.
      else expect(entry.ino, rel).toBe(before.get(rel)!.ino);
    }
    expect(result).toEqual({ written: 0, unchanged: before.size - countFolders(before), removed: 0, files: before.size - countFolders(before) });
  });

  it("carries the other calendar and the changed calendar's other events, but not the changed event's folder", async () => {
    const { out } = await published(eventSite());
    const before = await listing(out);

    const { moved, result } = await rebuild(out, withChangedEvent('arts', 'e2'));

    expect(moved.sort()).toEqual(['calendars/music', 'event-calendar/arts/event/e1', 'event-calendar/arts/event/e3', 'event-calendar/music']);
    const after = await listing(out);
    const changed = [paths.detailsMirror('arts', 'e2'), paths.eventPage('arts', 'e2'), paths.eventIcs('arts', 'e2')];
    expect(touchedFiles(before, after)).toEqual([...changed, paths.manifest()].sort());
    expect(result.written).toBe(4);
    // The changed event's mirror folder was made anew; the carried ones are the published folders.
    expect(after.get('event-calendar/arts/event/e2')!.ino).not.toBe(before.get('event-calendar/arts/event/e2')!.ino);
    for (const folder of moved) expect(after.get(folder)!.ino, folder).toBe(before.get(folder)!.ino);
    expect(after.get('event-calendar/arts')!.ino).not.toBe(before.get('event-calendar/arts')!.ino);
  });

  it("does not carry a removed event's folder, whose parent is not clean either, and removes it", async () => {
    const { out } = await published(eventSite());
    const before = await listing(out);
    const site = eventSite();
    for (const rel of [paths.detailsMirror('arts', 'e3'), paths.eventPage('arts', 'e3'), paths.eventIcs('arts', 'e3')]) delete site[rel];

    const { moved, result } = await rebuild(out, site);

    expect(moved.sort()).toEqual(['calendars/music', 'event-calendar/arts/event/e1', 'event-calendar/arts/event/e2', 'event-calendar/music']);
    expect(result.removed).toBe(3);
    const after = await listing(out);
    expect(after.has('event-calendar/arts/event/e3')).toBe(false);
    expect(after.has(paths.eventPage('arts', 'e3'))).toBe(false);
    expect(touchedFiles(before, after)).toEqual([paths.manifest()]);
  });

  it('leaves behind what the manifest does not list, as before: only the folders around it are not carried', async () => {
    const { out } = await published(eventSite());
    await writeFile(path.join(out, 'event-calendar/arts/event/e1/notes.txt'), 'mine');
    await mkdir(path.join(out, 'calendars/music/events/empty'));
    await symlink('/etc/hostname', path.join(out, 'calendars/arts/link'));
    const before = await listing(out);

    const { moved, result } = await rebuild(out, eventSite());

    expect(moved.sort()).toEqual(['calendars/arts/events', 'event-calendar/arts/event/e2', 'event-calendar/arts/event/e3', 'event-calendar/music']);
    expect(result).toMatchObject({ written: 0, removed: 0 });
    const after = await listing(out);
    // The new output is exactly the listed files, each kept as it was; the strays are gone.
    const files = [...after].filter(([, e]) => e.type !== 'folder').map(([rel]) => rel);
    expect(files.sort()).toEqual([...Object.keys(eventSite()), paths.headers(), paths.manifest()].sort());
    expect(after.has('calendars/music/events/empty')).toBe(false);
    expect(touchedFiles(before, after)).toEqual([]);
  });
});

describe('carrying, where folders cannot be moved', () => {
  it('moves nothing when --out is a symlink (it may lead to another file system), and links the kept files instead', async () => {
    const { root } = await published(eventSite());
    const out = path.join(root, 'linked');
    await symlink(path.join(root, 'out'), out);
    const staging = await createStaging(out);
    for (const [rel, data] of Object.entries(eventSite())) await staging.write(rel, data);
    await writeSiteMeta(staging, CALENDARS, { generator: 'calfeed test' });

    const plan = await prepareCarry(staging);

    expect(plan.folders).toEqual([]);
    const kept = paths.detailsMirror('music', 'e3');
    expect((await lstat(path.join(staging.dir, kept))).ino).toBe((await lstat(path.join(root, 'out', kept))).ino);
    await discard(staging);
  });
});

describe('carrying, when publishing fails or dies', () => {
  it('moves back what was moved when a move fails, and fails clearly: --out exactly as it was', async () => {
    const { root, out, before, staging } = await stagedChange();
    let moves: string[] = [];
    let movedCount = 0;

    const error = await publish(staging, out, {
      onStep: (step) => {
        if (step === 'journal') moves = JSON.parse(readFileSync(path.join(root, '.out.calfeed-journal'), 'utf8')).moves;
        // After the second move, something takes the place the third folder goes to in staging.
        if (step === 'moved' && ++movedCount === 2) writeFileSync(path.join(staging.dir, moves[2]!), 'obstacle');
      },
    }).catch((e: unknown) => e);

    expect(moves.length).toBeGreaterThan(2);
    expect(error).toBeInstanceOf(CalfeedError);
    expect((error as Error).message).toContain(`Could not move the unchanged folder ${moves[2]} of ${out} into the new output`);
    expect((error as Error).message).toContain('the previous output was kept as it was');
    expect(await listing(out)).toEqual(before);
    expect((await siblingNames(root)).filter((n) => n.includes('journal'))).toEqual([]);
    // Everything was moved back, so the build's usual cleanup may delete the staging folder.
    await discard(staging);
    expect(await siblingNames(root)).toEqual(['out']);
    expect(await recover(out)).toEqual([]);
  });

  it('when the folders cannot be moved back either, keeps them and the journal for the next run, which restores --out', async () => {
    const { root, out, before, staging } = await stagedChange();
    let moves: string[] = [];
    let movedCount = 0;

    const error = await publish(staging, out, {
      onStep: (step) => {
        if (step === 'journal') moves = JSON.parse(readFileSync(path.join(root, '.out.calfeed-journal'), 'utf8')).moves;
        if (step === 'moved' && ++movedCount === 2) {
          writeFileSync(path.join(staging.dir, moves[2]!), 'obstacle'); // the third move fails...
          writeFileSync(path.join(out, moves[0]!), 'intruder'); // ...and the first cannot go back
        }
      },
    }).catch((e: unknown) => e);

    expect((error as Error).message).toMatch(/moving the folders already moved back into it failed too \(Cannot move .* both exist/);
    expect((error as Error).message).toContain('do not delete either before then');
    await discard(staging); // what the build does on failure: here it must keep the moved folders
    expect((await readdir(staging.dir)).length).toBeGreaterThan(0);
    expect(await recover(out).catch((e: unknown) => e)).toBeInstanceOf(CalfeedError); // still both: refuses, changes nothing
    await rm(path.join(out, moves[0]!));

    // The second folder went back before the first failed to: one is left to return.
    expect((await recover(out)).join('\n')).toContain('moved 1 unchanged folder back into');
    expect(await listing(out)).toEqual(before);
    expect(await siblingNames(root)).toEqual(['out']);
  });

  it.each([
    ['after the first move', 'moved', 1],
    ['after the last move', 'moved', 4],
    ['between the two renames of the swap', 'backup', 1],
  ] as const)('a crash %s is repaired by recover(): --out exactly as it was', async (_when, step: SwapStep, nth) => {
    const { root, out } = await published(eventSite());
    const before = await listing(out);
    let seen = 0;

    await expect(
      build(out, withChangedEvent('arts', 'e2'), {
        onStep: (s) => {
          if (s === step && ++seen === nth) throw new Crash(s);
        },
      }),
    ).rejects.toBeInstanceOf(Crash);
    expect(await listing(out).catch(() => undefined)).not.toEqual(before);

    const notes = await recover(out);

    expect(notes.join('\n')).toMatch(step === 'backup' ? /restored the previous output/ : new RegExp(`moved ${nth} unchanged folders? back into`));
    expect(await listing(out)).toEqual(before);
    expect(await siblingNames(root)).toEqual(['out']);
    expect((await build(out, eventSite())).written).toBe(0);
  });

  it('a crash once the new output is in place keeps the new output, carried folders included', async () => {
    const { root, out } = await published(eventSite());
    const site = withChangedEvent('arts', 'e2');
    await expect(build(out, site, { onStep: (s) => void (s === 'swapped' && throwCrash(s)) })).rejects.toBeInstanceOf(Crash);
    const after = await listing(out);

    await recover(out);

    expect(await listing(out)).toEqual(after);
    expect(await siblingNames(root)).toEqual(['out']);
    for (const [rel, data] of Object.entries(site)) expect(await readFile(path.join(out, rel), 'utf8'), rel).toBe(data);
  });

  it('a build process killed (SIGKILL) between moves is repaired by the next run: --out exactly as it was', async () => {
    const { root, out } = await published(eventSite());
    const before = await listing(out);
    const siteFile = path.join(root, 'site.json');
    await writeFile(siteFile, JSON.stringify(withChangedEvent('arts', 'e2')));

    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, out, 'publish-pause', siteFile], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
    let said = '';
    child.stdout.setEncoding('utf8');
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: string) => {
        said += d;
        if (said.includes('\n')) resolve();
      });
      child.on('exit', () => reject(new Error(`child exited before pausing: ${said}`)));
    });
    expect(said).toMatch(/^moved \S+\n/);
    child.kill('SIGKILL');
    const [, signal] = (await once(child, 'exit')) as [number | null, string | null];
    expect(signal).toBe('SIGKILL');
    expect((await siblingNames(root)).some((n) => n.endsWith('calfeed-journal'))).toBe(true);

    const notes = await recover(out);

    expect(notes.join('\n')).toContain('moved 1 unchanged folder back into');
    expect(await listing(out)).toEqual(before);
    expect((await siblingNames(root)).sort()).toEqual(['out', 'site.json']);
  });

  it('reads a journal written before folders were carried (no moves)', async () => {
    const { root, out } = await published(eventSite());
    const before = await listing(out);
    const staging = path.join(root, '.out.calfeed-staging-1-abc');
    await mkdir(staging);
    await writeFile(path.join(root, '.out.calfeed-journal'), JSON.stringify({ staging: path.basename(staging), backup: null }) + '\n');

    expect(await recover(out)).toEqual([`Cleaned up after a build interrupted while publishing ${out}.`]);
    expect(await listing(out)).toEqual(before);
    expect(await siblingNames(root)).toEqual(['out']);
  });
});

class Crash extends Error {}

function throwCrash(step: string): never {
  throw new Crash(step);
}

function countFolders(entries: Map<string, Entry>): number {
  return [...entries.values()].filter((e) => e.type === 'folder').length;
}
