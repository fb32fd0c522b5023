// Staging's new files are made in a writer thread, so the kernel time of creating them is not the
// main thread's. The main thread keeps every decision (claims, the file table, unchanged files, the
// manifest); the thread only runs WriteJobs (write-job.ts) in order, a batch at a time. It runs
// only from compiled code with a spare core; else jobs run here, via runJob.

import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CalfeedError } from '../errors.js';
import { type BatchReply, DIGEST, type JobBatch, jobFailure, type JobResult, runJob, type WriteJob } from './write-job.js';
import type { WriterThreadData } from './writer-thread.js';

export interface StagingWriter {
  /** Whether jobs run in a thread of their own. */
  readonly threaded: boolean;
  /** Resolves once the file is on disk and checked; rejects with the file system's error. */
  write(job: WriteJob): Promise<JobResult>;
  /** Waits for every job given so far, then stops the thread; a later write starts a new one. */
  stop(): Promise<void>;
}

export interface WriterOptions {
  /** Stops jobs not yet handed to the thread (they reject with the signal's reason). */
  signal?: AbortSignal;
  /** Whether to use a thread; default: when there is a spare core. Without compiled code, never. */
  thread?: boolean;
}

/** A writer for the staging folder `root`; its thread starts with the first write. */
export function createWriter(root: string, options: WriterOptions = {}): StagingWriter {
  const thread = options.thread ?? availableParallelism() > 1;
  // From TypeScript sources (vitest, tsx) there is no compiled writer-thread.js to start.
  if (!thread || !import.meta.url.endsWith('.js')) return inThread(root);
  return new ThreadWriter(fileURLToPath(new URL('./writer-thread.js', import.meta.url)), root, options.signal);
}

let liveThreads = 0;

/** How many writer threads of this process are running (for tests: none may outlive its staging). */
export function writerThreads(): number {
  return liveThreads;
}

function inThread(root: string): StagingWriter {
  return {
    threaded: false,
    write: async (job) => runJob(root, job),
    stop: async () => undefined,
  };
}

// A batch goes when it reaches this many files or bytes; a smaller one at the next turn of the
// event loop if the thread is idle, else when it answers the batch it holds: each message wakes
// the thread, and on a busy machine every wake-up costs both threads their turn on a core.
const BATCH_FILES = 64;
const BATCH_BYTES = 1 << 20;
// Batches the thread holds at once: one being written, one waiting. Further jobs wait here, as
// references to their callers' bytes, so the copies in transit stay a few MB at any scale.
const MAX_IN_FLIGHT = 2;
const YOUNG_MB = 2;

interface Queued {
  job: WriteJob;
  resolve: (result: JobResult) => void;
  reject: (error: unknown) => void;
}

class ThreadWriter implements StagingWriter {
  readonly threaded = true;
  private worker: Worker | undefined;
  private queue: Queued[] = [];
  private queuedBytes = 0;
  private readonly inFlight = new Map<number, Queued[]>();
  private nextId = 0;
  private scheduled = false;
  private failure: Error | undefined;
  private drained: Array<() => void> = [];

  constructor(
    private readonly file: string,
    private readonly root: string,
    private readonly signal: AbortSignal | undefined,
  ) {}

  write(job: WriteJob): Promise<JobResult> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<JobResult>((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.queuedBytes += job.bytes.length;
      if (this.queue.length >= BATCH_FILES || this.queuedBytes >= BATCH_BYTES) this.send();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          if (this.inFlight.size === 0) this.send();
        });
      }
    });
  }

  async stop(): Promise<void> {
    this.send();
    if (!this.idle()) await new Promise<void>((resolve) => this.drained.push(resolve));
    const worker = this.worker;
    // Cleared first: the exit that follows is then known to be ours, not a failure.
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private idle(): boolean {
    return this.queue.length === 0 && this.inFlight.size === 0;
  }

  // Hands queued jobs to the thread, a batch at a time, while it holds fewer than MAX_IN_FLIGHT.
  private send(): void {
    while (this.queue.length > 0 && this.inFlight.size < MAX_IN_FLIGHT) {
      if (this.signal?.aborted) return this.rejectQueued(this.signal.reason);
      let count = 0;
      let bytes = 0;
      while (count < this.queue.length && count < BATCH_FILES && (count === 0 || bytes + this.queue[count]!.job.bytes.length <= BATCH_BYTES)) {
        bytes += this.queue[count]!.job.bytes.length;
        count++;
      }
      const jobs = this.queue.splice(0, count);
      this.queuedBytes -= bytes;
      const batch = packBatch(this.nextId++, jobs, bytes);
      this.worker ??= this.start();
      if (this.inFlight.size === 0) this.worker.ref();
      this.inFlight.set(batch.id, jobs);
      this.worker.postMessage(batch, [batch.data]);
    }
  }

  private start(): Worker {
    // A small young generation: the thread's garbage is a batch's wrappers; a default one costs peak memory.
    const worker = new Worker(this.file, { workerData: { root: this.root } satisfies WriterThreadData, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB } });
    liveThreads++;
    // An idle writer must not keep a finished (or failed) build's process alive.
    worker.unref();
    worker.on('message', (reply: BatchReply) => this.settle(reply));
    worker.on('error', (error) => this.fail(new CalfeedError('BUILD', `The writer thread failed: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => {
      liveThreads--;
      if (this.worker === worker) {
        this.worker = undefined;
        this.fail(new CalfeedError('BUILD', `The writer thread stopped unexpectedly (exit code ${code}).`));
      }
    });
    return worker;
  }

  private settle(reply: BatchReply): void {
    const jobs = this.inFlight.get(reply.id);
    if (!jobs) return;
    this.inFlight.delete(reply.id);
    const errors = new Map(reply.errors);
    const problems = new Map(reply.problems);
    jobs.forEach(({ job, resolve, reject }, i) => {
      const error = errors.get(i);
      if (error) return reject(jobFailure(error));
      const result: JobResult = {};
      const problem = problems.get(i);
      if (problem !== undefined) result.problem = problem;
      if (job.hash) result.hash = Buffer.from(reply.hashes!, i * DIGEST, DIGEST);
      resolve(result);
    });
    this.send();
    if (this.inFlight.size === 0) this.worker?.unref();
    this.wakeIfIdle();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const jobs of this.inFlight.values()) for (const { reject } of jobs) reject(this.failure);
    this.inFlight.clear();
    this.rejectQueued(this.failure);
  }

  private rejectQueued(reason: unknown): void {
    for (const { reject } of this.queue.splice(0)) reject(reason);
    this.queuedBytes = 0;
    this.wakeIfIdle();
  }

  private wakeIfIdle(): void {
    if (this.idle()) for (const resolve of this.drained.splice(0)) resolve();
  }
}

/** Jobs as one message: the bytes of all of them copied end to end into one buffer to transfer. */
function packBatch(id: number, jobs: readonly Queued[], total: number): JobBatch {
  // A fresh buffer, never the caller's: a small Buffer is a view of a shared pool, and the caller
  // may still use its bytes.
  const data = new Uint8Array(total);
  const batch: JobBatch = {
    id,
    dirCounts: new Uint16Array(jobs.length),
    dirs: [],
    relPaths: new Array<string>(jobs.length),
    ends: new Uint32Array(jobs.length),
    hash: new Uint8Array(jobs.length),
    data: data.buffer,
  };
  let at = 0;
  jobs.forEach(({ job }, i) => {
    data.set(job.bytes, at);
    at += job.bytes.length;
    batch.ends[i] = at;
    batch.dirCounts[i] = job.dirs.length;
    for (const dir of job.dirs) batch.dirs.push(dir);
    batch.relPaths[i] = job.relPath;
    batch.hash[i] = job.hash ? 1 : 0;
  });
  return batch;
}
