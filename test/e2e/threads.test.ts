// --threads: whether files are written in a thread of their own; 0 does everything in the main
// thread. The build says what it used (--verbose), the output
// is the same bytes either way, and a change of --threads alone is no reason to build again.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { snapshotTree } from '../support/tree.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-threads-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const build = (name: string, ...extra: string[]) =>
  runCli(['build', '--out', join(work, name, 'site'), '--cache-dir', join(work, name, 'cache'), '--verbose', '--json', ...extra], { cwd: work });
const hashes = async (name: string): Promise<Array<[string, string]>> =>
  [...(await snapshotTree(join(work, name, 'site')))].map(([path, { sha256 }]): [string, string] => [path, sha256]).sort();

describe('--threads', () => {
  it('0 writes files in the main thread, to the same bytes; changing it alone leaves the output up to date', async () => {
    const single = await build('single', '--threads', '0');
    expect(single.code, single.stderr).toBe(0);
    expect(single.stderr).toContain('threads: none writing files beside this one (--threads)');

    const threaded = await build('threaded', '--threads', '2');
    expect(threaded.code, threaded.stderr).toBe(0);
    expect(threaded.stderr).toContain('threads: one writing files beside this one (--threads)');
    expect(await hashes('threaded')).toEqual(await hashes('single'));

    const again = await build('single', '--threads', '2');
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ upToDate: true, published: false });
  });

  it('a value that is not a whole number of at least 0 is a configuration error naming the flag', async () => {
    const r = await build('bad', '--threads', '-1');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--threads/);
  });
});
