// Events spread over days around the sample "now", for the tests of calendar pages' day lists.
import type { FeedEvent } from '../../../src/model.js';
import { SAMPLE_NOW, sampleEvent } from '../../fixtures/sample.js';

const HOUR = 3_600_000;

/** One event per spec, in the order given: starting `hours` from now, timed or all day, cancelled or not, with a NUL in its title. */
export function dayEvents(specs: Array<{ hours: number; length: number; allDay: boolean; cancelled: boolean; title: string }>): FeedEvent[] {
  return specs.map((s, i) => {
    const start = SAMPLE_NOW + s.hours * HOUR;
    const day = new Date(start).toISOString().slice(0, 10);
    const end = new Date(start + s.length * HOUR).toISOString().slice(0, 10);
    return sampleEvent({
      id: `e${i}`,
      slug: `e${i}`,
      title: `${s.title}\u0000 #${i}`,
      ...(s.cancelled ? { status: 'cancelled' } : {}),
      when: s.allDay ? { kind: 'allDay', startDate: day, endDate: end > day ? end : day } : { kind: 'timed', start, end: start + s.length * HOUR },
    } as Partial<FeedEvent>);
  });
}
