// The GitHub Action without GitHub: action.yml's build step (.github/action/run.sh) run in a
// temporary git repository with the environment a runner gives it, against the embedded demo portal;
// and action.yml checked to hand the script what it reads.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_WARNINGS, runCommand, type CliResult } from '../support/cli.js';
import { replaceRecord } from '../support/store.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = join(ROOT, '.github/action/run.sh');
const SITE_URL = 'https://example.github.io/events/';

let repo: string;
let temp: string;
beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'calfeed-action-'));
  repo = join(temp, 'site');
  expect((await runCommand('git', ['init', '-q', repo])).code).toBe(0);
});
afterAll(async () => {
  if (temp) await rm(temp, { recursive: true, force: true });
});

/** Runs the step as action.yml does, with the inputs' defaults; returns its result and what it wrote to GITHUB_OUTPUT. */
async function step(run: string, inputs: Record<string, string> = {}): Promise<{ r: CliResult; outputs: Record<string, string>; stepSummary: string }> {
  const output = join(temp, `${run}.output`);
  const stepSummary = join(temp, `${run}.summary.md`);
  const env = {
    GITHUB_ACTIONS: 'true',
    GITHUB_ACTION_PATH: ROOT,
    GITHUB_WORKSPACE: repo,
    GITHUB_OUTPUT: output,
    GITHUB_STEP_SUMMARY: stepSummary,
    RUNNER_TEMP: temp,
    INPUT_BASE_URL: '',
    INPUT_SITE_URL: SITE_URL,
    INPUT_TIME_ZONE: '',
    INPUT_OUT: 'public',
    INPUT_CONFIG: '',
    INPUT_CACHE_DIR: '.calfeed-cache',
    CALFEED_TOKEN: '',
    ...inputs,
  };
  const r = await runCommand('bash', [SCRIPT], { cwd: repo, env });
  const text = existsSync(output) ? await readFile(output, 'utf8') : '';
  const outputs = Object.fromEntries(text.trim().split('\n').filter(Boolean).map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]));
  return { r, outputs, stepSummary: existsSync(stepSummary) ? await readFile(stepSummary, 'utf8') : '' };
}

/** The outputs say what the --json summary says. */
async function expectOutputsOf(outputs: Record<string, string>): Promise<void> {
  const summary = JSON.parse(await readFile(outputs['summary-file']!, 'utf8')) as { published: boolean; upToDate: boolean; events: number; warnings: string[] };
  expect(outputs).toEqual({
    published: String(summary.published),
    'up-to-date': String(summary.upToDate),
    events: String(summary.events),
    warnings: String(summary.warnings.length),
    'summary-file': join(temp, 'calfeed-summary.json'),
  });
}

describe('the GitHub Action', () => {
  it('builds the demo into the workspace, exposes the summary as outputs, and a second run builds on the first', async () => {
    const first = await step('first');
    expect(first.r.code, first.r.stderr).toBe(0);
    expect(first.outputs).toMatchObject({ published: 'true', 'up-to-date': 'false', events: '59', warnings: String(DEMO_WARNINGS.length) });
    await expectOutputsOf(first.outputs);
    expect(first.stepSummary).toBe('calfeed: published public; 5 calendars, 59 events, 1 warning.\n');
    expect(existsSync(join(repo, 'public', 'manifest.json'))).toBe(true);
    expect(await readFile(join(repo, 'public', 'index.html'), 'utf8')).toContain(SITE_URL);
    expect(existsSync(join(repo, '.calfeed-cache'))).toBe(true);

    // As the next scheduled run would, after actions/cache restored both folders. Usually up to
    // date; "now" is the real clock here, so an event may have started since: the outputs follow the summary.
    const second = await step('second');
    expect(second.r.code, second.r.stderr).toBe(0);
    await expectOutputsOf(second.outputs);
    expect(second.outputs.events).toBe('59');

    // Without the record of the last build, the run renders everything and (unless an event started
    // or ended since, on this real clock) finds the files the folder holds: nothing to publish.
    await replaceRecord(join(repo, '.calfeed-cache'));
    const third = await step('third');
    expect(third.r.code, third.r.stderr).toBe(0);
    expect(third.outputs).toMatchObject({ 'up-to-date': 'false', events: '59' });
    await expectOutputsOf(third.outputs);
    const what = third.outputs.published === 'true' ? 'published public' : 'built the very files public holds, nothing published';
    expect(third.stepSummary).toBe(`calfeed: ${what}; 5 calendars, 59 events, 1 warning.\n`);
  });

  it('fails the step with calfeed\'s exit status on a bad input, with published=false', async () => {
    const { r, outputs } = await step('bad', { INPUT_TIME_ZONE: 'Nowhere/Land' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--time-zone: "Nowhere\/Land" is not an IANA time zone name/);
    expect(outputs).toMatchObject({ published: 'false', 'up-to-date': 'false' });
    expect(outputs.events).toBeUndefined();
  });

  it('action.yml hands the script every input it reads, the token only as env, and declares the outputs it writes', async () => {
    const action = await readFile(join(ROOT, 'action.yml'), 'utf8');
    const script = await readFile(SCRIPT, 'utf8');
    const read = new Set(script.match(/\bINPUT_[A-Z_]+/g));
    const mapped = new Map([...action.matchAll(/^ +(INPUT_[A-Z_]+): \$\{\{ inputs\.([a-z-]+) \}\}$/gm)].map((m) => [m[1]!, m[2]!]));
    expect([...mapped.keys()].sort()).toEqual([...read].sort());
    for (const [env, input] of mapped) expect(env).toBe(`INPUT_${input.toUpperCase().replace(/-/g, '_')}`);
    expect(action.match(/inputs\.token\b.*/g)).toEqual(['inputs.token }}']);
    expect(action).toMatch(/^ +CALFEED_TOKEN: \$\{\{ inputs\.token \}\}$/m);
    const declared = [...action.matchAll(/value: \$\{\{ steps\.build\.outputs\.([a-z-]+) \}\}/g)].map((m) => m[1]);
    expect(declared.sort()).toEqual(['events', 'published', 'summary-file', 'up-to-date', 'warnings']);
  });
});
