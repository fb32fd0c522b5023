// The shrink guard: a build with far fewer calendars or events than --out holds more likely got an
// incomplete answer from the portal than saw a real drop, so it is not published without
// --allow-shrink.

import type { Manifest } from './manifest.js';

/** Shrink guard: a reason to refuse publishing when the new build has less than half the calendars or events of the last one. */
export function shrinkReason(previous: Pick<Manifest, 'counts'> | undefined, next: { calendars: number; events: number }): string | undefined {
  if (previous === undefined) return undefined;
  const checks: Array<[string, number, number]> = [
    ['calendars', previous.counts.calendars, next.calendars],
    ['events', previous.counts.events, next.events],
  ];
  for (const [what, before, now] of checks) {
    if (before > 0 && now * 2 < before) {
      return (
        `The new build has ${now} ${what}, less than half of the ${before} published last time. ` +
        'The portal may have returned an incomplete answer, so the last good output was kept. ' +
        'If the drop is real, run again with --allow-shrink.'
      );
    }
  }
  return undefined;
}
