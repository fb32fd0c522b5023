// `npm run bench`: the issue 5 benchmark. The demo portal runs in this process (so the benchmark can
// change events between builds and read its request counts); every build is the real CLI,
// `node dist/cli.js build`, in a child process, so its CPU time and peak RSS are its own.
//
//   npm run bench                       # 20 x 500 events, 20 ms latency, concurrency 8
//   npm run bench -- --calendars 20 --events 500 --latency 20 --concurrency 8 \
//                    --scenarios full,nochange,changed,nolatency,large --runs 3
//
// Scenarios: full (cold build with --latency), nochange (rebuild, same data; then as once time has
// passed an event's start or end; then without the record of the last build), changed (rebuild
// after 1% of events changed, then after as many changed in one calendar), nolatency (cold build,
// no injected latency: events/s), large (cold build of 100 x 1000 events, no latency: peak RSS),
// onecal (cold build of one calendar of 100,000 events, no latency: peak RSS), threads (cold builds
// without latency with the default threads and with --threads 0 in turn: what the threads buy).
// A bare client (undici in a child process, fetching only) and curl --parallel over the same URLs
// are references for the network floor; without latency, the bare client is the ceiling. The
// reference build (reference-build.mjs: the same files with the same libraries, and nothing else)
// is the reference for what the build itself costs. With --runs N, each cold build of full and
// nolatency runs N times in turn with the reference build and the bare client (A, B, C, A, B, C...),
// and rows give medians with their min–max; calfeed's ratios to the references are taken pair by
// pair. Every row records the load average and the measured process's own CPU time, so calm runs
// can be told from busy ones. Figures are printed as tables and written as JSON to a temp folder.
// Nothing here is a test: timings are reported, never asserted.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { findList, rawId } from '../../src/normalize/index.js';
import { ratio, ratioTable, round2, round3, summarize, table, type Ratio, type Row } from './report.js';
import { editRecord } from '../support/store.js';
import type { LastBuild } from '../../src/state/last-build.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const RUSAGE_PRELOAD = fileURLToPath(new URL('./rusage-preload.mjs', import.meta.url));
const BARE_CLIENT = fileURLToPath(new URL('./bare-client.mjs', import.meta.url));
const REFERENCE_BUILD = fileURLToPath(new URL('./reference-build.mjs', import.meta.url));
const SITE_URL = 'https://events.example.edu/';
const TIME = '/usr/bin/time';
const SCENARIOS = ['full', 'nochange', 'changed', 'nolatency', 'threads', 'large', 'onecal'] as const;
type Scenario = (typeof SCENARIOS)[number];
/** Bounded (a few minutes on 2 cores); `large` and `onecal` are opt-in: 100,000 events take minutes on their own. */
const DEFAULT_SCENARIOS: Scenario[] = ['full', 'nochange', 'changed', 'nolatency'];
/**
 * "Now" for the portal: 09:00 UTC today, so the same data all day, and its events (weeks before
 * and after it) around the instant calfeed builds at, as a live portal's are: feeds and
 * calendar.ics files hold events. (A fixed date in the past left them empty.)
 */
const DAY_MS = 86_400_000;
const PORTAL_NOW = Math.floor(Date.now() / DAY_MS) * DAY_MS + 9 * 3_600_000;

interface Settings {
  calendars: number;
  events: number;
  latency: number;
  concurrency: number;
  scenarios: Scenario[];
  curl: boolean;
  reference: boolean;
  /** Cold builds per scenario, each in turn with the references. */
  runs: number;
  keep: boolean;
  /** The calfeed to measure: this checkout's dist/cli.js, or another checkout's (code A against code B). */
  cli: string;
}

function settings(argv: string[]): Settings {
  const { values } = parseArgs({
    args: argv,
    options: {
      calendars: { type: 'string', default: '20' },
      events: { type: 'string', default: '500' },
      latency: { type: 'string', default: '20' },
      concurrency: { type: 'string', default: '8' },
      scenarios: { type: 'string', default: DEFAULT_SCENARIOS.join(',') },
      'no-curl': { type: 'boolean', default: false },
      'no-reference': { type: 'boolean', default: false },
      runs: { type: 'string', default: '1' },
      keep: { type: 'boolean', default: false },
      cli: { type: 'string', default: CLI },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      'npm run bench -- [--calendars N] [--events N per calendar] [--latency MS] [--concurrency N]\n' +
        `                 [--scenarios ${SCENARIOS.join(',')}] [--runs N] [--no-curl] [--no-reference] [--keep]\n` +
        '                 [--cli PATH: another checkout\'s dist/cli.js, to compare code A with code B]\n',
    );
    process.exit(0);
  }
  const int = (name: string, text: string, min: number): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer of at least ${min}, got ${text}`);
    return n;
  };
  const scenarios = values.scenarios.split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of scenarios) if (!(SCENARIOS as readonly string[]).includes(s)) throw new Error(`unknown scenario ${s}; valid: ${SCENARIOS.join(', ')}`);
  return {
    calendars: int('calendars', values.calendars, 1),
    events: int('events', values.events, 1),
    latency: int('latency', values.latency, 0),
    concurrency: int('concurrency', values.concurrency, 1),
    scenarios: scenarios as Scenario[],
    curl: !values['no-curl'],
    reference: !values['no-reference'],
    runs: int('runs', values.runs, 1),
    keep: values.keep,
    cli: values.cli,
  };
}

/** What the machine did around one measured run: the conditions every row records. */
interface Conditions {
  wallMs: number;
  /** CPU of this process, which is the demo portal serving the run. */
  portalCpuMs: number;
  stealPct: number | null;
  loadStart: number;
  loadEnd: number;
}

interface ChildRun extends Conditions {
  code: number | null;
  stdout: string;
  stderr: string;
  cpuMs: number | null;
  userMs: number | null;
  sysMs: number | null;
  /** The main thread's alone (Linux); null elsewhere. */
  mainCpuMs: number | null;
  peakRssKb: number | null;
}

/** CPU ticks of the whole machine from /proc/stat: [steal, all]; null where there is no such file. */
async function cpuTicks(): Promise<[number, number] | null> {
  try {
    const fields = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already in user and nice)
    const all = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    return fields.length >= 8 ? [fields[7]!, all] : null;
  } catch {
    return null;
  }
}

/** Starts measuring a run; the returned function gives its conditions from then to now. */
async function meter(): Promise<() => Promise<Conditions>> {
  const before = await cpuTicks();
  const loadStart = loadavg()[0]!;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  return async () => {
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const loadEnd = loadavg()[0]!;
    const after = await cpuTicks();
    const stealPct = !before || !after || after[1] === before[1] ? null : Math.round(((after[0] - before[0]) / (after[1] - before[1])) * 1000) / 10;
    return { wallMs, portalCpuMs: (cpu.user + cpu.system) / 1000, stealPct, loadStart, loadEnd };
  };
}

/** Run `node script ...args`, measuring the child alone (GNU time, else a resourceUsage preload). */
async function runMeasured(script: string, args: string[], env: Record<string, string>, cwd: string): Promise<ChildRun> {
  const useTime = existsSync(TIME);
  const rusageFile = join(cwd, `rusage-${process.hrtime.bigint()}.json`);
  const nodeArgs = ['--import', RUSAGE_PRELOAD, script, ...args];
  const [cmd, cmdArgs] = useTime ? [TIME, ['-v', process.execPath, ...nodeArgs]] : [process.execPath, nodeArgs];
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CALFEED_')));
  const stop = await meter();
  const child = spawn(cmd, cmdArgs, { cwd, env: { ...base, ...env, BENCH_RUSAGE_FILE: rusageFile }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (c) => resolve(c));
  });
  const conditions = await stop();
  let userMs: number | null = null;
  let sysMs: number | null = null;
  let peakRssKb: number | null = null;
  let mainCpuMs: number | null = null;
  const usage = existsSync(rusageFile) ? (JSON.parse(await readFile(rusageFile, 'utf8')) as NodeJS.ResourceUsage & { mainThread: { userMs: number; sysMs: number } | null }) : undefined;
  if (usage?.mainThread) mainCpuMs = usage.mainThread.userMs + usage.mainThread.sysMs;
  if (useTime) {
    const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
    const sys = /System time \(seconds\): ([\d.]+)/.exec(stderr);
    const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
    if (user && sys) [userMs, sysMs] = [Number(user[1]) * 1000, Number(sys[1]) * 1000];
    if (rss) peakRssKb = Number(rss[1]);
  } else if (usage) {
    [userMs, sysMs] = [usage.userCPUTime / 1000, usage.systemCPUTime / 1000];
    peakRssKb = usage.maxRSS;
  }
  const cpuMs = userMs === null || sysMs === null ? null : userMs + sysMs;
  return { ...conditions, code, stdout, stderr, cpuMs, userMs, sysMs, mainCpuMs, peakRssKb };
}

interface Site {
  portal: DemoPortal;
  work: string;
  calendars: number;
  events: number;
  latency: number;
}

async function openSite(calendars: number, events: number, latency: number): Promise<Site> {
  const portal = await startDemoPortal({ now: PORTAL_NOW, calendars, eventsPerCalendar: events, latencyMs: latency });
  const work = await mkdtemp(join(tmpdir(), 'calfeed-bench-'));
  return { portal, work, calendars, events, latency };
}

async function closeSite(site: Site, keep: boolean): Promise<void> {
  await site.portal.close();
  if (keep) process.stderr.write(`kept ${site.work}\n`);
  else await rm(site.work, { recursive: true, force: true });
}

/** One `calfeed build` against the site's portal, as a table row. */
/**
 * One build in a child process. `kind`: a full build's wall time is set against the network floor;
 * a rebuild's is set against the full build's instead (its few requests make the ratio meaningless).
 */
async function build(site: Site, scenario: string, s: Settings, kind: 'full' | 'rebuild', extra: string[] = []): Promise<Row> {
  const { portal, work } = site;
  portal.resetStats();
  const args = [
    'build',
    '--base-url', portal.url,
    '--out', join(work, 'site'),
    '--cache-dir', join(work, 'cache'),
    '--site-url', 'https://events.example.edu/',
    '--time-zone', portal.timeZone,
    '--concurrency', String(s.concurrency),
    '--json',
    '--quiet',
    ...extra,
  ];
  const run = await runMeasured(s.cli, args, { CALFEED_TOKEN: portal.tokens.university }, work);
  if (run.code !== 0) throw new Error(`${scenario}: calfeed build exited ${run.code}\n${run.stderr.slice(-4000)}`);
  const summary = JSON.parse(run.stdout) as { events: number; files: Files };
  return builtRow(scenario, site, s, kind, run, summary.events, summary.files);
}

interface Files {
  written: number;
  unchanged: number;
  removed: number;
  files: number;
}

/** The row of a child that built the site (calfeed or the reference build). */
function builtRow(scenario: string, site: Site, s: Settings, kind: 'full' | 'rebuild', run: ChildRun, events: number, files: Files): Row {
  const expected = site.calendars * site.events;
  if (events !== expected) throw new Error(`${scenario}: the build saw ${events} events, the portal has ${expected}`);
  const row = measuredRow(scenario, site, s, run, true, run);
  return {
    ...row,
    floorRatio: kind === 'full' ? row.floorRatio : null,
    filesWritten: files.written,
    filesUnchanged: files.unchanged,
    filesRemoved: files.removed,
    filesTotal: files.files,
  };
}

/** The reference build (reference-build.mjs) into a folder of its own, in a child process. */
async function referenceBuild(site: Site, s: Settings): Promise<Row> {
  site.portal.resetStats();
  const args = [site.portal.url, join(site.work, 'reference'), String(s.concurrency), SITE_URL];
  const run = await runMeasured(REFERENCE_BUILD, args, { BENCH_TOKEN: site.portal.tokens.university }, site.work);
  if (run.code !== 0) throw new Error(`reference build exited ${run.code}\n${run.stderr.slice(-4000)}`);
  const { events, files } = JSON.parse(run.stdout) as { events: number; files: number };
  return builtRow('reference build', site, s, 'full', run, events, { written: files, unchanged: 0, removed: 0, files });
}

/** Relative paths of every file under `dir`. */
async function fileList(dir: string): Promise<Set<string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return new Set(entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1)));
}

/** Whether the reference build wrote the files calfeed wrote: a note naming the differences. */
async function comparePaths(site: Site): Promise<string> {
  const calfeed = await fileList(join(site.work, 'site'));
  const reference = await fileList(join(site.work, 'reference'));
  const only = (a: Set<string>, b: Set<string>): string[] => [...a].filter((p) => !b.has(p)).sort();
  const [mine, theirs] = [only(calfeed, reference), only(reference, calfeed)];
  if (!mine.length && !theirs.length) return `the reference build wrote the same ${calfeed.size} file paths as calfeed.`;
  const show = (l: string[]): string => l.slice(0, 5).join(', ') + (l.length > 5 ? `, ... (${l.length})` : '');
  return `the reference build's files differ from calfeed's: only calfeed: ${show(mine) || 'none'}; only the reference: ${show(theirs) || 'none'}.`;
}

/** Every URL a full crawl requests, read from the portal's own lists (not counted in any row). */
async function crawlUrls(portal: DemoPortal): Promise<string[]> {
  const headers = { authorization: `Bearer ${portal.tokens.university}` };
  const getJson = async (url: string): Promise<unknown> => {
    const res = await fetch(url, { headers });
    if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
    return res.json();
  };
  const urls = [`${portal.url}/event-calendars`];
  const calendars = findList(await getJson(urls[0]!), 'calendars').items.map((c) => rawId(c, 'calendar')!);
  for (const cal of calendars) {
    const list = `${portal.url}/event-calendar/${encodeURIComponent(cal)}/events`;
    urls.push(list);
    for (const item of findList(await getJson(list), 'events').items) {
      urls.push(`${portal.url}/event-calendar/${encodeURIComponent(cal)}/event/${encodeURIComponent(rawId(item, 'event')!)}/details`);
    }
  }
  return urls;
}

/** curl --parallel over the same URLs with the same concurrency: what a plain HTTP client needs. */
async function curlRow(site: Site, s: Settings): Promise<Row> {
  const urls = await crawlUrls(site.portal);
  const config = join(site.work, 'curl.conf');
  const lines = [`header = "Authorization: Bearer ${site.portal.tokens.university}"`, 'silent', 'fail'];
  for (const url of urls) lines.push(`url = "${url}"`, 'output = "/dev/null"');
  await writeFile(config, lines.join('\n') + '\n');
  site.portal.resetStats();
  const stop = await meter();
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn('curl', ['--parallel', '--parallel-max', String(s.concurrency), '--config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.on('error', reject);
    child.on('close', (c) => resolve(c));
  });
  const conditions = await stop();
  if (code !== 0) throw new Error(`curl exited ${code}`);
  return measuredRow('curl --parallel', site, s, conditions, false);
}

/** A row without files (a client that only fetches, or a build before its files are added); `perEvent`: give events/s; `cpu`: the child's own CPU and memory. */
function measuredRow(scenario: string, site: Site, s: Settings, run: Conditions, perEvent: boolean, cpu?: ChildRun): Row {
  const requests = site.portal.stats().requests;
  const floorMs = site.latency > 0 ? (requests * site.latency) / s.concurrency : null;
  const events = site.calendars * site.events;
  const ms = (n: number | null | undefined): number | null => (n === null || n === undefined ? null : Math.round(n));
  return {
    scenario,
    calendars: site.calendars,
    events,
    latencyMs: site.latency,
    concurrency: s.concurrency,
    wallMs: Math.round(run.wallMs),
    requests,
    requestsPerSec: Math.round((requests / run.wallMs) * 1000),
    eventsPerSec: perEvent ? Math.round((events * 1000) / run.wallMs) : null,
    floorMs: floorMs === null ? null : Math.round(floorMs),
    floorRatio: floorMs ? round2(run.wallMs / floorMs) : null,
    portalCpuMs: Math.round(run.portalCpuMs),
    stealPct: run.stealPct,
    loadStart: round2(run.loadStart),
    loadEnd: round2(run.loadEnd),
    cpuMs: ms(cpu?.cpuMs),
    userMs: ms(cpu?.userMs),
    sysMs: ms(cpu?.sysMs),
    mainCpuMs: ms(cpu?.mainCpuMs),
    cpuMsPerEvent: cpu?.cpuMs == null ? null : round3(cpu.cpuMs / events),
    peakRssMb: cpu?.peakRssKb == null ? null : Math.round(cpu.peakRssKb / 1024),
    filesWritten: null,
    filesUnchanged: null,
    filesRemoved: null,
    filesTotal: null,
  };
}

/** A Node.js client that only fetches (bare-client.mjs), in a child process: the least a build's crawl can take. */
async function bareClientRow(site: Site, s: Settings): Promise<Row> {
  const urls = await crawlUrls(site.portal);
  const list = join(site.work, 'urls.txt');
  await writeFile(list, urls.join('\n') + '\n');
  site.portal.resetStats();
  const run = await runMeasured(BARE_CLIENT, [list, String(s.concurrency)], { BENCH_TOKEN: site.portal.tokens.university }, site.work);
  if (run.code !== 0) throw new Error(`bare client exited ${run.code}: ${run.stderr.trim().slice(-4000)}`);
  return measuredRow('bare client', site, s, run, true, run);
}

async function hasCurl(): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('curl', ['--version'], { stdio: 'ignore' });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}

function log(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

/** Flushes every file system, untimed, so that no run pays for the dirty pages of the one before. */
async function settle(): Promise<void> {
  await new Promise<void>((resolve) => {
    const child = spawn('sync', [], { stdio: 'ignore' });
    child.on('error', () => resolve());
    child.on('close', () => resolve());
  });
}

interface ColdRuns {
  calfeed: Row[];
  reference: Row[];
  bare: Row[];
}

/**
 * A scenario's cold builds: calfeed's, the reference build's and the bare client's, in turn,
 * `s.runs` times (A, B, C, A, B, C...), so that each pair shares the machine's mood. calfeed's last
 * build is left in place for the rebuilds that follow.
 */
async function coldRuns(site: Site, s: Settings, label: string, notes: string[]): Promise<ColdRuns> {
  const runs: ColdRuns = { calfeed: [], reference: [], bare: [] };
  for (let i = 0; i < s.runs; i++) {
    const nth = s.runs > 1 ? ` (run ${i + 1} of ${s.runs})` : '';
    await rm(join(site.work, 'site'), { recursive: true, force: true });
    await rm(join(site.work, 'cache'), { recursive: true, force: true });
    await settle();
    log(`${label}${nth}: calfeed`);
    runs.calfeed.push(await build(site, label, s, 'full'));
    if (s.reference) {
      await rm(join(site.work, 'reference'), { recursive: true, force: true });
      await settle();
      log(`${label}${nth}: reference build (the same files with the same libraries, nothing else)`);
      runs.reference.push(await referenceBuild(site, s));
      if (i === 0) notes.push(`${label}: ${await comparePaths(site)}`);
    }
    await settle();
    log(`${label}${nth}: bare client (undici, fetching only) over the same URLs`);
    runs.bare.push(await bareClientRow(site, s));
  }
  return runs;
}

/** Cold builds without latency, with the default threads and with none (--threads 0), in turn, `s.runs` times. */
async function threadRuns(site: Site, s: Settings): Promise<{ threaded: Row[]; single: Row[] }> {
  const runs = { threaded: [] as Row[], single: [] as Row[] };
  for (let i = 0; i < s.runs; i++) {
    for (const [label, extra, into] of [['no latency, default threads', [], runs.threaded], ['no latency, --threads 0', ['--threads', '0'], runs.single]] as const) {
      await rm(join(site.work, 'site'), { recursive: true, force: true });
      await rm(join(site.work, 'cache'), { recursive: true, force: true });
      await settle();
      log(`${label}${s.runs > 1 ? ` (run ${i + 1} of ${s.runs})` : ''}`);
      into.push(await build(site, label, s, 'full', [...extra]));
    }
  }
  return runs;
}

/** calfeed's ratios to the references, run by run, with the issue's targets where it sets one. */
function coldRatios(runs: ColdRuns): Ratio[] {
  const latency = runs.calfeed[0]!.latencyMs;
  const all = [
    ratio('CPU per event ÷ reference build', 1.3, runs.calfeed, runs.reference, (r) => r.cpuMsPerEvent),
    // User time alone: system time swings with other processes' file system work on a shared machine.
    ratio('user CPU ÷ reference build', null, runs.calfeed, runs.reference, (r) => r.userMs),
    ratio('wall ÷ reference build', latency === 0 ? 1.2 : null, runs.calfeed, runs.reference, (r) => r.wallMs),
    ratio('wall ÷ bare client', latency > 0 ? 1.05 : null, runs.calfeed, runs.bare, (r) => r.wallMs),
    // The yardstick for the row above: files made from every event can only be written after the
    // last response, so even the simplest build that writes them sits above the bare client.
    ratio('(the reference build\'s own wall ÷ bare client)', null, runs.reference, runs.bare, (r) => r.wallMs),
  ];
  return all.filter((r): r is Ratio => r !== null);
}

/**
 * editRecord, or for a calfeed from before the build store (--cli of older code), the same edit of
 * its last-build.json.
 */
async function editAnyRecord(cache: string, edit: (build: LastBuild) => LastBuild | null): Promise<void> {
  const legacy = join(cache, 'last-build.json');
  if (!existsSync(legacy)) return editRecord(cache, edit);
  const next = edit(JSON.parse(await readFile(legacy, 'utf8')) as LastBuild);
  await (next ? writeFile(legacy, JSON.stringify(next)) : rm(legacy));
}

async function main(): Promise<void> {
  const s = settings(process.argv.slice(2));
  if (!existsSync(s.cli)) throw new Error(`${s.cli} is missing: run "npm run bench" (it compiles first) or "npm run build".`);
  /** Each scenario's runs, in the order they are printed. */
  const groups: Row[][] = [];
  const ratios: Ratio[] = [];
  const notes: string[] = [];
  const want = (x: Scenario): boolean => s.scenarios.includes(x);
  const started = Date.now();
  const percentOf = (row: Row, full: Row): string => `${Math.round((row.wallMs / full.wallMs) * 1000) / 10}% of the full build's time`;

  if (want('full') || want('nochange') || want('changed')) {
    const site = await openSite(s.calendars, s.events, s.latency);
    try {
      log(`full build: ${s.calendars} x ${s.events} events, ${s.latency} ms latency, concurrency ${s.concurrency}`);
      let full: Row;
      if (want('full')) {
        const cold = await coldRuns(site, s, 'full', notes);
        groups.push(cold.calfeed, cold.reference, cold.bare);
        ratios.push(...coldRatios(cold));
        full = summarize(cold.calfeed);
      } else full = await build(site, 'full', s, 'full');
      if (want('full') && s.curl) {
        if (await hasCurl()) {
          log('curl --parallel over the same URLs');
          groups.push([await curlRow(site, s)]);
        } else notes.push('curl is not installed: no curl reference row.');
      }
      if (want('nochange')) {
        log('rebuild, no change');
        const row = await build(site, 'nochange', s, 'rebuild');
        row.note = percentOf(row, full);
        groups.push([row]);
        // The same rebuild once "now" has passed an event's start or end (or a new day began),
        // as an hourly rebuild mostly finds it: the record of the last build is told that instant
        // has come, so the build renders from the events the last build left in the cache.
        log('rebuild, no change, time moved');
        const cache = join(site.work, 'cache');
        await editAnyRecord(cache, (last) => ({ ...last, stableUntil: last.builtAt + 1 }));
        const moved = await build(site, 'nochange, time moved', s, 'rebuild');
        moved.note = `no change at the portal, but time moved past an event's start or end: ${percentOf(moved, full)}`;
        groups.push([moved]);
        // And without the record at all (lost cache entry, or details due for a check): every
        // list is still a 304 and nothing is written, but every event goes through the build.
        log('rebuild, no change, without the record of the last build');
        await editAnyRecord(cache, () => null);
        const walked = await build(site, 'nochange, no record', s, 'rebuild');
        walked.note = `no change, but without the record of the last build: ${percentOf(walked, full)}`;
        groups.push([walked]);
      }
      if (want('changed')) {
        const n = Math.max(1, Math.round((s.calendars * s.events) / 100));
        const changed = site.portal.changeEvents(n);
        log(`rebuild, ${changed.length} events changed`);
        const row = await build(site, 'changed 1%', s, 'rebuild');
        row.note = `${changed.length} events changed; ${percentOf(row, full)}`;
        groups.push([row]);
        // The same number of changes in one calendar, as when one department edits its events:
        // the other calendars are taken whole from the last build.
        const calendarId = changed[0]![0];
        const inOne = site.portal.changeEvents(Math.min(n, s.events), calendarId);
        log(`rebuild, ${inOne.length} events changed in one calendar`);
        const one = await build(site, 'changed, one calendar', s, 'rebuild');
        one.note = `${inOne.length} events of one calendar changed; ${percentOf(one, full)}`;
        groups.push([one]);
      }
    } finally {
      await closeSite(site, s.keep);
    }
  }
  if (want('nolatency')) {
    const site = await openSite(s.calendars, s.events, 0);
    try {
      log(`full build, no latency: ${s.calendars} x ${s.events} events`);
      // curl's --parallel is no reference here: over 10,000 URLs without latency it spends most
      // of its time in its own bookkeeping (minutes), not in the network.
      const cold = await coldRuns(site, s, 'full, no latency', notes);
      cold.bare[0]!.note = 'fetching only, no parsing, rendering or writing: the most events/s any Node.js build could reach against this portal on this machine';
      groups.push(cold.calfeed, cold.reference, cold.bare);
      ratios.push(...coldRatios(cold));
    } finally {
      await closeSite(site, s.keep);
    }
  }
  if (want('threads')) {
    const site = await openSite(s.calendars, s.events, 0);
    try {
      const runs = await threadRuns(site, s);
      groups.push(runs.threaded, runs.single);
      ratios.push(
        ...[
          ratio('--threads 0: wall ÷ default', null, runs.single, runs.threaded, (r) => r.wallMs),
          ratio('--threads 0: CPU ÷ default', null, runs.single, runs.threaded, (r) => r.cpuMsPerEvent),
          ratio('--threads 0: peak RSS ÷ default', null, runs.single, runs.threaded, (r) => r.peakRssMb),
        ].filter((r): r is Ratio => r !== null),
      );
    } finally {
      await closeSite(site, s.keep);
    }
  }
  if (want('large')) {
    const site = await openSite(100, 1000, 0);
    try {
      log('large: full build of 100 x 1000 events, no latency');
      groups.push([await build(site, 'large 100k', s, 'full')]);
    } finally {
      await closeSite(site, s.keep);
    }
  }

  if (want('onecal')) {
    const site = await openSite(1, 100_000, 0);
    try {
      log('onecal: full build of 1 x 100,000 events, no latency');
      // Its unpaged event list is 26 MB, past the default --max-response-bytes.
      groups.push([await build(site, 'one calendar 100k', s, 'full', ['--max-response-bytes', '200MB'])]);
    } finally {
      await closeSite(site, s.keep);
    }
  }

  const rows = groups.filter((g) => g.length > 0).map(summarize);
  const printed = table(rows) + (ratios.length ? `\n\n${ratioTable(ratios)}` : '');
  const extra = rows.filter((r) => r.note).map((r) => `- ${r.scenario}: ${r.note}`);
  const env = `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} CPUs; command: npm run bench -- ${process.argv.slice(2).join(' ')}`;
  process.stdout.write(`\n${printed}\n${[...extra, ...notes.map((n) => `- ${n}`)].join('\n')}\n${env}\n`);
  const dir = await mkdtemp(join(tmpdir(), 'calfeed-bench-results-'));
  const file = join(dir, 'latest.json');
  const json = { settings: s, node: process.version, startedAt: new Date(started).toISOString(), rows, runs: groups, ratios, notes, table: printed };
  await writeFile(file, JSON.stringify(json, null, 2) + '\n');
  process.stdout.write(`results: ${file} (total ${Math.round((Date.now() - started) / 1000)} s)\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
