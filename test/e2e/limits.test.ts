// Issue 7, "sizes are bounded": each count limit fails the build with a message naming its flag and
// leaves a published --out as it was; a long field is cut with a warning naming its flag.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { runCli } from '../support/cli.js';
import { snapshotTree } from '../support/tree.js';
import { inspectHtml } from '../support/untrusted.js';

let portal: DemoPortal;
let work: string;
let out: string;
let published: Awaited<ReturnType<typeof snapshotTree>>;

function build(extra: string[], target = out): ReturnType<typeof runCli> {
  return runCli(['build', '--base-url', portal.url, '--out', target, '--cache-dir', join(work, 'cache'), '--time-zone', portal.timeZone, '--json', ...extra], {
    env: { CALFEED_TOKEN: portal.tokens.university },
    cwd: work,
  });
}

beforeAll(async () => {
  portal = await startDemoPortal({ faults: 'hostile' });
  work = await mkdtemp(join(tmpdir(), 'calfeed-limits-'));
  out = join(work, 'site');
  const first = await build([]);
  expect(first.code, first.stderr).toBe(0);
  published = await snapshotTree(out);
});

afterAll(async () => {
  await portal?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

async function expectOutUntouched(): Promise<void> {
  expect(await snapshotTree(out)).toEqual(published);
  expect((await readdir(work)).sort()).toEqual(['cache', 'site']);
}

describe('count limits', () => {
  it('--max-calendars 1: exits 1 naming the flag and the limit', async () => {
    const r = await build(['--max-calendars', '1']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/event-calendars": more than 1 calendars, the limit set by --max-calendars\. Raise --max-calendars/);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, error: { code: 'LIMIT' } });
    await expectOutUntouched();
  });

  it('--max-events 2: exits 1 naming the flag and the calendar that has more', async () => {
    const r = await build(['--max-events', '2']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/Calendar "[^"]+".*more than 2 events, the limit set by --max-events\. Raise --max-events/);
    await expectOutUntouched();
  });
});

describe('field length', () => {
  it('--max-field-length 100: long titles are cut with a warning naming the flag, and the pages hold the cut title', async () => {
    const cut = join(work, 'cut');
    try {
      const r = await build(['--max-field-length', '100'], cut);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/event "long-title" of calendar "\.\.\/\.\.\/etc\/passwd": title is 102399 characters long; truncated to 100 \(--max-field-length\)/);
      const manifest = JSON.parse(await readFile(join(cut, 'manifest.json'), 'utf8'));
      const slug = (manifest.calendars as Array<{ id: string; slug: string }>).find((c) => c.id === '../../etc/passwd')!.slug;
      const page = inspectHtml(await readFile(join(cut, 'calendars', slug, 'events', 'long-title.html'), 'utf8'), { page: true });
      expect(JSON.parse(page.jsonLd[0]!).name).toBe('Very long title '.repeat(7).slice(0, 100));
      const summary = JSON.parse(r.stdout);
      expect(summary.warnings.some((w: string) => w.includes('(--max-field-length)'))).toBe(true);
    } finally {
      await rm(cut, { recursive: true, force: true });
    }
  });
});
