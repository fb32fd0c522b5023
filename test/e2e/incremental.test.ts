// Issue 5 acceptance: reruns are cheap for the portal and touch only what changed.
import { readFile, rm, writeFile, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { categoryKey, categorySlug, paths } from '../../src/paths.js';
import { runCli } from '../support/cli.js';
import { fileInodes, snapshotTree } from '../support/tree.js';

let portal: DemoPortal;
let work: string;
let out: string;
let cache: string;

async function build(extra: string[] = []): Promise<{ summary: any; stderr: string }> {
  const r = await runCli(['build', '--base-url', portal.url, '--out', out, '--cache-dir', cache, '--time-zone', portal.timeZone, '--site-url', 'https://events.example.edu/', '--json', ...extra], {
    env: { CALFEED_TOKEN: portal.tokens.university },
    cwd: work,
  });
  expect(r.code, r.stderr).toBe(0);
  return { summary: JSON.parse(r.stdout), stderr: r.stderr };
}

/** The calendar-level files of the build in `out`: seven per calendar, the five combined ones, five per category and categories/index.html. */
async function calendarLevelFiles(calendars: number): Promise<number> {
  const categories = (await readdir(join(out, 'categories'), { withFileTypes: true })).filter((d) => d.isDirectory()).length;
  return calendars * 7 + 6 + categories * 5 + 1;
}

/** Paths whose bytes differ (or that appeared or vanished) between two snapshots. */
function changedPaths(a: Map<string, { sha256: string }>, b: Map<string, { sha256: string }>): string[] {
  const keys = new Set([...a.keys(), ...b.keys()]);
  return [...keys].filter((k) => a.get(k)?.sha256 !== b.get(k)?.sha256).sort();
}

beforeAll(async () => {
  portal = await startDemoPortal({ now: Date.now() });
  work = await mkdtemp(join(tmpdir(), 'calfeed-incr-'));
  out = join(work, 'site');
  cache = join(work, 'cache');
  await build();
});

afterAll(async () => {
  await portal?.close();
  await rm(work, { recursive: true, force: true });
});

describe('incremental rebuilds', () => {
  it('a rebuild of unchanged data sends only conditional list requests, writes nothing, and keeps every file as the same file', async () => {
    const before = await snapshotTree(out);
    const inodesBefore = await fileInodes(out);
    portal.resetStats();
    const { summary } = await build();
    const stats = portal.stats();
    const calendars = summary.calendars as number;
    expect(stats.requests).toBeLessThanOrEqual(calendars + 1);
    expect(stats.byKind.details).toBe(0);
    expect(stats.conditional).toBe(stats.requests);
    expect(summary.files.written).toBe(0);
    expect(summary.files.removed).toBe(0);
    expect(summary.files.unchanged).toBe(before.size);
    expect(summary.eventFiles).toEqual({ rendered: 0, kept: summary.events });
    expect(await snapshotTree(out)).toEqual(before);
    // Every file is the very file published before (hard-linked into the new output), never a copy.
    expect(await fileInodes(out)).toEqual(inodesBefore);
  });

  it('a rebuild of unchanged data renders no calendar file: every calendar.ics, feed and page is kept as published', async () => {
    const before = await snapshotTree(out);
    const { summary, stderr } = await build();
    // Seven files per calendar (calendar.ics, three feeds, three pages), plus the combined
    // calendar.ics, three feeds, index.html and search.json, five per category and categories/index.html. Kept
    // files are not rendered at all: rendering them would count them as rendered even when the
    // bytes came out the same.
    const calendarLevel = [...before.keys()].filter((p) => /^calendars\/[^/]+\/[^/]+$/.test(p));
    expect(calendarLevel).toHaveLength(summary.calendars * 7);
    const all = await calendarLevelFiles(summary.calendars);
    expect(summary.calendarFiles).toEqual({ rendered: 0, kept: all });
    expect(stderr).toContain(`calendar files rendered 0, kept ${all}`);
    expect(await snapshotTree(out)).toEqual(before);
  });

  it('renders every event page again when a template changes, and only then', async () => {
    const templates = join(work, 'templates', 'partials');
    await import('node:fs/promises').then((fs) => fs.mkdir(templates, { recursive: true }));
    const builtin = await readFile(new URL('../../templates/partials/event-item.hbs', import.meta.url), 'utf8');
    await writeFile(join(templates, 'event-item.hbs'), builtin + '\n');
    const changed = await build(['--templates', join(work, 'templates')]);
    expect(changed.summary.eventFiles).toEqual({ rendered: changed.summary.events, kept: 0 });
    expect(changed.summary.calendarFiles).toEqual({ rendered: await calendarLevelFiles(changed.summary.calendars), kept: 0 });
    const again = await build(['--templates', join(work, 'templates')]);
    expect(again.summary.eventFiles).toEqual({ rendered: 0, kept: again.summary.events });
    const back = await build();
    expect(back.summary.eventFiles.kept).toBe(0);
  });

  it('a changed event rewrites exactly the files that depend on it', async () => {
    const before = await snapshotTree(out);
    const inodesBefore = await fileInodes(out);
    const [[calId, evId]] = portal.changeEvents(1) as [[string, string]];
    const { summary } = await build();
    const after = await snapshotTree(out);
    const changed = changedPaths(before, after);
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    const cal = (manifest.calendars as Array<{ id: string; slug: string }>).find((c) => c.id === calId)!;
    const calSlug = cal.slug;
    const details = JSON.parse(await readFile(join(out, paths.detailsMirror(calSlug, evId)), 'utf8')) as Record<string, unknown>;
    const eventCategories = [...new Set(((details.categories ?? details.tags ?? []) as string[]).map(categoryKey))].filter((k) => k !== '').map(categorySlug);
    // The event's own files, its calendar's list and feeds, the combined feeds and the manifest must change...
    const must = [paths.eventsMirror(calSlug), paths.calendar(calSlug, 'calendar.ics'), 'calendar.ics', 'manifest.json'];
    for (const p of must) expect(changed, p).toContain(p);
    expect(changed.some((p) => p.startsWith(`event-calendar/${calSlug}/event/`) && p.endsWith('/details'))).toBe(true);
    expect(changed.some((p) => p.startsWith(`calendars/${calSlug}/events/`) && p.endsWith('.ics'))).toBe(true);
    // ...and nothing that belongs to another calendar or another event may.
    const allowed = (p: string): boolean =>
      p === 'manifest.json' ||
      /^(index\.html|rss\.xml|atom\.xml|feed\.json|calendar\.ics|search\.json)$/.test(p) ||
      p === paths.eventsMirror(calSlug) ||
      (p.startsWith(`calendars/${calSlug}/`) && !p.includes('/events/')) ||
      (p.startsWith(`event-calendar/${calSlug}/event/`) && p.split('/').length === 5) ||
      (p.startsWith(`calendars/${calSlug}/events/`)) ||
      // The event's categories' files (categories/index.html too, should a count change).
      eventCategories.some((slug) => p.startsWith(paths.categoryDir(slug))) ||
      p === paths.categoriesIndex();
    for (const p of changed) expect(allowed(p), `${p} changed though it does not depend on ${calId}/${evId}`).toBe(true);
    const eventFiles = changed.filter((p) => p.startsWith(`calendars/${calSlug}/events/`) || p.startsWith(`event-calendar/${calSlug}/event/`));
    expect(new Set(eventFiles.map((p) => p.replace(/\.(html|ics)$/, '').replace(/\/details$/, '').split('/').pop())).size).toBe(1);
    expect(summary.details.fetched).toBe(1);
    expect(summary.eventFiles).toEqual({ rendered: 1, kept: summary.events - 1 });
    // Its calendar's seven files are rendered, and at most the six combined ones and its
    // categories' besides: no other calendar's (two calendars would be fourteen).
    expect(summary.calendarFiles.rendered).toBeGreaterThanOrEqual(7);
    expect(summary.calendarFiles.rendered).toBeLessThanOrEqual(7 + 6 + eventCategories.length * 5 + 1);
    expect(summary.calendarFiles.rendered + summary.calendarFiles.kept).toBe(await calendarLevelFiles(summary.calendars));
    expect(summary.files.written).toBe(changed.length);
    expect(summary.changes.changedEvents).toBe(1);
    // Files that did not change kept their modification time.
    for (const [p, info] of after) if (!changed.includes(p)) expect(info.mtimeMs, p).toBe(before.get(p)!.mtimeMs);
    // ...and are the very files published before (hard links); the changed ones are new files.
    const inodesAfter = await fileInodes(out);
    for (const [p, ino] of inodesAfter) {
      if (changed.includes(p)) expect(ino, p).not.toBe(inodesBefore.get(p));
      else expect(ino, p).toBe(inodesBefore.get(p));
    }
  });

  it("removes a deleted event's mirror and keeps its page and .ics, cancelled, while it stays in calendar.ics", async () => {
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    const cal = (manifest.calendars as Array<{ id: string; slug: string }>)[0]!;
    const evSlugs = (await readdir(join(out, 'event-calendar', cal.slug, 'event'))).sort();
    const victim = evSlugs[evSlugs.length - 1]!;
    const details = JSON.parse(await readFile(join(out, paths.detailsMirror(cal.slug, victim)), 'utf8')) as { categories?: string[] };
    portal.removeEvent(cal.id, victim);
    const { summary } = await build();
    const files = await snapshotTree(out);
    expect(files.has(paths.detailsMirror(cal.slug, victim))).toBe(false);
    // Its mirror, and the five files of any category only it had (a removed event keeps none).
    const gone = [...new Set((details.categories ?? []).map((c) => categorySlug(categoryKey(c))))].filter((slug) => !files.has(paths.category(slug, 'index.html')));
    expect(summary.files.removed).toBe(1 + 5 * gone.length);
    expect(summary.changes.removedEvents).toBe(1);
    expect(await readFile(join(out, paths.eventIcs(cal.slug, victim)), 'utf8')).toMatch(/\r\nSTATUS:CANCELLED\r\n/);
    expect(await readFile(join(out, paths.eventPage(cal.slug, victim)), 'utf8')).toMatch(/Cancelled/);
    expect(await readFile(join(out, paths.calendar(cal.slug, 'index.html')), 'utf8')).not.toContain(`events/${victim}.html`);
    // Once --keep-removed-days have passed, the page and .ics go too.
    const later = await build(['--keep-removed-days', '0']);
    expect(later.summary.files.removed).toBe(2);
    const after = await snapshotTree(out);
    expect(after.has(paths.eventPage(cal.slug, victim))).toBe(false);
    expect(after.has(paths.eventIcs(cal.slug, victim))).toBe(false);
    // sitemap.xml follows: it lists the pages published, this build's as the last's were.
    const sitemap = await readFile(join(out, 'sitemap.xml'), 'utf8');
    expect(sitemap).not.toContain(`/${paths.eventPage(cal.slug, victim)}<`);
    const pages = [...after.keys()].filter((p) => p.endsWith('.html') && !p.endsWith('/widget.html') && p !== '404.html').sort();
    expect([...sitemap.matchAll(/<loc>[^<]*?\/\/[^/]+\/([^<]*)<\/loc>/g)].map((m) => m[1])).toEqual(pages);
  });

  it('a corrupt cache falls back to a full, correct build', async () => {
    const before = await snapshotTree(out);
    for (const file of await readdir(cache)) await writeFile(join(cache, file), '{"this is": "not a cache"');
    portal.resetStats();
    const { summary, stderr } = await build();
    expect(stderr).toMatch(/corrupt|unreadable|afresh|full crawl/i);
    expect(portal.stats().byKind.details).toBe(summary.events);
    expect(summary.details.fetched).toBe(summary.events);
    const after = await snapshotTree(out);
    // The data did not change, so the mirror is identical; only history-derived stamps may differ.
    for (const [p, info] of after) {
      if (p.startsWith('event-calendar')) expect(info.sha256, p).toBe(before.get(p)?.sha256);
    }
    expect([...after.keys()]).toEqual([...before.keys()]);
  });
});
