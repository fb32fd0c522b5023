// `npm run bench`: the issue 5 benchmark. The demo portal runs in this process (so the benchmark can
// change events between builds and read its request counts); every build is the real CLI,
// `node dist/cli.js build`, in a child process, so its CPU time and peak RSS are its own.
//
//   npm run bench                       # 20 x 500 events, 20 ms latency, concurrency 8
//   npm run bench -- --calendars 20 --events 500 --latency 20 --concurrency 8 \
//                    --scenarios full,nochange,changed,nolatency,large
//
// Scenarios: full (cold build with --latency), nochange (rebuild, same data; then as once time has
// passed an event's start or end; then without the record of the last build), changed (rebuild
// after 1% of events changed, then after as many changed in one calendar), nolatency (cold build,
// no injected latency: events/s), large (cold build of 100 x 1000 events, no latency: peak RSS),
// onecal (cold build of one calendar of 100,000 events, no latency: peak RSS).
// A bare client (undici in a child process, fetching only) and curl --parallel over the same URLs
// are references for the network floor; without latency, the bare client is the ceiling. Figures
// are printed as a table and written as JSON to a temp folder. Nothing here is a test: timings are
// reported, never asserted.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { findList, rawId } from '../../src/normalize/index.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const RUSAGE_PRELOAD = fileURLToPath(new URL('./rusage-preload.mjs', import.meta.url));
const BARE_CLIENT = fileURLToPath(new URL('./bare-client.mjs', import.meta.url));
const TIME = '/usr/bin/time';
const SCENARIOS = ['full', 'nochange', 'changed', 'nolatency', 'large', 'onecal'] as const;
type Scenario = (typeof SCENARIOS)[number];
/** Bounded (a few minutes on 2 cores); `large` and `onecal` are opt-in: 100,000 events take minutes on their own. */
const DEFAULT_SCENARIOS: Scenario[] = ['full', 'nochange', 'changed', 'nolatency'];
/** Fixed "now" for the portal: same data on every run of the benchmark. */
const PORTAL_NOW = Date.parse('2026-03-02T09:00:00Z');

interface Settings {
  calendars: number;
  events: number;
  latency: number;
  concurrency: number;
  scenarios: Scenario[];
  curl: boolean;
  keep: boolean;
}

interface Row {
  scenario: string;
  calendars: number;
  events: number;
  latencyMs: number;
  concurrency: number;
  wallMs: number;
  requests: number;
  requestsPerSec: number;
  eventsPerSec: number | null;
  /** requests x latency / concurrency; null without injected latency. */
  floorMs: number | null;
  floorRatio: number | null;
  cpuMs: number | null;
  cpuMsPerEvent: number | null;
  peakRssMb: number | null;
  /** CPU the in-process demo portal spent serving this run (it shares the machine). */
  portalCpuMs: number;
  /**
   * Share of the machine's CPU time the hypervisor gave to others during the run (Linux "steal");
   * null where /proc/stat has none. A virtual machine's neighbours can slow a run down by half:
   * figures from runs with a few % of it are not comparable with calm ones.
   */
  stealPct: number | null;
  filesWritten: number | null;
  filesUnchanged: number | null;
  filesRemoved: number | null;
  filesTotal: number | null;
  note?: string;
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
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      'npm run bench -- [--calendars N] [--events N per calendar] [--latency MS] [--concurrency N]\n' +
        `                 [--scenarios ${SCENARIOS.join(',')}] [--no-curl] [--keep]\n`,
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
    keep: values.keep,
  };
}

interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  cpuMs: number | null;
  peakRssKb: number | null;
  portalCpuMs: number;
  stealPct: number | null;
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

/** Starts measuring steal; the returned function gives its share of all CPU time since, in %. */
async function stealMeter(): Promise<() => Promise<number | null>> {
  const before = await cpuTicks();
  return async () => {
    const after = await cpuTicks();
    if (!before || !after || after[1] === before[1]) return null;
    return Math.round(((after[0] - before[0]) / (after[1] - before[1])) * 1000) / 10;
  };
}

/** Run `node dist/cli.js ...args`, measuring the child alone (GNU time, else a resourceUsage preload). */
async function runMeasured(args: string[], env: Record<string, string>, cwd: string): Promise<ChildRun> {
  const useTime = existsSync(TIME);
  const rusageFile = join(cwd, `rusage-${process.hrtime.bigint()}.json`);
  const nodeArgs = useTime ? [CLI, ...args] : ['--import', RUSAGE_PRELOAD, CLI, ...args];
  const [cmd, cmdArgs] = useTime ? [TIME, ['-v', process.execPath, ...nodeArgs]] : [process.execPath, nodeArgs];
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CALFEED_')));
  const steal = await stealMeter();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const child = spawn(cmd, cmdArgs, { cwd, env: { ...base, ...env, BENCH_RUSAGE_FILE: rusageFile }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (c) => resolve(c));
  });
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const portalCpuMs = (cpu.user + cpu.system) / 1000;
  const stealPct = await steal();
  let cpuMs: number | null = null;
  let peakRssKb: number | null = null;
  if (useTime) {
    const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
    const sys = /System time \(seconds\): ([\d.]+)/.exec(stderr);
    const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
    if (user && sys) cpuMs = (Number(user[1]) + Number(sys[1])) * 1000;
    if (rss) peakRssKb = Number(rss[1]);
  } else if (existsSync(rusageFile)) {
    const usage = JSON.parse(await readFile(rusageFile, 'utf8')) as NodeJS.ResourceUsage;
    cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
    peakRssKb = usage.maxRSS;
  }
  return { code, stdout, stderr, wallMs, cpuMs, peakRssKb, portalCpuMs, stealPct };
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
  const run = await runMeasured(args, { CALFEED_TOKEN: portal.tokens.university }, work);
  if (run.code !== 0) throw new Error(`${scenario}: calfeed build exited ${run.code}\n${run.stderr.slice(-4000)}`);
  const summary = JSON.parse(run.stdout) as { events: number; files: { written: number; unchanged: number; removed: number; files: number } };
  const expected = site.calendars * site.events;
  if (summary.events !== expected) throw new Error(`${scenario}: the build saw ${summary.events} events, the portal has ${expected}`);
  const requests = portal.stats().requests;
  const floorMs = site.latency > 0 ? (requests * site.latency) / s.concurrency : null;
  return {
    scenario,
    calendars: site.calendars,
    events: summary.events,
    latencyMs: site.latency,
    concurrency: s.concurrency,
    wallMs: Math.round(run.wallMs),
    requests,
    requestsPerSec: Math.round((requests / run.wallMs) * 1000),
    eventsPerSec: Math.round((summary.events / run.wallMs) * 1000),
    floorMs: floorMs === null ? null : Math.round(floorMs),
    floorRatio: floorMs && kind === 'full' ? round2(run.wallMs / floorMs) : null,
    cpuMs: run.cpuMs === null ? null : Math.round(run.cpuMs),
    cpuMsPerEvent: run.cpuMs === null ? null : round3(run.cpuMs / summary.events),
    peakRssMb: run.peakRssKb === null ? null : Math.round(run.peakRssKb / 1024),
    portalCpuMs: Math.round(run.portalCpuMs),
    stealPct: run.stealPct,
    filesWritten: summary.files.written,
    filesUnchanged: summary.files.unchanged,
    filesRemoved: summary.files.removed,
    filesTotal: summary.files.files,
  };
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
  const steal = await stealMeter();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn('curl', ['--parallel', '--parallel-max', String(s.concurrency), '--config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.on('error', reject);
    child.on('close', (c) => resolve(c));
  });
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  if (code !== 0) throw new Error(`curl exited ${code}`);
  return referenceRow('curl --parallel', site, s, wallMs, cpu, await steal(), false);
}

/** A row for a client that only fetches (no build figures); `perEvent`: give events/s. */
function referenceRow(scenario: string, site: Site, s: Settings, wallMs: number, portalCpu: NodeJS.CpuUsage, stealPct: number | null, perEvent: boolean): Row {
  const requests = site.portal.stats().requests;
  const floorMs = site.latency > 0 ? (requests * site.latency) / s.concurrency : null;
  const events = site.calendars * site.events;
  return {
    scenario,
    calendars: site.calendars,
    events,
    latencyMs: site.latency,
    concurrency: s.concurrency,
    wallMs: Math.round(wallMs),
    requests,
    requestsPerSec: Math.round((requests / wallMs) * 1000),
    eventsPerSec: perEvent ? Math.round((events * 1000) / wallMs) : null,
    floorMs: floorMs === null ? null : Math.round(floorMs),
    floorRatio: floorMs ? round2(wallMs / floorMs) : null,
    portalCpuMs: Math.round((portalCpu.user + portalCpu.system) / 1000),
    stealPct,
    cpuMs: null,
    cpuMsPerEvent: null,
    peakRssMb: null,
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
  const steal = await stealMeter();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let stderr = '';
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, [BARE_CLIENT, list, String(s.concurrency)], {
      env: { ...process.env, BENCH_TOKEN: site.portal.tokens.university },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (c) => resolve(c));
  });
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  if (code !== 0) throw new Error(`bare client exited ${code}: ${stderr.trim()}`);
  return referenceRow('bare client', site, s, wallMs, cpu, await steal(), true);
}

async function hasCurl(): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('curl', ['--version'], { stdio: 'ignore' });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function table(rows: Row[]): string {
  const cols: Array<[string, (r: Row) => string]> = [
    ['scenario', (r) => r.scenario],
    ['events', (r) => String(r.events)],
    ['lat ms', (r) => String(r.latencyMs)],
    ['conc', (r) => String(r.concurrency)],
    ['wall s', (r) => (r.wallMs / 1000).toFixed(2)],
    ['requests', (r) => String(r.requests)],
    ['req/s', (r) => String(r.requestsPerSec)],
    ['events/s', (r) => (r.eventsPerSec === null ? '-' : String(r.eventsPerSec))],
    ['floor s', (r) => (r.floorMs === null ? '-' : (r.floorMs / 1000).toFixed(2))],
    ['x floor', (r) => (r.floorRatio === null ? '-' : r.floorRatio.toFixed(2))],
    ['CPU ms/ev', (r) => (r.cpuMsPerEvent === null ? '-' : r.cpuMsPerEvent.toFixed(3))],
    ['peak RSS MB', (r) => (r.peakRssMb === null ? '-' : String(r.peakRssMb))],
    ['portal CPU s', (r) => (r.portalCpuMs / 1000).toFixed(2)],
    ['steal %', (r) => (r.stealPct === null ? '-' : r.stealPct.toFixed(1))],
    ['written', (r) => (r.filesWritten === null ? '-' : String(r.filesWritten))],
    ['unchanged', (r) => (r.filesUnchanged === null ? '-' : String(r.filesUnchanged))],
    ['removed', (r) => (r.filesRemoved === null ? '-' : String(r.filesRemoved))],
  ];
  const cells = [cols.map(([h]) => h), ...rows.map((r) => cols.map(([, f]) => f(r)))];
  const widths = cols.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const line = (row: string[]): string => '| ' + row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ') + ' |';
  const rule = '|' + widths.map((w, i) => (i === 0 ? '-'.repeat(w + 1) + '-' : '-'.repeat(w + 1) + ':')).join('|') + '|';
  return [line(cells[0]!), rule, ...cells.slice(1).map(line)].join('\n');
}

function log(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

async function main(): Promise<void> {
  const s = settings(process.argv.slice(2));
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run bench" (it compiles first) or "npm run build".`);
  const rows: Row[] = [];
  const notes: string[] = [];
  const want = (x: Scenario): boolean => s.scenarios.includes(x);
  const started = Date.now();

  if (want('full') || want('nochange') || want('changed')) {
    const site = await openSite(s.calendars, s.events, s.latency);
    try {
      log(`full build: ${s.calendars} x ${s.events} events, ${s.latency} ms latency, concurrency ${s.concurrency}`);
      const full = await build(site, 'full', s, 'full');
      if (want('full')) rows.push(full);
      if (want('full')) {
        log('bare client (undici, fetching only) over the same URLs');
        rows.push(await bareClientRow(site, s));
      }
      if (want('full') && s.curl) {
        if (await hasCurl()) {
          log('curl --parallel over the same URLs');
          rows.push(await curlRow(site, s));
        } else notes.push('curl is not installed: no curl reference row.');
      }
      if (want('nochange')) {
        log('rebuild, no change');
        const row = await build(site, 'nochange', s, 'rebuild');
        row.note = `${Math.round((row.wallMs / full.wallMs) * 1000) / 10}% of the full build's time`;
        rows.push(row);
        // The same rebuild once "now" has passed an event's start or end (or a new day began),
        // as an hourly rebuild mostly finds it: the record of the last build is told that instant
        // has come, so the build renders from the events the last build left in the cache.
        log('rebuild, no change, time moved');
        const record = join(site.work, 'cache', 'last-build.json');
        const last = JSON.parse(await readFile(record, 'utf8')) as { builtAt: number; stableUntil: number | null };
        await writeFile(record, JSON.stringify({ ...last, stableUntil: last.builtAt + 1 }));
        const moved = await build(site, 'nochange, time moved', s, 'rebuild');
        moved.note = `no change at the portal, but time moved past an event's start or end: ${Math.round((moved.wallMs / full.wallMs) * 1000) / 10}% of the full build's time`;
        rows.push(moved);
        // And without the record at all (lost cache entry, or details due for a check): every
        // list is still a 304 and nothing is written, but every event goes through the build.
        log('rebuild, no change, without the record of the last build');
        await rm(record);
        const walked = await build(site, 'nochange, no record', s, 'rebuild');
        walked.note = `no change, but without last-build.json: ${Math.round((walked.wallMs / full.wallMs) * 1000) / 10}% of the full build's time`;
        rows.push(walked);
      }
      if (want('changed')) {
        const n = Math.max(1, Math.round((s.calendars * s.events) / 100));
        const changed = site.portal.changeEvents(n);
        log(`rebuild, ${changed.length} events changed`);
        const row = await build(site, 'changed 1%', s, 'rebuild');
        row.note = `${changed.length} events changed; ${Math.round((row.wallMs / full.wallMs) * 1000) / 10}% of the full build's time`;
        rows.push(row);
        // The same number of changes in one calendar, as when one department edits its events:
        // the other calendars are taken whole from the last build.
        const calendarId = changed[0]![0];
        const inOne = site.portal.changeEvents(Math.min(n, s.events), calendarId);
        log(`rebuild, ${inOne.length} events changed in one calendar`);
        const one = await build(site, 'changed, one calendar', s, 'rebuild');
        one.note = `${inOne.length} events of one calendar changed; ${Math.round((one.wallMs / full.wallMs) * 1000) / 10}% of the full build's time`;
        rows.push(one);
      }
    } finally {
      await closeSite(site, s.keep);
    }
  }
  if (want('nolatency')) {
    const site = await openSite(s.calendars, s.events, 0);
    try {
      log(`full build, no latency: ${s.calendars} x ${s.events} events`);
      rows.push(await build(site, 'full, no latency', s, 'full'));
      // curl's --parallel is no reference here: over 10,000 URLs without latency it spends most
      // of its time in its own bookkeeping (minutes), not in the network.
      log('bare client (undici, fetching only), no latency');
      const bare = await bareClientRow(site, s);
      bare.note = 'fetching only, no parsing, rendering or writing: the most events/s any Node.js build could reach against this portal on this machine';
      rows.push(bare);
    } finally {
      await closeSite(site, s.keep);
    }
  }
  if (want('large')) {
    const site = await openSite(100, 1000, 0);
    try {
      log('large: full build of 100 x 1000 events, no latency');
      rows.push(await build(site, 'large 100k', s, 'full'));
    } finally {
      await closeSite(site, s.keep);
    }
  }

  if (want('onecal')) {
    const site = await openSite(1, 100_000, 0);
    try {
      log('onecal: full build of 1 x 100,000 events, no latency');
      // Its unpaged event list is 26 MB, past the default --max-response-bytes.
      rows.push(await build(site, 'one calendar 100k', s, 'full', ['--max-response-bytes', '200MB']));
    } finally {
      await closeSite(site, s.keep);
    }
  }

  const printed = table(rows);
  const extra = rows.filter((r) => r.note).map((r) => `- ${r.scenario}: ${r.note}`);
  const env = `node ${process.version}, ${process.platform}/${process.arch}, ${(await import('node:os')).cpus().length} CPUs; command: npm run bench -- ${process.argv.slice(2).join(' ')}`;
  process.stdout.write(`\n${printed}\n${[...extra, ...notes.map((n) => `- ${n}`)].join('\n')}\n${env}\n`);
  const dir = await mkdtemp(join(tmpdir(), 'calfeed-bench-results-'));
  const file = join(dir, 'latest.json');
  await writeFile(file, JSON.stringify({ settings: s, node: process.version, startedAt: new Date(started).toISOString(), rows, notes, table: printed }, null, 2) + '\n');
  process.stdout.write(`results: ${file} (total ${Math.round((Date.now() - started) / 1000)} s)\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
