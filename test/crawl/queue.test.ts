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
  it('starts work at a later turn of the event loop while there is room, then makes hand() wait for a place', async () => {
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
    await tick();
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
    await tick(); // the first has started
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

  // Responses that come in while events are processed must be read in between, not after every
  // piece handed on so far: a timer due meanwhile (as a socket read would be) runs before the last.
  it('lets the event loop turn between slices of pieces, so what came in meanwhile is not kept waiting', async () => {
    const handoff = new Handoff(8, () => undefined);
    const order: string[] = [];
    const busy = (ms: number): void => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    for (let i = 0; i < 4; i++) {
      await handoff.hand(async () => {
        // Set once the slice runs: set before, it may fall due before the slice's turn comes.
        if (i === 0) setTimeout(() => order.push('timer'), 1);
        busy(3);
        order.push(`work ${i}`);
      });
    }
    await handoff.drain();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(order.indexOf('timer')).toBeGreaterThan(0);
    expect(order.indexOf('timer')).toBeLessThan(order.indexOf('work 3'));
  });

  it('takes a work function that throws at once as its failure, and still settles the rest', async () => {
    const failures: unknown[] = [];
    const handoff = new Handoff(4, (error) => failures.push(error));
    await handoff.hand(() => {
      throw new Error('thrown, not rejected');
    });
    await handoff.hand(async () => undefined);
    await expect(handoff.drain()).rejects.toThrow('thrown, not rejected');
    expect(failures).toHaveLength(1);
  });

  // The crawl's worker goes on to its next request as soon as hand() resolves: that request must go
  // out before the work (normalizing and rendering an event) takes the thread.
  it('resolves before the work starts, so the caller runs first', async () => {
    const handoff = new Handoff(4, () => undefined);
    const order: string[] = [];
    await handoff.hand(async () => {
      order.push('work');
    });
    order.push('caller');
    await handoff.drain();
    expect(order).toEqual(['caller', 'work']);
  });

  it('does not start work taken before the first error', async () => {
    const failures: unknown[] = [];
    const handoff = new Handoff(4, (error) => failures.push(error));
    let ran = false;
    await handoff.hand(() => Promise.reject(new Error('disk full')));
    await tick();
    await handoff.hand(async () => undefined);
    expect(failures).toHaveLength(1);
    await expect(handoff.drain()).rejects.toThrow('disk full');
    const late = new Handoff(4, (error) => failures.push(error));
    await late.hand(() => Promise.reject(new Error('first')));
    await late.hand(async () => {
      ran = true;
    });
    await expect(late.drain()).rejects.toThrow('first');
    expect(ran).toBe(false);
  });

  // undici lets a turn pass before it sends a connection's next request; a slice queued for that
  // turn came first, and each request waited the slice's length (docs/performance.md).
  it('regression: the next request waited behind a slice of pieces: a slice lets requests about to be sent go first', async () => {
    let sending = true;
    const handoff = new Handoff(4, () => undefined, () => sending);
    const order: string[] = [];
    await handoff.hand(async () => {
      order.push('work');
    });
    // The request's next step, queued after the slice, as undici's is after a response.
    setImmediate(() => {
      order.push('request written');
      sending = false;
    });
    await handoff.drain();
    expect(order).toEqual(['request written', 'work']);
  });

  it('waits for requests to go out only a turn or two, so one slow to connect does not hold the work back', async () => {
    const handoff = new Handoff(4, () => undefined, () => true);
    let turns = 0;
    let counting = true;
    const count = (): void => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    let ran = false;
    await handoff.hand(async () => {
      ran = true;
    });
    await handoff.drain();
    counting = false;
    expect(ran).toBe(true);
    expect(turns).toBeLessThanOrEqual(4);
  });

  it('drains at once when nothing was handed on', async () => {
    await expect(new Handoff(4, () => undefined).drain()).resolves.toBeUndefined();
  });
});
