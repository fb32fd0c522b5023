// Issue 4 acceptance: the real CLI against each fault mode of the demo portal. A failed build must
// leave a previously published --out byte-identical (mtimes included) and say what to do.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startDemoPortal, type DemoFault, type DemoPortal } from '../../src/demo/server.js';
import { runCli } from '../support/cli.js';
import { holdingProxy } from '../support/holding-proxy.js';
import { listFiles, snapshotTree } from '../support/tree.js';

const NOW = Date.now();
let work: string;
let out: string;
let good: DemoPortal;
let published: Awaited<ReturnType<typeof snapshotTree>>;
let cacheState: Awaited<ReturnType<typeof snapshotTree>>;

/** Build flags shared by every run here: short timeouts and retries keep failing runs quick. */
function buildArgs(portal: DemoPortal, extra: string[] = []): string[] {
  return ['build', '--base-url', portal.url, '--out', out, '--cache-dir', join(work, 'cache'), '--time-zone', portal.timeZone, '--retry-max-wait', '2', ...extra];
}

async function withPortal<T>(faults: DemoFault, fn: (p: DemoPortal) => Promise<T>, extra: Partial<Parameters<typeof startDemoPortal>[0]> = {}): Promise<T> {
  const portal = await startDemoPortal({ now: NOW, faults, ...extra });
  try {
    return await fn(portal);
  } finally {
    await portal.close();
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-faults-'));
  out = join(work, 'site');
  good = await startDemoPortal({ now: NOW });
  const first = await runCli(buildArgs(good), { env: { CALFEED_TOKEN: good.tokens.university }, cwd: work });
  expect(first.code, first.stderr).toBe(0);
  published = await snapshotTree(out);
});

// Before each test, since a test whose build succeeds rightly saves new state.
beforeEach(async () => {
  cacheState = await snapshotTree(join(work, 'cache'));
});

afterAll(async () => {
  await good?.close();
  await rm(work, { recursive: true, force: true });
});

/** An onSpawn hook that sends the build a signal once the portal has served `count` details: mid-crawl. */
function signalAfterDetails(portal: DemoPortal, count: number, signal: NodeJS.Signals) {
  return (child: ChildProcess): void => {
    const poll = setInterval(() => {
      if (portal.stats().byKind.details >= count) {
        clearInterval(poll);
        child.kill(signal);
      }
    }, 20);
    child.on('close', () => clearInterval(poll));
  };
}

async function expectOutUntouched(): Promise<void> {
  expect(await snapshotTree(out)).toEqual(published);
  // The build state advances only with a publish: same files, same bytes, no temp file left.
  expect(await snapshotTree(join(work, 'cache'))).toEqual(cacheState);
  // No staging folder, journal or lock left beside --out.
  expect((await readdir(work)).sort()).toEqual(['cache', 'site']);
}

describe('fault modes', () => {
  it.each([
    ['down', /500/, /Internal Server Error|HTML|html/],
    ['garbage', /not JSON|JSON/i, /text\/html|<html|<!doctype/i],
    ['unauthorized', /401/, /token.*administrator|administrator.*token/i],
  ] as const)('%s: exits 1 with the specific message and leaves --out as it was', async (fault, message, detail) => {
    await withPortal(fault, async (portal) => {
      const r = await runCli(buildArgs(portal, ['--retries', '1']), { env: { CALFEED_TOKEN: portal.tokens.university }, cwd: work });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toMatch(detail);
      expect(r.stderr).toContain('event-calendars');
      expect(r.stderr).not.toContain(portal.tokens.university);
    });
    await expectOutUntouched();
  });

  it('slow: ends by timeout with a clear message naming the flag', async () => {
    await withPortal('slow', async (portal) => {
      const r = await runCli(buildArgs(portal, ['--headers-timeout', '1', '--retries', '1']), { env: { CALFEED_TOKEN: portal.tokens.university }, cwd: work });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/time(d)? ?out/i);
      expect(r.stderr).toMatch(/--headers-timeout/);
    });
    await expectOutUntouched();
  });

  it('empty: the shrink guard exits 3 and publishes nothing', async () => {
    await withPortal('empty', async (portal) => {
      const r = await runCli(buildArgs(portal), { env: { CALFEED_TOKEN: portal.tokens.university }, cwd: work });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(/Refusing to publish/);
      expect(r.stderr).toMatch(/--allow-shrink/);
    });
    await expectOutUntouched();
  });

  it('flaky: retries and still builds a complete, correct site', async () => {
    const flakyOut = join(work, 'flaky');
    try {
      await withPortal('flaky', async (portal) => {
        const r = await runCli(
          ['build', '--base-url', portal.url, '--out', flakyOut, '--cache-dir', join(work, 'flaky-cache'), '--time-zone', portal.timeZone, '--json'],
          { env: { CALFEED_TOKEN: portal.tokens.university }, cwd: work },
        );
        expect(r.code, r.stderr).toBe(0);
        const summary = JSON.parse(r.stdout);
        expect(summary.requests.retries).toBeGreaterThan(0);
        expect(summary.details.failed).toBe(0);
      });
      // Same data as the clean portal: every mirror file identical.
      const mirrors = (await listFiles(out)).filter((f) => f.startsWith('event-calendar'));
      expect(mirrors.length).toBeGreaterThan(20);
      expect((await listFiles(flakyOut)).filter((f) => f.startsWith('event-calendar'))).toEqual(mirrors);
      for (const f of mirrors) expect((await readFile(join(flakyOut, f))).equals(await readFile(join(out, f))), f).toBe(true);
    } finally {
      await rm(flakyOut, { recursive: true, force: true });
      await rm(join(work, 'flaky-cache'), { recursive: true, force: true });
    }
  });
});

describe('interruptions and concurrency', () => {
  it('a build killed with SIGKILL mid-crawl leaves --out intact, and the next build succeeds and cleans up', async () => {
    await withPortal(
      'none',
      async (portal) => {
        const r = await runCli(buildArgs(portal, ['--allow-shrink']), {
          env: { CALFEED_TOKEN: portal.tokens.university },
          cwd: work,
          onSpawn: signalAfterDetails(portal, 5, 'SIGKILL'),
        });
        expect(r.signal).toBe('SIGKILL');
      },
      { latencyMs: 50 },
    );
    expect(await snapshotTree(out)).toEqual(published);
    const next = await runCli(buildArgs(good), { env: { CALFEED_TOKEN: good.tokens.university }, cwd: work });
    expect(next.code, next.stderr).toBe(0);
    expect((await readdir(work)).sort()).toEqual(['cache', 'site']);
    published = await snapshotTree(out);
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('a build stopped with %s mid-crawl exits %i, says so, leaves --out as it was and nothing beside it', async (signal, status) => {
    await withPortal(
      'none',
      async (portal) => {
        const r = await runCli(buildArgs(portal, ['--allow-shrink', '--json']), {
          env: { CALFEED_TOKEN: portal.tokens.university },
          cwd: work,
          onSpawn: signalAfterDetails(portal, 5, signal),
        });
        expect(r.code, r.stderr).toBe(status);
        expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, published: false, error: { code: 'INTERRUPTED', exitCode: status } });
        expect(r.stderr).toMatch(new RegExp(`${signal} received`));
        expect(r.stderr).toMatch(/interrupted/i);
      },
      { latencyMs: 50 },
    );
    await expectOutUntouched();
  });

  // Regression: the second build was started once the first had asked for two details, and on a
  // busy machine it sometimes started after the first had finished (exit 0, not refused). Now the
  // first build's later details wait at a proxy until the second has been refused.
  it('a second build into the same --out is refused while the first runs', async () => {
    await withPortal('none', async (portal) => {
      const proxy = await holdingProxy(portal.url);
      try {
        const first = runCli(buildArgs({ ...portal, url: proxy.url }), { env: { CALFEED_TOKEN: portal.tokens.university }, cwd: work });
        await vi.waitUntil(() => proxy.held() > 0, { timeout: 30_000, interval: 20 });
        const second = await runCli(buildArgs(portal), { env: { CALFEED_TOKEN: portal.tokens.university }, cwd: work });
        proxy.release();
        const a = await first;
        expect(second.code, second.stderr).toBe(1);
        expect(second.stderr).toMatch(/Another calfeed build is writing/);
        expect(a.code, a.stderr).toBe(0);
      } finally {
        proxy.release();
        await proxy.close();
      }
    });
  });
});
