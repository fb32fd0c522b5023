import { describe, expect, it } from 'vitest';
import { Handoff } from '../../src/crawl/queue.js';

/** A promise with its resolve and reject taken out. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void } {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('Handoff', () => {
  it('starts work at once while there is room, then makes hand() wait for a place', async () => {
    const failures: unknown[] = [];
    const handoff = new Handoff(2, (error) => failures.push(error));
    const gates = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    await handoff.hand(async () => {
      started.push(0);
      await gates[0]!.promise;
    });
    await handoff.hand(async () => {
      started.push(1);
      await gates[1]!.promise;
    });
    let third = false;
    const handing = handoff.hand(async () => {
      started.push(2);
      await gates[2]!.promise;
    }).then(() => (third = true));
    await tick();
    expect(started).toEqual([0, 1]);
    expect(third).toBe(false);

    gates[1]!.resolve();
    await handing;
    expect(started).toEqual([0, 1, 2]);

    let drained = false;
    const draining = handoff.drain().then(() => (drained = true));
    gates[0]!.resolve();
    await tick();
    expect(drained).toBe(false); // the third is still running
    gates[2]!.resolve();
    await draining;
    expect(failures).toEqual([]);
  });

  it('keeps the first error, tells the owner once, starts nothing more, and throws it from drain()', async () => {
    const failures: unknown[] = [];
    const handoff = new Handoff(1, (error) => failures.push(error));
    const first = deferred();
    await handoff.hand(() => first.promise);
    let ran = false;
    const waiting = handoff.hand(async () => {
      ran = true;
    });
    first.reject(new Error('disk full'));
    await waiting;
    await handoff.hand(async () => {
      ran = true;
    });
    await expect(handoff.drain()).rejects.toThrow('disk full');
    expect(ran).toBe(false);
    expect(failures).toHaveLength(1);
    expect((failures[0] as Error).message).toBe('disk full');
  });

  it('drains at once when nothing was handed on', async () => {
    await expect(new Handoff(4, () => undefined).drain()).resolves.toBeUndefined();
  });
});
