// asIoError on real file-system errors (made by real calls, not built by hand): what it translates,
// through which wrappers, and what it leaves to the error's own message.
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CalfeedError } from '../src/errors.js';
import { asIoError, withPath } from '../src/io-error.js';
import { commitFailed } from '../src/publish/generations.js';

const work = mkdtempSync(join(tmpdir(), 'calfeed-io-error-'));
const file = join(work, 'a-file');
writeFileSync(file, 'x');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The error a real mkdir below a regular file throws: ENOTDIR, with syscall and path. */
function notDir(): NodeJS.ErrnoException {
  try {
    mkdirSync(join(file, 'cache'));
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
  throw new Error('mkdir below a file succeeded');
}

describe('asIoError', () => {
  it('translates an errno error: the operation, the path, why, what to do, and the flag whose folder it is', () => {
    const error = asIoError(notDir(), { folders: [{ flag: '--cache-dir', dir: join(file, 'cache') }], outcome: 'Nothing was published.' });
    expect(error).toBeInstanceOf(CalfeedError);
    expect(error!.code).toBe('IO');
    expect(error!.message).toBe(
      `Could not create the folder ${file}/cache: a part of the path is a file, not a folder. Move that file away, or choose another --cache-dir, then run calfeed again. Nothing was published.`,
    );
  });

  it('looks through the cause chain of a plain error and of a calfeed BUILD error (a failed commit step)', () => {
    const wrapped = new Error('reading the cache failed', { cause: notDir() });
    expect(asIoError(wrapped)?.message).toMatch(/^Could not create the folder .*: a part of the path is a file/);
    const commit = commitFailed('Could not move output aside to replace it', notDir());
    expect(asIoError(commit)?.code).toBe('IO');
  });

  it('leaves other calfeed errors, errors of other codes, and errors that are not errno errors as they are', () => {
    expect(asIoError(new CalfeedError('INTERRUPTED', 'stopped', { cause: notDir() }))).toBeUndefined();
    expect(asIoError(new CalfeedError('BUILD', 'wrapped', { cause: new CalfeedError('LOCKED', 'held', { cause: notDir() }) }))).toBeUndefined();
    let missing: unknown;
    try {
      mkdirSync(join(work, 'no', 'such'));
    } catch (error) {
      missing = error;
    }
    expect((missing as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(asIoError(missing)).toBeUndefined();
    expect(asIoError(new TypeError('x is undefined'))).toBeUndefined();
    expect(asIoError('a string')).toBeUndefined();
  });

  it('withPath names the file of a failed write on an open file (Node names none), and keeps a path already there', () => {
    // /dev/full: every write fails with ENOSPC, as on a full disk.
    const fd = openSync('/dev/full', 'w');
    let full: unknown;
    try {
      writeSync(fd, 'x');
    } catch (error) {
      full = error;
    } finally {
      closeSync(fd);
    }
    expect(full).toMatchObject({ code: 'ENOSPC', syscall: 'write' });
    expect((full as NodeJS.ErrnoException).path).toBeUndefined();
    expect(asIoError(withPath(full, '/srv/out/x.json'))?.message).toMatch(/^Could not write \/srv\/out\/x\.json: no space left on the device\. Free some space on the file system of \/srv\/out, then/);
    const named = notDir();
    expect((withPath(named, '/elsewhere') as NodeJS.ErrnoException).path).toBe(`${file}/cache`);
  });
});
