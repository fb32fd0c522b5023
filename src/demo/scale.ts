// Scale mode: N calendars x M events, generated on demand from (calendar, index) with a seeded PRNG,
// so 100,000 events cost nothing until requested and every request for one event gives the same bytes.

import {
  DEMO_TIME_ZONE,
  anchorDay,
  hash32,
  isoDay,
  pick,
  prng,
  updatedBefore,
  wallTime,
  type DemoCalendar,
  type DemoEvent,
  type DemoSource,
} from './data.js';

const PORTAL = 'https://portal.example.edu';
const FIRST_WORD = ['Open', 'Advanced', 'Introductory', 'Annual', 'Weekly', 'Special', 'Student', 'Public'];
const TOPIC = ['Physics', 'History', 'Robotics', 'Music', 'Economics', 'Biology', 'Law', 'Design', 'Medicine', 'Poetry'];
const KIND = ['Lecture', 'Seminar', 'Workshop', 'Concert', 'Meetup', 'Tour', 'Exhibition', 'Match'];
const SENTENCES = [
  'Everyone is welcome, including students, staff, alumni &amp; guests from partner universities.',
  'The session combines a short talk with plenty of time for questions and discussion.',
  'Please bring your student card; visitors register at the front desk on arrival.',
  'Coffee, tea and snacks are served in the foyer before the start.',
  'Slides and recordings are published on the portal within a week after the event.',
  'The room is step-free and has an induction loop; contact us if you need assistance.',
  'Seats are limited, so we recommend arriving at least ten minutes early.',
  'Lithuanian and English are both spoken; materials are available in both languages.',
];
const PLACES = [
  { name: 'Main Hall', address: 'Universiteto g. 3, 01513 Vilnius' },
  { name: 'Science Auditorium A1', address: 'Saulėtekio al. 9, 10222 Vilnius' },
  { name: 'University Sports Centre', address: 'M. K. Čiurlionio g. 27, 03104 Vilnius' },
];

/** Event ids are numbers: calendar index * 1,000,000 + event index + 1 (so up to 999,999 per calendar). */
const ID_BASE = 1_000_000;

function calendarId(index: number): string {
  return `cal-${String(index + 1).padStart(4, '0')}`;
}

/** A generated calendar set of `calendars` x `eventsPerCalendar` events for the day containing `now`. */
export function scaleSource(now: number, calendars: number, eventsPerCalendar: number): DemoSource {
  const anchor = anchorDay(now);
  const cals: DemoCalendar[] = Array.from({ length: calendars }, (_, i) => ({
    id: calendarId(i),
    title: `Calendar ${i + 1}: ${TOPIC[i % TOPIC.length]}`,
    titleLt: `Kalendorius ${i + 1}`,
    description: `<p>Generated calendar ${i + 1} with ${eventsPerCalendar} events.</p>`,
    descriptionLt: `<p>Sugeneruotas kalendorius ${i + 1}.</p>`,
    timeZone: DEMO_TIME_ZONE,
    url: `${PORTAL}/calendars/${calendarId(i)}`,
  }));
  const indexOf = new Map(cals.map((c, i) => [String(c.id), i]));
  // The faculty sees every third calendar (the first one at least): a strict subset once there are two.
  const faculty = new Set(cals.filter((_, i) => i % 3 === 0).map((c) => String(c.id)));

  function generate(cal: number, index: number): DemoEvent {
    const id = cal * ID_BASE + index + 1;
    const key = `${calendarId(cal)}/${id}`;
    const random = prng(hash32(key));
    const title = `${pick(random, FIRST_WORD)} ${pick(random, TOPIC)} ${pick(random, KIND)} #${index + 1}`;
    // Spread evenly over [-60, +120) days, with a little jitter so days are not all alike.
    const day = Math.floor(-60 + (index * 180) / Math.max(1, eventsPerCalendar) + random() * 2);
    const allDay = random() < 0.1;
    const sentences = Array.from({ length: 6 }, () => pick(random, SENTENCES));
    const place = random() < 0.5 ? pick(random, PLACES) : `Room ${100 + Math.floor(random() * 300)}`;
    const start = wallTime(anchor, day, 8 + Math.floor(random() * 12), random() < 0.5 ? 0 : 30);
    const hasEnd = random() < 0.85;
    return {
      id,
      calendarId: calendarId(cal),
      title,
      titleLt: `Renginys #${index + 1}`,
      description: `<p><b>${title}</b></p><p>${sentences.slice(0, 3).join(' ')}</p><p>${sentences.slice(3).join(' ')}</p>`,
      descriptionLt: `<p>Renginys #${index + 1}.</p>`,
      when: allDay
        ? { kind: 'allDay', startDate: isoDay(anchor, day), endDate: isoDay(anchor, day + (random() < 0.3 ? 2 : 0)) }
        : hasEnd
          ? { kind: 'timed', start, end: start + (60 + Math.floor(random() * 4) * 30) * 60_000 }
          : { kind: 'timed', start },
      location: place,
      cancelled: random() < 0.03,
      updatedAt: updatedBefore(anchor, key),
      url: `${PORTAL}/events/${calendarId(cal)}/${id}`,
      categories: [pick(random, KIND), pick(random, TOPIC)],
      organizer: { name: `${pick(random, TOPIC)} Department`, email: `dept${cal + 1}@example.edu` },
      extra: { capacity: 20 + Math.floor(random() * 300) },
    };
  }

  return {
    calendars: () => cals,
    events(calId) {
      const cal = indexOf.get(calId);
      if (cal === undefined) return undefined;
      return Array.from({ length: eventsPerCalendar }, (_, i) => generate(cal, i));
    },
    event(calId, eventId) {
      const cal = indexOf.get(calId);
      if (cal === undefined || !/^[1-9][0-9]*$/.test(eventId)) return undefined;
      const index = Number(eventId) - cal * ID_BASE - 1;
      return index >= 0 && index < eventsPerCalendar ? generate(cal, index) : undefined;
    },
    eventIds(calId) {
      const cal = indexOf.get(calId);
      if (cal === undefined) return [];
      return Array.from({ length: eventsPerCalendar }, (_, i) => String(cal * ID_BASE + i + 1));
    },
    facultyCalendarIds: () => faculty,
    calendarsUpdatedAt: () => updatedBefore(anchor, 'calendars'),
  };
}
