// Regression: where hard links are not available (some network and FAT-like file systems), a
// build copies unchanged files instead, and the warning that says so never reached the build's
// output: the build did not pass its warnings on to staging. Here every hard link of a kept file
// (linkSync) fails with EPERM, as it would there; the build lock's own link(2) is left alone.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { buildAt } from '../support/build-at.js';
import { DEMO_WARNINGS } from '../support/cli.js';

vi.mock('node:fs', async (importOriginal) => (await import('../support/no-links.js')).withoutLinkSync(await importOriginal<object>()));

let work: string;
let portal: DemoPortal;
const NOW = Date.parse('2026-03-02T09:00:00Z');

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-no-links-'));
  portal = await startDemoPortal({ now: NOW });
});
afterAll(async () => {
  await portal?.close();
  await rm(work, { recursive: true, force: true });
});

describe('a build where hard links are not available', () => {
  it('regression: the build never said it copied unchanged files; now it warns once, and publishes them', async () => {
    const run = { portal, work, site: join(work, 'site'), cache: join(work, 'cache'), now: NOW };
    const first = await buildAt(run);
    expect(first.summary.warnings).toEqual(DEMO_WARNINGS);
    const before = await readFile(join(run.site, 'index.html'), 'utf8');

    portal.changeEvents(1);
    const second = await buildAt(run);
    const warning = `Hard links are not available beside ${run.site} (EPERM); copying unchanged files and keeping their modification times.`;
    expect(second.summary.warnings).toEqual([warning, ...DEMO_WARNINGS]);
    expect(second.log.split(warning)).toHaveLength(2);
    expect(second.summary.files.unchanged).toBeGreaterThan(0);
    expect(await readFile(join(run.site, 'index.html'), 'utf8')).toBe(before);
  });
});
