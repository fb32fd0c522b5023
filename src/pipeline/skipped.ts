// Events the build cannot read are skipped with a warning each; past --max-failed-details the build
// fails (detection most likely guessed wrong). Until some event is read, their warnings are held
// back, so a portal whose start field detection misses gets one line, not one per event.

import { CalfeedError } from '../errors.js';
import type { Logger } from '../log.js';
import type { FieldPath } from '../normalize/index.js';

const MAP_FIELDS = 'Run "calfeed inspect" to see how calfeed reads your portal, then map the missing fields in calfeed.config.json ("fields").';

export class SkippedEvents {
  /** The warnings of skipped events, while no event has been read; undefined from the first read. */
  private held: string[] | undefined = [];
  /** Events skipped through skip(), and why (the code of each one's last warning). */
  private count = 0;
  private readonly codes = new Set<string>();

  constructor(private readonly log: Logger) {}

  /** An event that cannot be read: its warnings, the last of which (`code`) says why. */
  skip(code: string, warnings: readonly string[]): void {
    this.count++;
    this.codes.add(code);
    if (this.held) this.held.push(...warnings);
    else for (const w of warnings) this.log.warn(w);
  }

  /** An event was read: the warnings held back are given now, later ones as they come. */
  read(): void {
    if (!this.held) return;
    for (const w of this.held) this.log.warn(w);
    this.held = undefined;
  }

  /**
   * Throws when more than maxRatio of the listed events could not be read. `unreadable`: why each
   * was skipped (a build taking events from the last one also counts those skipped then).
   */
  check(listed: number, unreadable: readonly string[], maxRatio: number, mappedStart: FieldPath | undefined): void {
    const n = unreadable.length;
    if (n === 0) return;
    if (n === listed) {
      const oneReason = this.count === n && this.codes.size === 1;
      if (oneReason) {
        this.log.warn(n === 1 ? `the only event skipped: ${unreadable[0]}` : `all ${n} events skipped, each for the reason the first was: ${unreadable[0]}`);
        this.held = undefined;
      } else this.read();
      if (oneReason && this.codes.has('NO_START')) throw new CalfeedError('BUILD', `${noStart(mappedStart)} Nothing was published.`);
      throw new CalfeedError(
        'BUILD',
        `none of the ${n} events could be read, so nothing was published. The first: ${unreadable[0]}. ${MAP_FIELDS}`,
      );
    }
    if (n / listed <= maxRatio) return;
    throw new CalfeedError(
      'BUILD',
      `${n} of ${listed} events could not be read, more than --max-failed-details (${Math.round(maxRatio * 100)}%) allows, ` +
        `so nothing was published. The first: ${unreadable[0]}. ${MAP_FIELDS}`,
    );
  }
}

function noStart(mapped: FieldPath | undefined): string {
  if (mapped === undefined || mapped === '') return 'no start field detected in any event: map fields.event.start in calfeed.config.json (run calfeed inspect).';
  return `the mapped start field ${JSON.stringify(mapped)} is in no event: fix fields.event.start in calfeed.config.json (run calfeed inspect).`;
}
