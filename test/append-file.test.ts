import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppendFile } from '../src/append-file.js';

describe('AppendFile', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'calfeed-append-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads back lines exactly, across megabyte reads that split multi-byte characters and lines', async () => {
    const file = new AppendFile(path.join(dir, 'log'));
    const lines: string[] = [];
    for (let i = 0; i < 40_000; i++) {
      // Lines of varied length with 2-, 3- and 4-byte characters, so read boundaries fall inside them.
      const line = `${i} ${'ą'.repeat(i % 17)}${'日'.repeat(i % 5)}${'😀'.repeat(i % 3)} ${'x'.repeat((i * 7) % 61)}`;
      lines.push(line);
      file.append(`${line}\n`);
    }
    file.append('last line without a newline');
    expect(file.size).toBe(Buffer.byteLength(lines.join('\n') + '\nlast line without a newline'));
    expect([...file.lines()]).toEqual([...lines, 'last line without a newline']);
    // Twice: reading does not consume.
    expect([...file.lines()].length).toBe(lines.length + 1);
    expect((await readFile(file.file, 'utf8')).split('\n')).toEqual([...lines, 'last line without a newline']);
  });

  it('reads bytes by offset, including bytes still waiting to be written', () => {
    const file = new AppendFile(path.join(dir, 'log'));
    const at = file.size;
    expect(file.append('héllo')).toBe(6);
    expect(file.append(new Uint8Array([1, 2, 3]))).toBe(3);
    expect(file.read(at, 6).toString('utf8')).toBe('héllo');
    expect([...file.read(at + 6, 3)]).toEqual([1, 2, 3]);
    expect(() => file.read(at, 100)).toThrow(/ended early/);
  });

  it('never takes over an existing file, and deletes its own on dispose (twice is fine)', () => {
    const name = path.join(dir, 'log');
    const file = new AppendFile(name);
    expect(() => new AppendFile(name)).toThrow(/EEXIST/);
    file.append('x');
    file.dispose();
    file.dispose();
    expect(existsSync(name)).toBe(false);
    expect(() => file.append('y')).toThrow(/disposed/);
  });
});
