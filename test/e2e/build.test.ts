// Issue 2 acceptance: the real CLI against the demo portal over HTTP, checked with real parsers.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import ICAL from 'ical.js';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { findList, rawId } from '../../src/normalize/index.js';
import { assignSegments, paths } from '../../src/paths.js';
import { formatSummary } from '../../src/pipeline/summary.js';
import { buildAt } from '../support/build-at.js';
import { runCli, type CliResult } from '../support/cli.js';
import { fileInodes, listFiles, snapshotTree } from '../support/tree.js';
import { replaceRecord } from '../support/store.js';

let portal: DemoPortal;
let work: string;
let out: string;
let build: CliResult;
const SITE = 'https://events.example.edu/feeds/';

async function get(path: string, token: string): Promise<Buffer> {
  const res = await request(`${portal.url}/${path}`, { headers: { authorization: `Bearer ${token}` } });
  const body = Buffer.from(await res.body.arrayBuffer());
  if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode}`);
  return body;
}

/** Every API path the portal serves to a token, with the output path its mirror must have. */
async function portalPaths(token: string): Promise<Array<{ api: string; mirror: string }>> {
  const result = [{ api: 'event-calendars', mirror: paths.calendarsMirror() }];
  const calendars = findList(JSON.parse((await get('event-calendars', token)).toString()), 'calendars').items;
  const calIds = calendars.map((c) => rawId(c, 'calendar')!);
  const calSegs = assignSegments(calIds);
  for (const cal of calIds) {
    const api = `event-calendar/${encodeURIComponent(cal)}/events`;
    result.push({ api, mirror: paths.eventsMirror(calSegs.get(cal)!) });
    const events = findList(JSON.parse((await get(api, token)).toString()), 'events').items;
    const evIds = events.map((e) => rawId(e, 'event')!);
    const evSegs = assignSegments(evIds);
    for (const ev of evIds) {
      result.push({ api: `event-calendar/${encodeURIComponent(cal)}/event/${encodeURIComponent(ev)}/details`, mirror: paths.detailsMirror(calSegs.get(cal)!, evSegs.get(ev)!) });
    }
  }
  return result;
}

beforeAll(async () => {
  portal = await startDemoPortal({});
  work = await mkdtemp(join(tmpdir(), 'calfeed-e2e-'));
  out = join(work, 'site');
  build = await runCli(['build', '--base-url', portal.url, '--out', out, '--site-url', SITE, '--cache-dir', join(work, 'cache'), '--time-zone', portal.timeZone, '--json'], {
    env: { CALFEED_TOKEN: portal.tokens.university },
    cwd: work,
  });
});

afterAll(async () => {
  await portal?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('calfeed build against the demo portal', () => {
  it('exits 0 and prints a JSON summary on stdout, logs on stderr', () => {
    expect(build.stderr).not.toMatch(/^error:/m);
    expect(build.code).toBe(0);
    const summary = JSON.parse(build.stdout);
    expect(summary).toMatchObject({ ok: true, demo: false });
    expect(summary.calendars).toBeGreaterThanOrEqual(3);
    expect(summary.events).toBeGreaterThan(20);
    expect(summary.files.written).toBe(summary.files.files);
  });

  it('mirrors every API response byte for byte', async () => {
    const all = await portalPaths(portal.tokens.university);
    expect(all.length).toBeGreaterThan(20);
    for (const { api, mirror } of all) {
      const served = await get(api, portal.tokens.university);
      const written = await readFile(join(out, mirror));
      expect(written.equals(served), `${mirror} differs from GET ${api}`).toBe(true);
    }
  });

  it('writes RSS and Atom that parse as XML with one item per upcoming event, and iCalendar with one VEVENT per event', async () => {
    const summary = JSON.parse(build.stdout);
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    const xml = new XMLParser({ ignoreAttributes: false });
    let vevents = 0;
    for (const cal of manifest.calendars as Array<{ slug: string; events: number }>) {
      const rssText = await readFile(join(out, paths.calendar(cal.slug, 'rss.xml')), 'utf8');
      const atomText = await readFile(join(out, paths.calendar(cal.slug, 'atom.xml')), 'utf8');
      expect(XMLValidator.validate(rssText)).toBe(true);
      expect(XMLValidator.validate(atomText)).toBe(true);
      const feed = JSON.parse(await readFile(join(out, paths.calendar(cal.slug, 'feed.json')), 'utf8'));
      const rssItems = [xml.parse(rssText).rss.channel.item ?? []].flat();
      const atomEntries = [xml.parse(atomText).feed.entry ?? []].flat();
      expect(rssItems.length).toBe(feed.items.length);
      expect(atomEntries.length).toBe(feed.items.length);
      for (const item of rssItems) {
        expect(item.title).toBeTruthy();
        expect(item.link).toMatch(new RegExp('^' + SITE));
        expect(item.description).toBeTruthy();
      }
      const ics = await readFile(join(out, paths.calendar(cal.slug, 'calendar.ics')), 'utf8');
      const comp = new ICAL.Component(ICAL.parse(ics));
      const count = comp.getAllSubcomponents('vevent').length;
      expect(count).toBe(cal.events);
      vevents += count;
    }
    expect(vevents).toBe(summary.events);
    const combined = new ICAL.Component(ICAL.parse(await readFile(join(out, 'calendar.ics'), 'utf8')));
    expect(combined.getAllSubcomponents('vevent').length).toBe(summary.events);
  });

  it('writes a manifest that matches the files on disk', async () => {
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    const onDisk = (await listFiles(out)).filter((f) => f !== 'manifest.json');
    const listed = (manifest.files as Array<{ path: string }>).map((f) => f.path).sort();
    expect(listed).toEqual(onDisk);
    for (const f of manifest.files as Array<{ path: string; bytes: number; sha256: string; contentType: string }>) {
      const data = await readFile(join(out, f.path));
      expect(data.length, f.path).toBe(f.bytes);
      expect(createHash('sha256').update(data).digest('hex'), f.path).toBe(f.sha256);
      expect(f.contentType).toBeTruthy();
    }
  });

  it('writes the site files of the layout', async () => {
    const files = new Set(await listFiles(out));
    for (const name of ['index.html', 'rss.xml', 'atom.xml', 'feed.json', 'calendar.ics', '_headers', 'manifest.json', 'event-calendars']) {
      expect(files.has(name), name).toBe(true);
    }
    const headers = await readFile(join(out, '_headers'), 'utf8');
    expect(headers).toMatch(/text\/calendar/);
    expect(headers).toMatch(/Access-Control-Allow-Origin: \*/);
  });

  it('writes nothing outside --out and leaks the token nowhere', async () => {
    expect((await readdir(work)).sort()).toEqual(['cache', 'site']);
    for (const file of await listFiles(out)) {
      const data = await readFile(join(out, file), 'latin1');
      expect(data.includes(portal.tokens.university), file).toBe(false);
    }
    for (const file of await listFiles(join(work, 'cache'))) {
      expect((await readFile(join(work, 'cache', file), 'latin1')).includes(portal.tokens.university), file).toBe(false);
    }
    expect(build.stdout + build.stderr).not.toContain(portal.tokens.university);
  });

  it('publishes only the calendars the other organization may see', async () => {
    const facultyOut = join(work, 'faculty');
    try {
      const r = await runCli(['build', '--base-url', portal.url, '--out', facultyOut, '--cache-dir', join(work, 'faculty-cache'), '--json', '--quiet'], {
        env: { CALFEED_TOKEN: portal.tokens.faculty },
        cwd: work,
      });
      expect(r.code, r.stderr).toBe(0);
      const faculty = JSON.parse(await readFile(join(facultyOut, 'manifest.json'), 'utf8')).calendars.map((c: { id: string }) => c.id);
      const university = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')).calendars.map((c: { id: string }) => c.id);
      expect(faculty.length).toBeGreaterThan(0);
      expect(faculty.length).toBeLessThan(university.length);
      for (const id of faculty) expect(university).toContain(id);
      const servedToFaculty = findList(JSON.parse((await get('event-calendars', portal.tokens.faculty)).toString()), 'calendars').items.map((c) => rawId(c, 'calendar'));
      expect(faculty.sort()).toEqual(servedToFaculty.sort());
    } finally {
      await rm(facultyOut, { recursive: true, force: true });
      await rm(join(work, 'faculty-cache'), { recursive: true, force: true });
    }
  });
});

describe('a rebuild that makes the very files --out holds', () => {
  // Without the record of the last build, a rebuild renders everything again and finds every
  // file's bytes the published ones: publishing would only make the same tree anew. One "now" for
  // every build of a test, so no event starts or ends between them.
  const now = Date.now();
  const build = (work: string, site: string): ReturnType<typeof buildAt> => buildAt({ portal, work, site, cache: join(work, 'cache'), now });

  it('leaves a folder --out as it was (the same folder, every file the same inode), says so, and reports published: false', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'calfeed-same-'));
    try {
      const out = join(dir, 'site');
      expect((await build(dir, out)).summary.published).toBe(true);
      const folder = (await stat(out)).ino;
      const inodes = await fileInodes(out);
      await replaceRecord(join(dir, 'cache'));
      const again = await build(dir, out);
      expect(again.summary).toMatchObject({ published: false, upToDate: false, files: { written: 0, unchanged: inodes.size, removed: 0, files: inodes.size } });
      expect(formatSummary(again.summary)).toContain(`the very files ${out} holds: left as it was, nothing written`);
      expect((await stat(out)).ino).toBe(folder);
      expect(await fileInodes(out)).toEqual(inodes);
      expect((await readdir(dir)).sort()).toEqual(['cache', 'site']);
      // The record saved by that build vouches for --out: the next build is up to date.
      expect((await build(dir, out)).summary).toMatchObject({ upToDate: true, published: false });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('leaves a linked --out on its generation: no new one is made', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'calfeed-same-'));
    try {
      const out = join(dir, 'site');
      await mkdir(join(dir, 'real'));
      await symlink('real', out);
      expect((await build(dir, out)).summary.published).toBe(true);
      const before = await snapshotTree(out);
      await replaceRecord(join(dir, 'cache'));
      expect((await build(dir, out)).summary).toMatchObject({ published: false, files: { written: 0, removed: 0 } });
      expect(await readlink(out)).toBe('.site.calfeed-gen-1');
      expect(await snapshotTree(out)).toEqual(before);
      expect((await readdir(dir)).sort()).toEqual(['.site.calfeed-gen-1', 'cache', 'real', 'site']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('still publishes when --out is not as its manifest lists it: a file added by hand goes, one removed comes back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'calfeed-same-'));
    try {
      const out = join(dir, 'site');
      await build(dir, out);
      const files = await listFiles(out);
      // Not listed in manifest.json: the published site is calfeed's files alone.
      await writeFile(join(out, 'stray.html'), '<p>added by hand</p>');
      await replaceRecord(join(dir, 'cache'));
      expect((await build(dir, out)).summary).toMatchObject({ published: true, files: { written: 0, removed: 0 } });
      expect(await listFiles(out)).toEqual(files);

      const gone = files.find((f) => f.endsWith('.ics') && f.includes('/events/'))!;
      await rm(join(out, gone));
      await replaceRecord(join(dir, 'cache'));
      expect((await build(dir, out)).summary).toMatchObject({ published: true, files: { written: 1, removed: 0 } });
      expect(await listFiles(out)).toEqual(files);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a rebuild without the record of the last build', () => {
  const now = Date.now();
  const build = (work: string, site: string): ReturnType<typeof buildAt> => buildAt({ portal, work, site, cache: join(work, 'cache'), now });

  it('keeps the event files rendered from the same inputs to the bytes --out lists, and renders one whose listed bytes are another build', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'calfeed-norecord-'));
    try {
      const out = join(dir, 'site');
      await build(dir, out);
      const inodes = await fileInodes(out);
      // One event page as another build could have published it: other bytes, listed so.
      const page = [...inodes.keys()].find((f) => /^calendars\/[^/]+\/events\/[^/]+\.html$/.test(f))!;
      const original = await readFile(join(out, page));
      const other = Buffer.concat([original, Buffer.from('<!-- another build -->\n')]);
      await writeFile(join(out, page), other);
      const manifest = JSON.parse(await readFile(join(out, paths.manifest()), 'utf8')) as { files: Array<{ path: string; bytes: number; sha256: string }> };
      Object.assign(manifest.files.find((f) => f.path === page)!, { bytes: other.length, sha256: createHash('sha256').update(other).digest('hex') });
      await writeFile(join(out, paths.manifest()), JSON.stringify(manifest, null, 2) + '\n');
      await replaceRecord(join(dir, 'cache'));

      const { summary } = await build(dir, out);
      expect(summary).toMatchObject({ published: true, eventFiles: { rendered: 1 } });
      expect(await readFile(join(out, page))).toEqual(original);
      const after = await fileInodes(out);
      const pages = [...inodes.keys()].filter((f) => /^calendars\/[^/]+\/events\//.test(f) && f !== page);
      expect(pages.length).toBeGreaterThan(10);
      for (const file of pages) expect(after.get(file), file).toBe(inodes.get(file));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a symbolic link as --out', () => {
  it('publishes a new folder beside the link and flips the link to it; a rebuild keeps every unchanged file and the previous folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'calfeed-link-'));
    try {
      await mkdir(join(dir, 'real'));
      await symlink('real', join(dir, 'site'));
      const args = ['build', '--base-url', portal.url, '--out', join(dir, 'site'), '--cache-dir', join(dir, 'cache'), '--time-zone', portal.timeZone, '--json'];
      const env = { CALFEED_TOKEN: portal.tokens.university };
      const first = await runCli(args, { env, cwd: dir });
      expect(first.code, first.stderr).toBe(0);
      expect(await readlink(join(dir, 'site'))).toBe('.site.calfeed-gen-1');
      const files = await listFiles(join(dir, 'site'));
      expect(files).toContain(paths.manifest());
      expect(files.length).toBe(JSON.parse(first.stdout).files.files);
      // The folder the link led to is the user's: left as it was (here, empty).
      expect(await readdir(join(dir, 'real'))).toEqual([]);
      const inodes = await fileInodes(join(dir, 'site'));
      // Another title: every page changes, the JSON mirrors and calendar files do not.
      const second = await runCli([...args, '--title', 'Another title'], { env, cwd: dir });
      expect(second.code, second.stderr).toBe(0);
      const summary = JSON.parse(second.stdout) as { published: boolean; files: { written: number; unchanged: number; removed: number } };
      expect(summary.published).toBe(true);
      expect(summary.files.written).toBeGreaterThan(0);
      expect(summary.files.unchanged).toBeGreaterThan(0);
      expect(summary.files.removed).toBe(0);
      expect(await readlink(join(dir, 'site'))).toBe('.site.calfeed-gen-2');
      // Each unchanged file is the previous generation's, hard-linked (same inode, bytes and mtime).
      const after = await fileInodes(join(dir, 'site'));
      const kept = [...after].filter(([file, ino]) => inodes.get(file) === ino);
      expect(kept.length).toBe(summary.files.unchanged);
      expect(kept.map(([file]) => file)).toContain(paths.calendarsMirror());
      // Nothing else beside the link: the previous generation, no backup or staging folder.
      expect((await readdir(dir)).sort()).toEqual(['.site.calfeed-gen-1', '.site.calfeed-gen-2', 'cache', 'real', 'site']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a link that leads nowhere, saying which folder is missing, and creates nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'calfeed-link-'));
    try {
      await symlink(join(dir, 'missing'), join(dir, 'site'));
      const r = await runCli(['build', '--base-url', portal.url, '--out', join(dir, 'site'), '--cache-dir', join(dir, 'cache'), '--time-zone', portal.timeZone], {
        env: { CALFEED_TOKEN: portal.tokens.university },
        cwd: dir,
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`symbolic link to ${join(dir, 'missing')}, which does not exist`);
      expect((await readdir(dir)).sort()).toEqual(['site']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
