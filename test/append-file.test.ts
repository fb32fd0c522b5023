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

  it('stores exactly the bytes Buffer.from gives, across block boundaries and for appends bigger than a block', async () => {
    const file = new AppendFile(path.join(dir, 'log'));
    const expected: Buffer[] = [];
    const pieces = [
      'x'.repeat((1 << 20) - 3),
      'ą日😀', // straddles the first megabyte
      'lone \ud800 and \udc00 surrogates',
      new Uint8Array([0, 255, 10]),
      'big '.repeat(300_000) + '😀', // more than a block on its own
      'after',
      new Uint8Array(1 << 20), // exactly a block
      'end',
    ];
    for (const piece of pieces) {
      const bytes = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : Buffer.from(piece);
      const at = file.size;
      expect(file.append(piece)).toBe(bytes.length);
      expect(file.size).toBe(at + bytes.length);
      expected.push(bytes);
    }
    const all = Buffer.concat(expected);
    expect(file.read(0, all.length).equals(all)).toBe(true);
    expect((await readFile(file.file)).equals(all)).toBe(true);
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
