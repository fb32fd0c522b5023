// Small file-system helpers shared by staging, verify and swap.

import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';

export interface WalkEntry {
  /** Path relative to the walked root, POSIX separators. */
  rel: string;
  abs: string;
  /** False for symlinks, sockets and the like: never part of a calfeed output. */
  regular: boolean;
}

/** Every non-directory entry under root, depth first. Yields nothing if root does not exist. */
export async function* walkFiles(root: string): AsyncGenerator<WalkEntry> {
  // One readdir per folder and an explicit stack: nested async generators (one per level) cost an
  // await per level per file, which made walking 100,000 files take seconds.
  const stack: Array<{ abs: string; rel: string }> = [{ abs: root, rel: '' }];
  while (stack.length > 0) {
    const { abs, rel } = stack.pop()!;
    let entries;
    try {
      entries = await readdir(abs, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (abs === root && (code === 'ENOENT' || code === 'ENOTDIR')) return;
      throw error;
    }
    for (const entry of entries) {
      const childAbs = path.join(abs, entry.name);
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) stack.push({ abs: childAbs, rel: childRel });
      else yield { rel: childRel, abs: childAbs, regular: entry.isFile() };
    }
  }
}

/** Hex SHA-256 of bytes. */
export function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Raw 32-byte SHA-256 of bytes (a third of the memory of the hex string, for tables). */
export function sha256Digest(data: Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}

/** Error code of a Node file-system error, if any. */
export function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Runs at most `limit` async tasks at once. Keeps 100,000 writes from exhausting file handles. */
export class Limiter {
  private active = 0;
  // A queue with a moving head: Array#shift is O(n), which turns 100,000 queued writes quadratic.
  private waiting: Array<() => void> = [];
  private head = 0;
  constructor(private readonly limit: number) {}

  /** Run fn when a slot is free. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    // A finishing task hands its slot straight to the next waiter, so the count never overshoots.
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await fn();
    } finally {
      this.next();
    }
  }

  private next(): void {
    if (this.head < this.waiting.length) {
      const wake = this.waiting[this.head]!;
      this.head++;
      if (this.head > 1024 && this.head * 2 > this.waiting.length) {
        this.waiting = this.waiting.slice(this.head);
        this.head = 0;
      }
      wake();
    } else {
      this.active--;
    }
  }
}
