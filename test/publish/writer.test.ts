// Staging's writer thread (src/publish/writer.ts). A worker needs a .js file, so these tests drive
// the compiled dist/ output, which `npm test` compiles first; the tests that import src/ run the
// same jobs in this thread.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type * as ContentCheckModule from '../../src/publish/content-check.js';
import type * as PublishModule from '../../src/publish/index.js';
import type { StagingOptions } from '../../src/publish/staging.js';
import type * as WriterModule from '../../src/publish/writer.js';
import { CALENDARS, sampleSite, snapshot, tempDir } from './helpers.js';

const dist = (p: string): string => new URL(`../../dist/${p}`, import.meta.url).href;
const { createStaging, discard, publish, writeSiteMeta } = (await import(dist('publish/index.js'))) as typeof PublishModule;
const { writerThreads } = (await import(dist('publish/writer.js'))) as typeof WriterModule;
const { checkOnWrite } = (await import(dist('publish/content-check.js'))) as typeof ContentCheckModule;

// Every staging a test opens, discarded after it even when the test failed half way, so a thread
// one test left running does not count against the next.
const opened: PublishModule.Staging[] = [];
afterEach(async () => {
  for (const staging of opened.splice(0)) await discard(staging);
});

/** A staging whose new files are made in a writer thread (or, with false, in this thread). */
async function openStaging(out: string, options: StagingOptions = {}): Promise<PublishModule.Staging> {
  const staging = await createStaging(out, { writerThread: true, ...options });
  opened.push(staging);
  return staging;
}

const sha256 = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');

/** Publish the sample site into out through a staging with a writer thread. */
async function publishSample(out: string): Promise<void> {
  const staging = await openStaging(out);
  await Promise.all(Object.entries(sampleSite()).map(([rel, data]) => staging.write(rel, data)));
  await writeSiteMeta(staging, CALENDARS, { generator: 'calfeed test' });
  await publish(staging, out);
}

/** The error a promise rejects with. */
async function failureOf(p: Promise<unknown>): Promise<NodeJS.ErrnoException> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: NodeJS.ErrnoException) => error,
  );
}

/** The fields of a file system error a caller (and the CLI's message) sees. */
function facts(error: NodeJS.ErrnoException): object {
  return { isError: error instanceof Error, code: error.code, errno: error.errno, syscall: error.syscall, message: error.message.replace(/calfeed-staging-[^/]+/, 'S') };
}

describe('staging writer thread (compiled)', () => {
  it.each([
    ['ENOTDIR: a file where a folder must be made', 'cal', 'cal/events/e1.json', 'mkdir'],
    ['ENOTDIR: a file where the new file\'s folder should be', 'cal', 'cal/e1.json', 'open'],
    ['EEXIST: a file already where the new one goes', 'x.json', 'x.json', 'open'],
  ])('%s: write() rejects with the error the main thread would have had', async (_name, stray, rel, syscall) => {
    const root = await tempDir();
    const seen: object[] = [];
    for (const writerThread of [true, false]) {
      const staging = await openStaging(path.join(root, 'out'), { writerThread });
      await writeFile(path.join(staging.dir, stray), 'stray');
      seen.push(facts(await failureOf(staging.write(rel, '{"id":"e1"}'))));
      await discard(staging);
    }
    expect(seen[0]).toMatchObject({ isError: true, code: rel === stray ? 'EEXIST' : 'ENOTDIR', syscall });
    expect(seen[0]).toEqual(seen[1]);
  });

  it('a failed write fails the build cleanly: --out stays as published, the staging folder and its thread are gone', async () => {
    const root = await tempDir();
    const out = path.join(root, 'out');
    await publishSample(out);
    const before = await snapshot(out);

    const staging = await openStaging(out);
    await writeFile(path.join(staging.dir, 'calendars'), 'stray');
    const writes = Object.entries(sampleSite()).map(([rel, data]) => staging.write(rel, data + ' changed'));
    const results = await Promise.allSettled(writes);
    const failed = results.filter((r) => r.status === 'rejected');
    expect(failed.length).toBeGreaterThan(0);
    expect((failed[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'ENOTDIR' });
    expect(writerThreads()).toBe(1);
    await discard(staging);

    expect(writerThreads()).toBe(0);
    expect(await snapshot(out)).toEqual(before);
    expect(await readdir(root)).toEqual(['out']);
  });

  it('a content problem found on the writer thread is recorded as checkOnWrite words it, and publish refuses the staging', async () => {
    const root = await tempDir();
    const out = path.join(root, 'out');
    const staging = await openStaging(out);
    const site = sampleSite();
    const broken = Object.keys(site).find((rel) => rel.endsWith('/feed.json') || rel.endsWith('feed.json'))!;
    site[broken] = '{"version": "https://jsonfeed.org/version/1.1", "items": [';
    await Promise.all(Object.entries(site).map(([rel, data]) => staging.write(rel, data)));
    const problem = checkOnWrite(broken, Buffer.from(site[broken]!));
    expect(problem).toMatch(/not valid JSON/);
    const table = staging.files() as unknown as { problems(): IterableIterator<[string, string]> };
    expect([...table.problems()]).toEqual([[broken, problem]]);
    await writeSiteMeta(staging, CALENDARS, { generator: 'calfeed test' });
    await expect(publish(staging, out)).rejects.toThrow(problem!);
    await discard(staging);
    expect(writerThreads()).toBe(0);
  });

  it('many concurrent writes in many folders make exactly the files and bytes written, and publish stops the thread', async () => {
    const root = await tempDir();
    const out = path.join(root, 'out');
    const staging = await openStaging(out);
    // Views of shared memory must be copied, not sent whole: a slice of one big buffer, and small
    // Buffers from Node's pool.
    const shared = Buffer.alloc(1 << 16, 'abcdefgh');
    const expected = new Map<string, string>();
    const writes: Array<Promise<void>> = [];
    for (let c = 0; c < 8; c++) {
      for (let e = 0; e < 150; e++) {
        const folder = `calendars/c${c}/events/e${e}`;
        const json = JSON.stringify({ c, e, title: `Talk ${e} ĄČ 🌳` });
        const page = `<!doctype html><title>${c}-${e}</title>`;
        const view = shared.subarray(e, e + 1 + ((c * 7919 + e) % 5000));
        for (const [rel, data] of [
          [`${folder}/details.json`, json],
          [`${folder}/index.html`, Buffer.from(page)],
          [`${folder}/raw.bin`, view],
        ] as const) {
          expected.set(rel, sha256(data));
          writes.push(staging.write(rel, data));
        }
      }
      // A streamed file (made in this thread) into a folder the writer thread is making meanwhile,
      // and a file of several MB (a batch of its own).
      const ics = `calendars/c${c}/calendar.ics`;
      const lines = Array.from({ length: 3000 }, (_, i) => `BEGIN:VEVENT\r\nUID:${c}-${i}@test\r\nSUMMARY:Talk ${i}\r\nEND:VEVENT\r\n`);
      const chunks = ['BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//calfeed//test//EN\r\n', ...lines, 'END:VCALENDAR\r\n'];
      expected.set(ics, sha256(chunks.join('')));
      writes.push(staging.writeChunks(ics, chunks));
      const big = `calendars/c${c}/big.json`;
      const bigText = JSON.stringify({ pad: 'x'.repeat((1 << 20) + c * 1000) });
      expected.set(big, sha256(bigText));
      writes.push(staging.write(big, bigText));
    }
    await Promise.all(writes);
    expect(writerThreads()).toBe(1);

    const table = staging.files();
    expect(table.size).toBe(expected.size);
    for (const [rel, hash] of expected) expect([rel, table.get(rel)!.sha256]).toEqual([rel, hash]);
    await writeSiteMeta(staging, [], { generator: 'calfeed test' });
    await publish(staging, out);
    expect(writerThreads()).toBe(0);

    const onDisk = await snapshot(out);
    for (const [rel, hash] of expected) expect([rel, onDisk.get(rel)?.sha256]).toEqual([rel, hash]);
    expect([...onDisk.keys()].filter((rel) => !expected.has(rel)).sort()).toEqual(['_headers', 'manifest.json']);
  });

  it('a write after an abort is refused, writes not yet handed to the thread reject with the reason, and discard stops the thread', async () => {
    const root = await tempDir();
    const controller = new AbortController();
    const staging = await openStaging(path.join(root, 'out'), { signal: controller.signal });
    await staging.write('first.json', '{}');
    const writes = Array.from({ length: 200 }, (_, i) => staging.write(`f/${i}.json`, `{"i":${i}}`));
    controller.abort(new Error('stop now'));
    const results = await Promise.allSettled(writes);
    const reasons = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.message);
    // The first full batch left before the abort; the rest never reach the disk.
    expect(reasons.length).toBeGreaterThan(0);
    expect(new Set(reasons)).toEqual(new Set(['stop now']));
    await expect(staging.write('later.json', '{}')).rejects.toThrow('stop now');
    const made = (await readdir(path.join(staging.dir, 'f'))).length;
    expect(made).toBe(results.length - reasons.length);
    await discard(staging);
    expect(writerThreads()).toBe(0);
  });

  it('an idle writer thread does not keep the process alive', async () => {
    const root = await tempDir();
    // A staging left open (neither published nor discarded) after its writes: the process still ends.
    const script = `
      const { createStaging } = await import(${JSON.stringify(dist('publish/index.js'))});
      const { writerThreads } = await import(${JSON.stringify(dist('publish/writer.js'))});
      const staging = await createStaging(${JSON.stringify(path.join(root, 'out'))}, { writerThread: true });
      await staging.write('a/b.json', '{}');
      console.log('threads', writerThreads());
    `;
    // A file, not `-e`: a worker refuses the --input-type flag it would inherit.
    const file = path.join(root, 'idle.mjs');
    await writeFile(file, script);
    const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) => {
      execFile(process.execPath, [file], { timeout: 20_000 }, (error, stdout) => (error ? reject(error) : resolve({ stdout })));
    });
    expect(stdout.trim()).toBe('threads 1');
    const staged = (await readdir(root)).find((name) => name.includes('staging'))!;
    expect(staged).toBeDefined();
    expect(await readFile(path.join(root, staged, 'a', 'b.json'), 'utf8')).toBe('{}');
  });
});
