// Replays a portal history (model.ts) through real builds and checks, after every step, that the
// incremental build published exactly what a cold build at the same "now", with the same event
// history, publishes: every file byte for byte (manifest included), the same warnings and the same
// failed and unreadable counts. Its summary's "published" tells the truth: true exactly when --out's
// files changed, and a failed build leaves --out as it was. Where a step asks, a further rebuild
// with nothing changed must be up to date and leave every file as it was, bytes and mtimes.
//
// Builds go through runBuild, the function the CLI calls, against a real HTTP portal on 127.0.0.1.

import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { runBuild } from '../../../src/pipeline/build.js';
import type { BuildSummary } from '../../../src/pipeline/summary.js';
import { loadConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/log.js';
import { paths } from '../../../src/paths.js';
import { listFiles, snapshotTree } from '../tree.js';
import { BASE_NOW, applyMutations, portalState, type History, type ModelCalendar } from './model.js';
import { startHistoryPortal, type HistoryPortal } from './portal.js';
import { copyHistory, replaceRecord, storeFile } from '../store.js';

const MINUTE = 60_000;

/** Settings every build of a history runs with: small windows, so that time moves cross them. */
export const HISTORY_FLAGS = {
  timeZone: 'Europe/Vilnius',
  siteUrl: 'https://events.example.edu/',
  keepRemovedDays: '2',
  icalPastDays: '3',
  feedLimit: '4',
  maxFailedDetails: '100%',
  concurrency: '3',
  // Histories empty calendars on purpose; the guard against that is tested on its own (faults.test.ts).
  allowShrink: 'true',
};

// What the shrink guard says when --allow-shrink lets a build publish: about the last output, not the data.
const isShrinkNotice = (warning: string): boolean => warning.endsWith('publishing anyway (--allow-shrink).');

interface Built {
  summary?: BuildSummary;
  /** The build's error message, when it failed. */
  error?: string;
  log: string;
}

/** Run a history; throws an Error that says at which step and how the two builds differed. */
export async function runHistory(history: History): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'calfeed-diff-'));
  let portal: HistoryPortal | undefined;
  try {
    let model: ModelCalendar[] = structuredClone(history.calendars);
    let now = 0;
    // The calendars the last published build listed: id -> folder.
    let published = new Map<string, string>();
    portal = await startHistoryPortal(portalState(model));
    const incremental = { out: join(work, 'site'), cache: join(work, 'cache') };
    for (const [index, step] of history.steps.entries()) {
      now += step.advance;
      // The first step's mutations apply to the initial portal too: its first build sees them.
      model = applyMutations(model, step.mutations, now);
      portal.set(portalState(model));
      const at = BASE_NOW + now * MINUTE;
      const where = `step ${index + 1} of ${history.steps.length} (now + ${now} min)`;

      // replaceRecord, not editRecord: a build that published nothing may have left no record to lose.
      if (step.loseRecord && existsSync(storeFile(incremental.cache))) await replaceRecord(incremental.cache);
      const cold = { out: join(work, `cold-${index}`, 'site'), cache: join(work, `cold-${index}`, 'cache') };
      await mkdir(cold.cache, { recursive: true });
      // The cold build starts from the event history the incremental one starts from, and nothing else.
      await copyHistory(incremental.cache, cold.cache);
      const before = await filesOf(incremental.out);
      const inc = await build(portal, incremental, at, work);
      publishedTruly(where, inc, before, await filesOf(incremental.out));
      const ref = await build(portal, cold, at, work);
      await compare(where, inc, ref, incremental.out, cold.out);
      if (inc.summary) published = await checkRules(where, incremental.out, published);
      await rm(join(work, `cold-${index}`), { recursive: true, force: true });

      if (step.checkUnchanged && inc.summary) {
        const before = await snapshotTree(incremental.out);
        const again = await build(portal, incremental, at, work);
        if (!again.summary) throw new Error(`${where}: the rebuild with nothing changed failed: ${again.error}\n${again.log}`);
        if (!again.summary.upToDate) throw new Error(`${where}: the rebuild with nothing changed was not up to date:\n${again.log}`);
        const after = await snapshotTree(incremental.out);
        const touched = [...new Set([...before.keys(), ...after.keys()])].filter(
          (f) => before.get(f)?.sha256 !== after.get(f)?.sha256 || before.get(f)?.mtimeMs !== after.get(f)?.mtimeMs,
        );
        if (touched.length > 0) throw new Error(`${where}: the up-to-date rebuild touched ${touched.slice(0, 5).join(', ')}`);
        sameWarnings(`${where}, up-to-date rebuild`, again.summary, inc.summary);
      }
    }
  } finally {
    await portal?.close();
    await rm(work, { recursive: true, force: true });
  }
}

/** Each file of --out with its bytes' hash; empty before the first build. */
async function filesOf(out: string): Promise<Map<string, string>> {
  if (!existsSync(out)) return new Map();
  return new Map([...(await snapshotTree(out))].map(([file, { sha256 }]) => [file, sha256]));
}

// "published" is true exactly when --out's files changed (a build that makes the very files --out
// holds leaves it alone); a failed build changes nothing.
function publishedTruly(where: string, built: Built, before: Map<string, string>, after: Map<string, string>): void {
  const changed = before.size !== after.size || [...after].some(([file, sha]) => before.get(file) !== sha);
  if (!built.summary) {
    if (changed) throw new Error(`${where}: the build failed (${built.error}), yet --out changed`);
    return;
  }
  if (built.summary.published !== changed) {
    throw new Error(`${where}: the build said "published": ${built.summary.published}, but --out's files ${changed ? 'changed' : 'are the same'}\n${built.log}`);
  }
}

async function build(portal: HistoryPortal, dirs: { out: string; cache: string }, now: number, work: string): Promise<Built> {
  let log = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      log += chunk.toString('utf8');
      done();
    },
  });
  const loaded = await loadConfig('build', { baseUrl: portal.url, out: dirs.out, cacheDir: dirs.cache, ...HISTORY_FLAGS }, { CALFEED_TOKEN: portal.token }, work);
  try {
    const summary = await runBuild({ loaded, log: createLogger({ stream, quiet: false, secrets: [] }), now });
    return { summary, log };
  } catch (error) {
    return { error: (error as Error).message ?? String(error), log };
  }
}

async function compare(where: string, inc: Built, cold: Built, incOut: string, coldOut: string): Promise<void> {
  if (!inc.summary || !cold.summary) {
    if (!inc.summary && !cold.summary && inc.error === cold.error) return;
    throw new Error(
      `${where}: incremental ${inc.summary ? 'published' : `failed (${inc.error})`}, cold ${cold.summary ? 'published' : `failed (${cold.error})`}\n` +
        `--- incremental log\n${inc.log}\n--- cold log\n${cold.log}`,
    );
  }
  const a = await snapshotTree(incOut);
  const b = await snapshotTree(coldOut);
  const differ = [...new Set([...a.keys(), ...b.keys()])].filter((f) => a.get(f)?.sha256 !== b.get(f)?.sha256).sort();
  if (differ.length > 0) {
    const first = differ[0]!;
    throw new Error(
      `${where}: ${differ.length} files differ from a cold build: ${differ.slice(0, 8).join(', ')}\n` +
        (await firstDifference(first, join(incOut, first), join(coldOut, first))) +
        `\n--- incremental log\n${inc.log}`,
    );
  }
  sameWarnings(where, inc.summary, cold.summary);
  const counts = (s: BuildSummary) => ({ calendars: s.calendars, events: s.events, failed: s.details.failed, unreadable: s.unreadable });
  const [ci, cc] = [counts(inc.summary), counts(cold.summary)];
  if (JSON.stringify(ci) !== JSON.stringify(cc)) throw new Error(`${where}: counts differ: incremental ${JSON.stringify(ci)}, cold ${JSON.stringify(cc)}`);
}

function sameWarnings(where: string, inc: BuildSummary, cold: BuildSummary): void {
  const a = inc.warnings.filter((w) => !isShrinkNotice(w)).sort();
  const b = cold.warnings.filter((w) => !isShrinkNotice(w)).sort();
  if (JSON.stringify(a) !== JSON.stringify(b)) {
    const missing = b.filter((w) => !a.includes(w));
    const extra = a.filter((w) => !b.includes(w));
    throw new Error(`${where}: warnings differ.\nonly cold: ${JSON.stringify(missing)}\nonly incremental: ${JSON.stringify(extra)}`);
  }
}

/**
 * Rules that hold of every published site, whatever the history: no link in any .ics that points
 * into the site is dead; a calendar keeps its folder for as long as it is listed (URLs never
 * change, case twins coming and going included); and a calendar the portal stopped listing keeps
 * its calendar.ics, every event in it cancelled, so subscribed apps drop them (checked at the
 * first build without it). Returns the calendars listed now, id -> folder.
 */
async function checkRules(where: string, out: string, before: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const files = new Set(await listFiles(out));
  for (const file of files) {
    if (!file.endsWith('.ics')) continue;
    const text = (await readFile(join(out, file), 'utf8')).replace(/\r\n[ \t]/g, '');
    for (const [, url] of text.matchAll(/^URL[^:]*:(.*)\r$/gm)) {
      if (!url!.startsWith(HISTORY_FLAGS.siteUrl)) continue;
      const target = decodeURIComponent(url!.slice(HISTORY_FLAGS.siteUrl.length));
      if (!files.has(target)) throw new Error(`${where}: ${file} links to ${url}, which is not published`);
    }
  }
  const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')) as { calendars: Array<{ id: string; slug: string }> };
  const now = new Map(manifest.calendars.map((c) => [c.id, c.slug]));
  const folders = new Set(now.values());
  for (const [id, slug] of before) {
    const still = now.get(id);
    if (still !== undefined && still !== slug) throw new Error(`${where}: calendar "${id}" moved from calendars/${slug}/ to calendars/${still}/`);
    if (still !== undefined || folders.has(slug)) continue;
    const ics = paths.calendar(slug, 'calendar.ics');
    if (!files.has(ics)) throw new Error(`${where}: calendar "${id}" was removed from the portal, and its ${ics} went with it: subscribers get a 404`);
    const text = await readFile(join(out, ics), 'utf8');
    const events = text.split('BEGIN:VEVENT').slice(1);
    if (events.some((e) => !e.includes('STATUS:CANCELLED'))) throw new Error(`${where}: calendar "${id}" was removed, but its ${ics} still lists live events`);
  }
  return now;
}

async function firstDifference(name: string, a: string, b: string): Promise<string> {
  const [x, y] = await Promise.all([readFile(a, 'utf8').catch(() => '(missing)'), readFile(b, 'utf8').catch(() => '(missing)')]);
  const xs = x.split('\n');
  const ys = y.split('\n');
  for (let i = 0; i < Math.max(xs.length, ys.length); i++) {
    if (xs[i] !== ys[i]) return `${name} line ${i + 1}:\n  incremental: ${JSON.stringify(xs[i]?.slice(0, 300))}\n  cold:        ${JSON.stringify(ys[i]?.slice(0, 300))}`;
  }
  return `${name}: same lines`;
}
