// Politeness towards the portal: a gate that bounds requests in flight, and a pacer that bounds
// requests per second. Both hand out slots in arrival order so no request starves.

import { interrupted } from '../errors.js';

/** At most `limit` holders at once; waiters are served first come, first served. */
export class Gate {
  private active = 0;
  private readonly waiters: Array<() => void> = [];
  private peak = 0;
  constructor(private readonly limit: number) {}

  /** Waits for a slot; call the returned function exactly once to give it back. */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) throw interrupted();
    if (this.active >= this.limit) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = (): void => {
          const i = this.waiters.indexOf(wake);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(interrupted());
        };
        const wake = (): void => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        this.waiters.push(wake);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    } else {
      this.active++;
    }
    this.peak = Math.max(this.peak, this.active);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      // Hand the slot straight to the next waiter, so `active` never dips and lets a newcomer jump the queue.
      if (next) next();
      else this.active--;
    };
  }

  /** Most holders seen at once (for tests and stats). */
  get maxActive(): number {
    return this.peak;
  }
}

/** Spaces requests at least 1/rate seconds apart: each caller reserves the next free instant. */
export class Pacer {
  private nextAt = 0;
  private readonly intervalMs: number;
  constructor(
    perSecond: number,
    private readonly now: () => number,
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  ) {
    this.intervalMs = 1000 / perSecond;
  }

  /** Waits until this caller may send its request. */
  async take(signal?: AbortSignal): Promise<void> {
    const now = this.now();
    const at = Math.max(now, this.nextAt);
    this.nextAt = at + this.intervalMs;
    if (at > now) {
      try {
        await this.sleep(at - now, signal);
      } catch (error) {
        if (signal?.aborted) throw interrupted();
        throw error;
      }
    }
  }
}
