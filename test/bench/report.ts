// What `npm run bench` prints: its rows, one per scenario (medians over --runs, with their spread),
// and calfeed's ratios to the references, pair by pair. No measuring here, only figures.

export interface Row {
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
  /** The measured process's own CPU time, user + system, every thread: the sum of the next two. */
  cpuMs: number | null;
  userMs: number | null;
  sysMs: number | null;
  /**
   * CPU of the measured process's main thread alone (user + system; Linux, else null). The crawl
   * and most rendering run there: when it is near the wall time, that thread paces the build.
   */
  mainCpuMs: number | null;
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
  /**
   * The machine's 1-minute load average as the run started and as it ended. Steal cannot see other
   * work on the same machine; this can: a load above the number of cores means the run shared them.
   */
  loadStart: number;
  loadEnd: number;
  filesWritten: number | null;
  filesUnchanged: number | null;
  filesRemoved: number | null;
  filesTotal: number | null;
  note?: string;
}

type NumericKey = { [K in keyof Row]-?: Row[K] extends number | null ? K : never }[keyof Row];

/** A scenario's row over several runs: each figure the median of the runs', with [min, max]. */
export interface Summary extends Row {
  runs: number;
  spread: Partial<Record<NumericKey, [number, number]>>;
}

export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
export function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** One row from the runs of one scenario (all with the same label and settings). */
export function summarize(runs: Row[]): Summary {
  const first = runs[0]!;
  const out: Summary = { ...first, runs: runs.length, spread: {} };
  for (const key of Object.keys(first) as Array<keyof Row>) {
    const values = runs.map((r) => r[key]);
    if (!values.every((v): v is number => typeof v === 'number')) continue;
    const k = key as NumericKey;
    (out as unknown as Record<string, number>)[k] = median(values);
    out.spread[k] = [Math.min(...values), Math.max(...values)];
  }
  return out;
}

function markdown(header: string[], rows: string[][]): string {
  const cells = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const line = (row: string[]): string => '| ' + row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ') + ' |';
  const rule = '|' + widths.map((w, i) => (i === 0 ? '-'.repeat(w + 1) + '-' : '-'.repeat(w + 1) + ':')).join('|') + '|';
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** The scenario rows; with more than one run, wall, CPU, steal and load carry their min–max. */
export function table(rows: Summary[]): string {
  const num = (r: Summary, key: NumericKey, digits: number, scale = 1, ranged = false): string => {
    const value = r[key];
    if (value === null || value === undefined) return '-';
    const text = (value / scale).toFixed(digits);
    const spread = r.spread[key];
    return ranged && r.runs > 1 && spread ? `${text} (${(spread[0] / scale).toFixed(digits)}–${(spread[1] / scale).toFixed(digits)})` : text;
  };
  const load = (r: Summary): string => {
    const text = `${r.loadStart.toFixed(1)}→${r.loadEnd.toFixed(1)}`;
    if (r.runs < 2) return text;
    const [lo, hi] = [Math.min(r.spread.loadStart![0], r.spread.loadEnd![0]), Math.max(r.spread.loadStart![1], r.spread.loadEnd![1])];
    return `${text} (${lo.toFixed(1)}–${hi.toFixed(1)})`;
  };
  const cols: Array<[string, (r: Summary) => string]> = [
    ['scenario', (r) => r.scenario],
    ['runs', (r) => String(r.runs)],
    ['events', (r) => String(r.events)],
    ['lat ms', (r) => String(r.latencyMs)],
    ['conc', (r) => String(r.concurrency)],
    ['wall s', (r) => num(r, 'wallMs', 2, 1000, true)],
    ['requests', (r) => num(r, 'requests', 0)],
    ['req/s', (r) => num(r, 'requestsPerSec', 0)],
    ['events/s', (r) => num(r, 'eventsPerSec', 0)],
    ['floor s', (r) => num(r, 'floorMs', 2, 1000)],
    ['x floor', (r) => num(r, 'floorRatio', 2)],
    ['CPU s', (r) => num(r, 'cpuMs', 2, 1000)],
    ['main thread CPU s', (r) => num(r, 'mainCpuMs', 2, 1000)],
    ['CPU ms/ev', (r) => num(r, 'cpuMsPerEvent', 3, 1, true)],
    ['peak RSS MB', (r) => num(r, 'peakRssMb', 0)],
    ['portal CPU s', (r) => num(r, 'portalCpuMs', 2, 1000)],
    ['load 1m', load],
    ['steal %', (r) => num(r, 'stealPct', 1, 1, true)],
    ['written', (r) => num(r, 'filesWritten', 0)],
    ['unchanged', (r) => num(r, 'filesUnchanged', 0)],
    ['removed', (r) => num(r, 'filesRemoved', 0)],
  ];
  return markdown(cols.map(([h]) => h), rows.map((r) => cols.map(([, f]) => f(r))));
}

/** calfeed's figure over a reference's, run i against run i (they ran in turn). */
export interface Ratio {
  name: string;
  latencyMs: number;
  values: number[];
  /** The target for the median, if it sets one. */
  target: number | null;
}

export function ratio(name: string, target: number | null, calfeed: Row[], reference: Row[], pick: (r: Row) => number | null): Ratio | null {
  const values: number[] = [];
  for (let i = 0; i < Math.min(calfeed.length, reference.length); i++) {
    const a = pick(calfeed[i]!);
    const b = pick(reference[i]!);
    if (a !== null && b !== null && b > 0) values.push(a / b);
  }
  return values.length ? { name, latencyMs: calfeed[0]!.latencyMs, values, target } : null;
}

export function ratioTable(ratios: Ratio[]): string {
  const rows = ratios.map((r) => {
    const [lo, hi] = [Math.min(...r.values), Math.max(...r.values)];
    const m = median(r.values);
    const met = r.target === null ? '-' : hi <= r.target ? 'yes' : m <= r.target ? 'median only' : 'no';
    return [r.name, String(r.latencyMs), String(r.values.length), m.toFixed(2), `${lo.toFixed(2)}–${hi.toFixed(2)}`, r.target === null ? '-' : `≤ ${r.target}`, met];
  });
  return markdown(["calfeed's ratio", 'lat ms', 'pairs', 'median', 'min–max', 'target', 'met'], rows);
}
