// A bounded work queue: N workers pull tasks from lazy sources, so details never all exist as
// pending promises. Lane 'first' (a calendar's details) is drained before 'later' (the next event
// lists), so a calendar's list entries are released soon after it is listed.

export type Task = () => Promise<void>;

/** Runs tasks from lazy sources with at most `workers` running at once; the first error stops it. */
export class WorkQueue {
  private readonly first: Array<Iterator<Task>> = [];
  private readonly later: Array<Iterator<Task>> = [];
  private running = 0;
  private failure: { error: unknown } | undefined;
  private wake: (() => void) | undefined;
  private wakeUp: Promise<void> = this.rearm();

  constructor(
    private readonly workers: number,
    /** Called once, with the first error, so the owner can abort tasks in flight. */
    private readonly onFailure: (error: unknown) => void,
  ) {}

  /** Adds a lazy source of tasks to a lane. */
  add(tasks: Iterable<Task>, lane: 'first' | 'later'): void {
    (lane === 'first' ? this.first : this.later).push(tasks[Symbol.iterator]());
    this.notify();
  }

  /** Runs until every source is drained and every task has finished; rejects with the first error. */
  async run(): Promise<void> {
    await Promise.all(Array.from({ length: Math.max(1, this.workers) }, () => this.worker()));
    if (this.failure) throw this.failure.error;
  }

  /** Records a failure from outside a task (an abort signal). */
  fail(error: unknown): void {
    if (this.failure) return;
    this.failure = { error };
    this.onFailure(error);
    this.notify();
  }

  private async worker(): Promise<void> {
    for (;;) {
      if (this.failure) return;
      const task = this.take();
      if (!task) {
        if (this.running === 0) {
          this.notify(); // let the other idle workers see that everything is done
          return;
        }
        await this.wakeUp;
        continue;
      }
      this.running++;
      try {
        await task();
      } catch (error) {
        this.fail(error);
      } finally {
        this.running--;
        this.notify();
      }
    }
  }

  private take(): Task | undefined {
    for (const lane of [this.first, this.later]) {
      while (lane.length > 0) {
        const next = lane[0]!.next();
        if (!next.done) return next.value;
        lane.shift();
      }
    }
    return undefined;
  }

  private notify(): void {
    const wake = this.wake;
    this.wakeUp = this.rearm();
    wake?.();
  }

  private rearm(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = resolve;
    });
  }
}

/** How long one turn of the event loop starts handed-on pieces for, in ms, before it lets I/O in. */
const SLICE_MS = 5;
/** Turns a slice waits at most for requests about to be sent: undici takes up to two (http/unsent.ts). */
const MAX_YIELDS = 2;

/**
 * Work a task hands on, so its worker (a connection) can go on to the next request: at most `limit`
 * pieces run at once and hand() waits while that many run, so bodies never pile up. The first
 * error is kept (later pieces are not started) and thrown by drain().
 */
export class Handoff {
  private running = 0;
  private failure: { error: unknown } | undefined;
  private readonly freed: Array<() => void> = [];
  private readonly settled: Array<() => void> = [];
  private readonly ready: Array<() => Promise<void>> = [];
  private yields = 0;

  constructor(
    private readonly limit: number,
    /** Called once, with the first error, so the owner can stop handing work on. */
    private readonly onFailure: (error: unknown) => void,
    /** Whether requests are about to be sent: a slice then waits a turn (at most MAX_YIELDS) so they go first. */
    private readonly sending: () => boolean = () => false,
  ) {}

  /**
   * Takes `work` once a place is free and starts it at a later turn of the event loop, SLICE_MS of
   * pieces a turn; resolves when it is taken, not when it is done. The caller's worker sends its next
   * request first, so the portal's latency overlaps this work instead of following it.
   */
  async hand(work: () => Promise<void>): Promise<void> {
    while (this.running >= this.limit) await new Promise<void>((resolve) => this.freed.push(resolve));
    if (this.failure) return;
    this.running++;
    this.ready.push(work);
    if (this.ready.length === 1) setImmediate(this.startNext);
  }

  // Pieces for up to SLICE_MS a turn: the responses that came in meanwhile are read (and the next
  // requests sent) between slices, not after every piece waiting. A turn per piece cost CPU without
  // latency (docs/performance.md). A slice waits while requests are about to be sent: undici's next
  // step for them is queued for the same turn and would otherwise come after the slice. Within a
  // slice each piece starts as a microtask after the one before, so a piece that failed at once is
  // known before another starts.
  private readonly startNext = (): void => {
    if (this.yields < MAX_YIELDS && this.sending()) {
      this.yields++;
      setImmediate(this.startNext);
      return;
    }
    this.yields = 0;
    const until = performance.now() + SLICE_MS;
    const next = (): void => {
      this.start(this.ready.shift()!);
      if (this.ready.length === 0) return;
      if (performance.now() < until) queueMicrotask(next);
      else setImmediate(this.startNext);
    };
    next();
  };

  private start(work: () => Promise<void>): void {
    if (this.failure) return this.done();
    let running: Promise<void>;
    try {
      running = work();
    } catch (error) {
      // A work function that throws rather than rejects must not stop the pieces after it.
      running = Promise.reject(error);
    }
    running.then(
      () => this.done(),
      (error: unknown) => {
        if (!this.failure) {
          this.failure = { error };
          this.onFailure(error);
        }
        this.done();
      },
    );
  }

  /** Waits until every piece handed on has finished; rejects with the first error. */
  async drain(): Promise<void> {
    while (this.running > 0) await new Promise<void>((resolve) => this.settled.push(resolve));
    if (this.failure) throw this.failure.error;
  }

  private done(): void {
    this.running--;
    this.freed.shift()?.();
    if (this.running === 0) for (const resolve of this.settled.splice(0)) resolve();
  }
}

/**
 * Parts of one piece of work (a calendar's events): settled once per part and once by whoever made
 * the group (so a group of none settles too), it calls `done` when the last settles: exactly once.
 */
export class TaskGroup {
  private left: number;

  constructor(
    parts: number,
    private readonly done: () => Promise<void>,
  ) {
    this.left = parts + 1;
  }

  async settle(): Promise<void> {
    if (--this.left === 0) await this.done();
  }
}
