// Shared helpers for the publish tests: real temp folders, a small valid site, tree fingerprints.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect } from 'vitest';
import { paths } from '../../src/paths.js';
import { createStaging, publish, type PublishResult, type Staging, writeSiteMeta } from '../../src/publish/index.js';
import { contentTypeFor, kindOf } from '../../src/publish/content-types.js';
import { type Manifest, manifestChunks } from '../../src/publish/manifest.js';
import type { PublishOptions, SwapStep } from '../../src/publish/swap.js';
import { DirStaging } from '../../src/publish/dir-staging.js';
import { walkFiles } from '../../src/publish/fs-util.js';
import { scanManifest } from '../../src/publish/manifest-read.js';

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A fresh temp folder, removed after the test. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'calfeed-publish-'));
  made.push(dir);
  return dir;
}

export const CALENDARS = [
  { id: 'arts', slug: 'arts', title: 'Arts', events: 2 },
  { id: 'Sport & Fun', slug: '_knyg64tueatcartvny', title: 'Sport', events: 1 },
];

const rss = (title: string): string =>
  `<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel><title>${title}</title>` +
  '<item><title>Talk &amp; tea</title><description><![CDATA[<p>Hello]]></description></item></channel></rss>\n';
const ics = (summary: string): string =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calfeed//test//EN', 'BEGIN:VEVENT', 'UID:1@test', `SUMMARY:${summary}`, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');

type ManifestArgs = Parameters<typeof manifestChunks>;

/** The manifest.json text calfeed writes (manifestChunks, joined). */
export const manifestText = (...args: ManifestArgs): string => [...manifestChunks(...args)].join('');

/** The reference for manifestChunks: the whole manifest as one JSON.stringify, built independently. */
export function renderManifest(files: ManifestArgs[0], calendars: ManifestArgs[1], meta: ManifestArgs[2]): string {
  const listed = [...files.keys()].filter((rel) => rel !== paths.manifest()).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const under = (slug: string): number =>
    listed.filter((rel) => rel.startsWith(paths.calendarDir(slug)) || rel.startsWith(path.posix.dirname(paths.eventsMirror(slug)) + '/')).length;
  const manifest: Manifest = {
    format: 1,
    generator: meta.generator,
    counts: { calendars: calendars.length, events: calendars.reduce((sum, cal) => sum + cal.events, 0), files: listed.length },
    calendars: calendars.map(({ id, slug, title, events }) => ({ id, slug, title, events, files: under(slug) })),
    files: listed.map((rel) => ({ path: rel, kind: kindOf(rel), contentType: contentTypeFor(rel), bytes: files.get(rel)!.bytes, sha256: files.get(rel)!.sha256 })),
  };
  return JSON.stringify(manifest, null, 2) + '\n';
}

/** The manifest published in `out`, files and all; undefined if it is missing or unreadable. */
export async function readManifest(out: string): Promise<Manifest | undefined> {
  try {
    const { manifest, result } = await scanManifest(path.join(out, paths.manifest()), () => {
      const files: Manifest['files'] = [];
      return { add: (f) => files.push(f), done: () => files };
    });
    return { ...manifest, files: result };
  } catch {
    return undefined;
  }
}

/** Link (or copy) the files staging kept into its folder, as publish does before verify. */
export async function linkKept(staging: Staging): Promise<void> {
  if (!(staging instanceof DirStaging)) throw new Error('not a staging from createStaging');
  await staging.linkKept();
}

/** A small but complete and valid site, keyed by output path. */
export function sampleSite(): Record<string, string> {
  return {
    [paths.calendarsMirror()]: JSON.stringify([{ id: 'arts' }, { id: 'Sport & Fun' }]),
    [paths.eventsMirror('arts')]: '{"data":[{"id":"e1"},{"id":"e2"}]}',
    [paths.detailsMirror('arts', 'e1')]: '{"id":"e1","title":"Talk"}',
    [paths.detailsMirror('arts', 'e2')]: '{"id":"e2","title":"Ünïcødé 🎉"}',
    [paths.eventsMirror('_knyg64tueatcartvny')]: '[]',
    [paths.site('index.html')]: '<!doctype html><title>All</title>',
    [paths.site('rss.xml')]: rss('All'),
    [paths.site('calendar.ics')]: ics('Talk'),
    [paths.site('feed.json')]: '{"version":"https://jsonfeed.org/version/1.1","items":[]}',
    [paths.calendar('arts', 'rss.xml')]: rss('Arts'),
    [paths.calendar('arts', 'atom.xml')]: '<feed xmlns="http://www.w3.org/2005/Atom"><title>Arts</title></feed>',
    [paths.calendar('arts', 'calendar.ics')]: ics('Talk'),
    [paths.eventIcs('arts', 'e1')]: ics('Talk'),
    [paths.eventPage('arts', 'e1')]: '<!doctype html><title>Talk</title>',
    [paths.calendar('_knyg64tueatcartvny', 'index.html')]: '<!doctype html><title>Sport</title>',
  };
}

/** Stage files plus _headers and manifest.json, then publish into out. */
export async function build(out: string, files: Record<string, string>, options: PublishOptions = {}): Promise<PublishResult> {
  const staging = await createStaging(out);
  await Promise.all(Object.entries(files).map(([rel, data]) => staging.write(rel, data)));
  await writeSiteMeta(staging, CALENDARS, { generator: 'calfeed test' });
  return publish(staging, out, options);
}

export interface FileFacts {
  sha256: string;
  mtimeMs: number;
  ino: number;
}

/** Every file under root with its hash, mtime and inode. */
export async function snapshot(root: string): Promise<Map<string, FileFacts>> {
  const out = new Map<string, FileFacts>();
  for await (const file of walkFiles(root)) {
    const info = await stat(file.abs);
    out.set(file.rel, {
      sha256: createHash('sha256').update(await readFile(file.abs)).digest('hex'),
      mtimeMs: info.mtimeMs,
      ino: info.ino,
    });
  }
  return out;
}

/** One hash of a whole tree: paths and contents. */
export async function treeHash(root: string): Promise<string> {
  const snap = await snapshot(root);
  const hash = createHash('sha256');
  for (const rel of [...snap.keys()].sort()) hash.update(`${rel}\0${snap.get(rel)!.sha256}\n`);
  return hash.digest('hex');
}

/** Names in a folder (helpers beside --out show up here). */
export async function siblingNames(dir: string): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  return (await readdir(dir)).sort();
}

const CHILD = fileURLToPath(new URL('./fixtures/child.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** Run the child fixture publishing siteFile into out, paused at `step`; SIGKILL it there. Returns what it said. */
export async function killWhenPaused(out: string, siteFile: string, step: SwapStep): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, out, 'publish-pause', siteFile, step], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
  let said = '';
  child.stdout.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: string) => {
      said += d;
      if (said.includes('\n')) resolve();
    });
    child.on('exit', () => reject(new Error(`child exited before pausing: ${said}`)));
  });
  child.kill('SIGKILL');
  const [, signal] = (await once(child, 'exit')) as [number | null, string | null];
  expect(signal).toBe('SIGKILL');
  return said;
}

