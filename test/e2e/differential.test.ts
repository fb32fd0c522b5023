// Every rebuild publishes what a cold build would: generated portal histories (fast-check), each
// step built incrementally and cold at the same "now", compared byte for byte (see
// test/support/differential/run.ts). A fixed set of seeds runs here; `npm run fuzz` runs more.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { historyArbitrary } from '../support/differential/arbitraries.js';
import { runHistory } from '../support/differential/run.js';

// Seeds and runs fixed, so the suite is repeatable and bounded (about a minute on 2 cores); each
// run is 1 to 5 steps. A failure here is not shrunk (that can take minutes): run
// `npm run fuzz -- --seed S --runs N` with the seed it names to get a small history to paste.
const SEEDS = [1, 2, 3, 4, 5, 6];
const RUNS_PER_SEED = 5;

describe('incremental = cold, over generated portal histories', () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}`, { timeout: 120_000 }, async () => {
      await fc.assert(fc.asyncProperty(historyArbitrary(), (history) => runHistory(history)), { seed, numRuns: RUNS_PER_SEED, endOnFailure: true });
    });
  }
});
