import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SkippedEvents } from '../../src/pipeline/skipped.js';
import { createLogger } from '../../src/log.js';

function setup(): { skipped: SkippedEvents; out: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  return { skipped: new SkippedEvents(createLogger({ stream, quiet: false, secrets: [] })), out: () => text };
}

describe('SkippedEvents', () => {
  it('holds warnings back until an event is read, then gives them all, and later ones at once', () => {
    const { skipped, out } = setup();
    skipped.skip('NO_START', ['e1: no start']);
    expect(out()).toBe('');
    skipped.read();
    skipped.skip('BAD_TIME', ['e3: bad time']);
    expect(out()).toBe('warning: e1: no start\nwarning: e3: bad time\n');
    expect(() => skipped.check(10, ['e1: no start', 'e3: bad time'], 0.5, undefined)).not.toThrow();
  });

  it('names the mapped start field when it is in no event', () => {
    const { skipped, out } = setup();
    skipped.skip('NO_START', ['e1: the mapped start field "kickoff" is missing; skipped']);
    expect(() => skipped.check(1, ['e1: the mapped start field "kickoff" is missing; skipped'], 0.05, 'kickoff')).toThrow(
      'the mapped start field "kickoff" is in no event: fix fields.event.start in calfeed.config.json (run calfeed inspect). Nothing was published.',
    );
    expect(out()).toBe('warning: the only event skipped: e1: the mapped start field "kickoff" is missing; skipped\n');
  });

  it('when no event can be read for different reasons, gives each warning and says none could be read', () => {
    const { skipped, out } = setup();
    skipped.skip('NO_START', ['e1: no start']);
    skipped.skip('BAD_TIME', ['e2: bad time']);
    expect(() => skipped.check(2, ['e1: no start', 'e2: bad time'], 0.05, undefined)).toThrow(/^none of the 2 events could be read, so nothing was published\. The first: e1: no start\./);
    expect(out()).toBe('warning: e1: no start\nwarning: e2: bad time\n');
  });
});
