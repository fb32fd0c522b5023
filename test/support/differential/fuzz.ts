// npm run fuzz -- [--runs N] [--seed S] [--steps K] [--jobs J]
// Runs as many generated portal histories as asked through run.ts (incremental = cold after every
// step). On a failure fast-check shrinks the history to a small one, which is printed as a test to
// paste into test/e2e/differential-regressions.test.ts. A history's builds run in this process, one
// thread: --jobs J runs J processes side by side, each its share of the runs with a seed of its own
// (S, S+1, ...), for a machine with J cores.

import fc from 'fast-check';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { historyArbitrary } from './arbitraries.js';
import { runHistory } from './run.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '200' },
    seed: { type: 'string' },
    steps: { type: 'string', default: '5' },
    'shrink-seconds': { type: 'string', default: '300' },
    jobs: { type: 'string', default: '1' },
  },
});
const runs = Number(values.runs);
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
const steps = Number(values.steps);
const shrinkMs = Number(values['shrink-seconds']) * 1000;
const jobs = Number(values.jobs);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(seed) || !Number.isInteger(steps) || steps < 1 || !(shrinkMs >= 0) || !Number.isInteger(jobs) || jobs < 1) {
  console.error('usage: npm run fuzz -- [--runs N] [--seed S] [--steps K] [--shrink-seconds S] [--jobs J]');
  process.exit(2);
}
if (jobs > 1) process.exit(await inJobs());

/** Runs the histories in `jobs` processes, their output prefixed; the exit status is the worst of theirs. */
async function inJobs(): Promise<number> {
  console.log(`fuzz: ${runs} histories of up to ${steps} steps in ${jobs} processes, seeds ${seed} to ${(seed + jobs - 1) % 2 ** 31}`);
  const codes = await Promise.all(
    Array.from({ length: jobs }, (_, i) => {
      const share = Math.floor(runs / jobs) + (i < runs % jobs ? 1 : 0);
      const args = ['--runs', String(share), '--seed', String((seed + i) % 2 ** 31), '--steps', String(steps), '--shrink-seconds', String(shrinkMs / 1000)];
      const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
      createInterface({ input: child.stdout }).on('line', (line) => console.log(`[job ${i + 1}] ${line}`));
      return new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
    }),
  );
  return Math.max(...codes);
}

console.log(`fuzz: ${runs} histories of up to ${steps} steps, seed ${seed}`);
const started = performance.now();
let done = 0;
// When the first failure came: shrinking (each try a whole history) stops after --shrink-seconds,
// keeping the smallest failing history found by then.
let failedAt: number | undefined;
const result = await fc.check(
  fc.asyncProperty(historyArbitrary(steps), async (history) => {
    if (failedAt !== undefined && performance.now() - failedAt > shrinkMs) return;
    try {
      await runHistory(history);
    } catch (error) {
      if (failedAt === undefined) {
        failedAt = performance.now();
        console.log(`fuzz: a history failed after ${done} passed; shrinking it (at most ${shrinkMs / 1000} s):\n${String((error as Error).message).split('\n').slice(0, 6).join('\n')}`);
      }
      throw error;
    }
    if (failedAt === undefined && ++done % 25 === 0) console.log(`  ${done} histories passed (${Math.round((performance.now() - started) / 1000)} s)`);
  }),
  { seed, numRuns: runs },
);
const seconds = Math.round((performance.now() - started) / 1000);
if (!result.failed) {
  console.log(`fuzz: ${result.numRuns} histories, every step equal to a cold build (${seconds} s, seed ${seed}).`);
  process.exit(0);
}
const history = result.counterexample?.[0];
const error = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
console.log(`fuzz: FAILED after ${result.numRuns} histories (seed ${seed}, shrunk ${result.numShrinks} times, ${seconds} s):\n`);
console.log(error.split('\n').slice(0, 12).join('\n'));
console.log('\nPaste into test/e2e/differential-regressions.test.ts, named after the bug:\n');
console.log(`  it('<what goes wrong>', async () => {\n    await runHistory(${JSON.stringify(history)});\n  });`);
process.exit(1);
