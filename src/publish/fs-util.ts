// Small file-system helpers shared by staging, verify and swap.

import { createHash } from 'node:crypto';
import { type Dirent, readdir as readdirCb, readdirSync, rmdir as rmdirCb, unlink as unlinkCb } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';

export interface WalkEntry {
  /** Path relative to the walked root, POSIX separators. */
  rel: string;
  abs: string;
  /** False for symlinks, sockets and the like: never part of a calfeed output. */
  regular: boolean;
}

/**
 * Every non-directory entry under root, depth first. Yields nothing if root does not exist. A
 * folder's listing is read whole and synchronously (a promise per folder, or a Dir read an entry
 * at a time, cost about three times as much at 10,000 folders); the event loop gets a turn every
 * 4096 files.
 */
export async function* walkFiles(root: string): AsyncGenerator<WalkEntry> {
  // An explicit stack of folders still to read: nested async generators (one per level) cost an
  // await per level per file.
  const stack: string[] = [''];
  let files = 0;
  while (stack.length > 0) {
    const rel = stack.pop()!;
    const abs = rel === '' ? root : path.join(root, rel);
    let entries: Dirent[];
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (rel === '' && (code === 'ENOENT' || code === 'ENOTDIR')) return;
      throw error;
    }
    for (const entry of entries) {
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        stack.push(childRel);
        continue;
      }
      yield { rel: childRel, abs: path.join(abs, entry.name), regular: entry.isFile() };
      if (++files % 4096 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
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

/**
 * Runs fn on each item, `limit` at a time, pulling items as it goes (no list of promises); stops
 * taking new items after the first failure, which it throws once the others settle.
 */
export async function eachAtOnce<T>(items: Iterable<T> | AsyncIterable<T>, limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const it = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    for (let next = await it.next(); !next.done && failure === undefined; next = await it.next()) {
      try {
        await fn(next.value);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  if (failure !== undefined) throw failure.error;
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

/**
 * rm -rf for a tree of plain files and folders, with fewer system calls than fs.rm (entry types
 * come with each listing; one rmdir per folder). Up to `limit` calls at once in the thread pool,
 * since each may wait for the journal. Files go before more folders are listed, and a folder as
 * soon as it is empty, so only the folders being emptied are held. A missing root is no error.
 */
export function removeTree(root: string, limit = 16): Promise<void> {
  return new Promise<void>((resolve, reject) => new TreeRemoval(root, limit, resolve, reject).pump());
}

/** A folder being emptied: its entries not yet removed (+1 while it is being listed). */
interface Folder {
  path: string;
  parent: Folder | undefined;
  left: number;
}

class TreeRemoval {
  private readonly files: Array<{ path: string; folder: Folder | undefined }> = [];
  private readonly toList: Folder[];
  private readonly toRemove: Folder[] = [];
  private running = 0;
  private failed = false;

  constructor(
    private readonly root: string,
    private readonly limit: number,
    private readonly resolve: () => void,
    private readonly reject: (error: Error) => void,
  ) {
    this.toList = [{ path: root, parent: undefined, left: 1 }];
  }

  pump(): void {
    while (!this.failed && this.running < this.limit) {
      const empty = this.toRemove.pop();
      if (empty !== undefined) {
        this.remove(rmdirCb, empty.path, empty.parent);
        continue;
      }
      const file = this.files.pop();
      if (file !== undefined) {
        this.remove(unlinkCb, file.path, file.folder);
        continue;
      }
      const folder = this.toList.pop();
      if (folder === undefined) return;
      this.list(folder);
    }
  }

  // Removes a file or an empty folder, one of the entries of `parent`.
  private remove(call: typeof unlinkCb, entry: string, parent: Folder | undefined): void {
    this.running++;
    call(entry, (error) => {
      if (!this.settled(error)) return;
      this.entryGone(parent);
      this.pump();
    });
  }

  private list(folder: Folder): void {
    this.running++;
    readdirCb(folder.path, { withFileTypes: true }, (error, entries) => {
      if (error?.code === 'ENOTDIR' && folder.parent === undefined) {
        // The root is a file.
        this.running--;
        this.files.push({ path: this.root, folder: undefined });
        return this.pump();
      }
      if (!this.settled(error)) return;
      if (error) {
        this.entryGone(folder.parent); // ENOENT: already gone
      } else {
        folder.left += entries.length;
        for (const entry of entries) {
          const abs = path.join(folder.path, entry.name);
          if (entry.isDirectory()) this.toList.push({ path: abs, parent: folder, left: 1 });
          else this.files.push({ path: abs, folder });
        }
        this.entryGone(folder); // the listing itself is done
      }
      this.pump();
    });
  }

  private settled(error: NodeJS.ErrnoException | null): boolean {
    this.running--;
    if (error && error.code !== 'ENOENT' && !this.failed) {
      this.failed = true;
      this.reject(error);
    }
    return !this.failed;
  }

  // One entry of `folder` is gone; an empty folder is removed next.
  private entryGone(folder: Folder | undefined): void {
    if (folder === undefined) this.resolve();
    else if (--folder.left === 0) this.toRemove.push(folder);
  }
}

/** The first `bytes` bytes of a file as UTF-8 text; undefined when it cannot be read. */
export async function readHead(file: string, bytes: number): Promise<string | undefined> {
  try {
    const handle = await open(file, 'r');
    try {
      const buffer = Buffer.alloc(bytes);
      const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
      return buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}
