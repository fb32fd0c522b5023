import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CalfeedError } from '../../src/errors.js';
import { acquireLock } from '../../src/publish/index.js';
import { tempDir } from './helpers.js';

const CHILD = fileURLToPath(new URL('./fixtures/child.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** Start the child fixture in a mode and wait for its first line of output. */
async function startChild(out: string, mode: string): Promise<{ child: ReturnType<typeof spawn>; line: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, out, mode], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (d: Buffer) => {
      buffer += d.toString();
      if (buffer.includes('\n')) resolve(buffer.split('\n')[0]!);
    });
    child.on('exit', (code) => {
      if (!buffer.includes('\n')) reject(new Error(`child exited with ${code} before reporting: ${stderr}`));
    });
  });
  return { child, line };
}

describe('output lock', () => {
  it('refuses a second build while the first holds the lock, then allows it after release', async () => {
    const out = path.join(await tempDir(), 'out');
    const first = await acquireLock(out);
    expect(first.note).toBeUndefined();

    const error = await acquireLock(out).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CalfeedError);
    expect((error as CalfeedError).code).toBe('LOCKED');
    expect((error as Error).message).toContain(`Another calfeed build is writing ${out} (pid ${process.pid}`);
    expect((error as Error).message).toContain(`remove ${first.path} if no build is running`);

    await first.release();
    await first.release(); // twice is harmless
    const second = await acquireLock(out);
    await second.release();
    expect(await readdir(path.dirname(out))).toEqual([]);
  });

  it('holds pid, hostname and start time in a file beside the output folder', async () => {
    const root = await tempDir();
    const lock = await acquireLock(path.join(root, 'out'));
    expect(path.dirname(lock.path)).toBe(root);
    const holder = JSON.parse(await readFile(lock.path, 'utf8')) as Record<string, unknown>;
    expect(holder).toMatchObject({ pid: process.pid, hostname: os.hostname() });
    expect(Date.parse(String(holder.startedAt))).not.toBeNaN();
    await lock.release();
  });

  it('is refused while another live process holds it, and taken over after that process is SIGKILLed', async () => {
    const out = path.join(await tempDir(), 'out');
    const { child, line } = await startChild(out, 'lock-hold');
    expect(line).toBe(`locked ${child.pid}`);

    const refused = await acquireLock(out).catch((e: unknown) => e);
    expect((refused as CalfeedError).code).toBe('LOCKED');
    expect((refused as Error).message).toContain(`pid ${child.pid} since`);

    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;

    const lock = await acquireLock(out);
    expect(lock.note).toContain(`pid ${child.pid}) is no longer running`);
    await lock.release();
  });

  it('takes over a lock left by a build that exited without releasing it', async () => {
    const out = path.join(await tempDir(), 'out');
    const { child } = await startChild(out, 'lock-exit');
    if (child.exitCode === null) await once(child, 'exit');
    const lock = await acquireLock(out);
    expect(lock.note).toMatch(/Took over the stale output lock/);
    await lock.release();
  });

  it('takes over a lock older than the max age, even from another host', async () => {
    const out = path.join(await tempDir(), 'out');
    const first = await acquireLock(out);
    const holder = JSON.parse(await readFile(first.path, 'utf8')) as Record<string, unknown>;
    await writeFile(first.path, JSON.stringify({ ...holder, hostname: 'elsewhere', startedAt: '2020-01-01T00:00:00.000Z' }));

    const lock = await acquireLock(out, { maxAgeMs: 60_000 });
    expect(lock.note).toContain('2020-01-01T00:00:00.000Z');
    await lock.release();
  });

  it('does not take over a young lock from another host (its pid cannot be checked)', async () => {
    const out = path.join(await tempDir(), 'out');
    const first = await acquireLock(out);
    const holder = JSON.parse(await readFile(first.path, 'utf8')) as Record<string, unknown>;
    await writeFile(first.path, JSON.stringify({ ...holder, hostname: 'ci-runner-7', pid: 1, token: 'theirs' }));
    const error = await acquireLock(out).catch((e: unknown) => e);
    expect((error as Error).message).toContain('pid 1 on host ci-runner-7');
    // The original holder's release must not remove a lock that is no longer its own.
    await first.release();
    expect(JSON.parse(await readFile(first.path, 'utf8'))).toMatchObject({ hostname: 'ci-runner-7' });
  });

  it('takes over an unreadable lock file', async () => {
    const root = await tempDir();
    await writeFile(path.join(root, '.out.calfeed-lock'), '');
    const lock = await acquireLock(path.join(root, 'out'));
    expect(lock.note).toContain('unreadable');
    await lock.release();
  });
});
