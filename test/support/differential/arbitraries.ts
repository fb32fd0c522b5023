// fast-check generators of portal histories (model.ts): small portals with the shapes real ones
// have (empty calendars, duplicated and case-twin ids, odd characters, details that fail, lists
// with and without validators or paging, all-day, multi-day, cancelled and endless events) and
// steps that change them while "now" moves by minutes to weeks.

import fc from 'fast-check';
import type { History, ModelCalendar, ModelEvent, Mutation, Step } from './model.js';

const DAY = 1440;

// Few enough that ids repeat within a calendar; case twins and characters paths must escape.
const eventId = fc.constantFrom('1', '2', '3', '10', '42', '007', 'a', 'A', 'e-1', 'E-1', 'x y', 'ä', 'Ä', 'a.b', 'a/b', 'q?x', 'h#1', '%41');
const calendarId = fc.constantFrom('1', '2', '44', 'cal', 'Cal', 'x y', 'ä', 'c/d', '%20');
const title = fc.constantFrom('Seminar', 'Seminar', 'Defence of a thesis', 'Open day', 'Koncertas „Ruduo"', '<b>Bold</b> & co', 'Ąžuolas', ' padded ', 'Line\nbreak');
const location = fc.option(fc.constantFrom('Room 1', 'Room 2', 'Main hall, Universiteto g. 3', 'Online'), { nil: null });
const categories = fc.subarray(['Seminar', 'seminar', 'Students', 'Physics', 'Ąžuolynas'], { maxLength: 3 });
const validators = fc.constantFrom('etag' as const, 'last-modified' as const, 'none' as const);
// Negative: a portal whose last page links back to the first (calfeed stops and warns).
const pageSize = fc.constantFrom(0, 0, 2, 5, -2);

const event: fc.Arbitrary<ModelEvent> = fc.record({
  id: eventId,
  title,
  start: fc.integer({ min: -20 * DAY, max: 40 * DAY }),
  duration: fc.option(fc.constantFrom(30, 90, 600, DAY, 3 * DAY), { nil: null }),
  allDay: fc.boolean(),
  location,
  cancelled: fc.boolean(),
  updatedAt: fc.option(fc.integer({ min: -30 * DAY, max: 0 }), { nil: null }),
  categories,
  omit: fc.constantFrom<string[]>([], [], [], [], [], [], [], [], ['start'], ['title']),
});

const calendar: fc.Arbitrary<ModelCalendar> = fc.record({
  id: calendarId,
  title,
  validators,
  pageSize,
  events: fc.array(event, { maxLength: 20 }),
  brokenDetails: fc.subarray(['1', '2', 'a', 'A', 'ä'], { maxLength: 2 }),
  details: fc.constantFrom('full' as const, 'description' as const),
});

const pick = fc.nat({ max: 50 });

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('addEvent' as const), cal: pick, event }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('removeEvent' as const), cal: pick, at: pick }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('editEvent' as const),
      cal: pick,
      at: pick,
      patch: fc.record(
        {
          title,
          start: fc.integer({ min: -20 * DAY, max: 40 * DAY }),
          duration: fc.option(fc.constantFrom(45, 120, DAY, 2 * DAY), { nil: null }),
          allDay: fc.boolean(),
          location,
          updatedAt: fc.option(fc.integer({ min: -DAY, max: 60 * DAY }), { nil: null }),
          categories,
          omit: fc.constantFrom<string[]>([], ['start'], ['location']),
        },
        { requiredKeys: [] },
      ),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), cal: pick, at: pick, cancelled: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('moveToPast' as const), cal: pick, at: pick, minutesAgo: fc.integer({ min: 1, max: 30 * DAY }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('duplicate' as const), cal: pick, at: pick, title }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('addCalendar' as const), calendar }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('removeCalendar' as const), cal: pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('renameCalendar' as const), cal: pick, title }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('emptyCalendar' as const), cal: pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('breakDetails' as const), cal: pick, at: pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fixDetails' as const), cal: pick, at: pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('validators' as const), cal: pick, validators }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('paging' as const), cal: pick, pageSize }) },
);

// Minutes to weeks, with the boundaries that matter: none, a day, past --keep-removed-days (2).
const advance = fc.oneof(
  fc.constantFrom(0, 0, 1, 60, DAY, 2 * DAY + 1, 7 * DAY),
  fc.integer({ min: 0, max: 21 * DAY }),
);

const step: fc.Arbitrary<Step> = fc.record({
  mutations: fc.array(mutation, { maxLength: 4 }),
  advance,
  checkUnchanged: fc.boolean(),
  loseRecord: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
});

/** A portal of 0 to 8 calendars and 1 to `maxSteps` steps of its history. */
export function historyArbitrary(maxSteps = 5): fc.Arbitrary<History> {
  return fc.record({
    calendars: fc.uniqueArray(calendar, { maxLength: 8, selector: (c) => c.id }),
    steps: fc.array(step, { minLength: 1, maxLength: maxSteps }),
  });
}
