import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Files that time a build from outside at an instant (a signal or a SIGKILL mid-crawl, while it
// publishes or just after its commit, a second build while the first runs, a lock held by a child
// process): they run one at a time, after the rest, so no other test's load moves their instants.
// Files whose timing is not at stake run with the rest: a trace of the system calls' order
// (e2e/durable), the README's fixed port (e2e/readme, the only test on it).
const TIMED = ['test/e2e/signals.test.ts', 'test/e2e/commit.test.ts', 'test/e2e/faults.test.ts', 'test/publish/lock.test.ts'];

const shared = {
  // End-to-end tests spawn the CLI and a demo portal; give them room on a 2-core CI machine.
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
};

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    globalSetup: ['./test/support/memory-tmpdir.ts'],
    projects: [
      {
        // One file more than cores: an end-to-end file keeps less than a core busy (it waits on
        // the CLI and the portal it starts), so two at a time on 2 cores left about a third of
        // a core idle (the whole suite: 664 s with two, 602 s with three).
        test: { ...shared, name: 'parallel', include: ['test/**/*.test.ts'], exclude: TIMED, maxWorkers: Math.max(3, availableParallelism() + 1), sequence: { groupOrder: 0 } },
      },
      { test: { ...shared, name: 'timed', include: TIMED, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
