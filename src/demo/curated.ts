// Turns the curated specs into dated calendars and events for one "today". Pure.

import {
  DEMO_TIME_ZONE,
  anchorDay,
  hash32,
  isoDay,
  updatedBefore,
  wallTime,
  type DemoCalendar,
  type DemoEvent,
  type DemoSource,
  type DemoWhen,
} from './data.js';
import { CURATED, FACULTY_CALENDARS, type CalendarSpec, type EventSpec } from './curated-content.js';

const PORTAL = 'https://portal.example.edu';

/** Escape text for HTML we compose ourselves (titles contain '&' and quotes). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A realistic HTML description composed from the title; three lengths, chosen by the id's hash. */
function composeDescription(spec: EventSpec, cal: CalendarSpec): string {
  const title = escapeHtml(spec.title);
  const link = `${PORTAL}/events/${cal.slug}/${encodeURIComponent(String(spec.id))}`;
  switch (hash32(String(spec.id)) % 3) {
    case 0:
      return [
        `<p>Welcome to <b>${title}</b>, organised by ${escapeHtml(cal.title)}.</p>`,
        '<p>Everyone is welcome: students, staff, alumni &amp; guests. The event is held in English; ',
        'questions in Lithuanian are welcome too.</p>',
        '<ul><li>Arrive 10 minutes early</li><li>Bring your student card</li>',
        '<li>Coffee &amp; snacks after the event</li></ul>',
        `<p>Full programme and registration: <a href="${link}">${link}</a>.</p>`,
      ].join('');
    case 1:
      return `<p><b>${title}</b>. Free entry, no registration needed.</p><p>More: <a href="${link}">event page</a>.</p>`;
    default:
      return `<p>${title} &amp; more – see the <a href="${link}">portal</a> for details.</p>`;
  }
}

function whenOf(spec: EventSpec, anchor: ReturnType<typeof anchorDay>): DemoWhen {
  if (!spec.at) {
    const days = spec.days ?? 1;
    return { kind: 'allDay', startDate: isoDay(anchor, spec.day), endDate: isoDay(anchor, spec.day + days - 1) };
  }
  const start = wallTime(anchor, spec.day, spec.at[0], spec.at[1]);
  if (spec.minutes === undefined) return { kind: 'timed', start };
  return { kind: 'timed', start, end: start + spec.minutes * 60_000 };
}

function buildEvent(spec: EventSpec, cal: CalendarSpec, anchor: ReturnType<typeof anchorDay>): DemoEvent {
  const key = `${cal.id}/${spec.id}`;
  const h = hash32(key);
  const organizer = spec.organizer === null ? undefined : (spec.organizer ?? cal.organizer);
  const event: DemoEvent = {
    id: spec.id,
    calendarId: cal.id,
    title: spec.title,
    titleLt: spec.titleLt,
    description: spec.description ?? composeDescription(spec, cal),
    descriptionLt: `<p>${escapeHtml(spec.titleLt)}. Daugiau informacijos – portale.</p>`,
    when: whenOf(spec, anchor),
    cancelled: spec.cancelled ?? false,
    updatedAt: updatedBefore(anchor, key),
    url: `${PORTAL}/events/${cal.slug}/${encodeURIComponent(String(spec.id))}`,
    categories: spec.categories,
    // Details carry fields the list does not (issue 2: "an event whose details include fields not in the list entry").
    extra: { capacity: 20 + (h % 400), registrationRequired: h % 2 === 0, language: h % 5 === 0 ? 'lt' : 'en' },
  };
  if (spec.location !== undefined) event.location = spec.location;
  if (organizer) event.organizer = organizer;
  if (spec.image) event.image = `${PORTAL}/media/events/${encodeURIComponent(String(spec.id))}.jpg`;
  if (spec.endAsNull) event.endAsNull = true;
  if (spec.featured) event.featured = true;
  return event;
}

/** The curated demo data for the day containing `now`. */
export function curatedSource(now: number): DemoSource {
  const anchor = anchorDay(now);
  const calendars: DemoCalendar[] = CURATED.map((cal) => ({
    id: cal.id,
    title: cal.title,
    titleLt: cal.titleLt,
    description: cal.description,
    descriptionLt: cal.descriptionLt,
    timeZone: DEMO_TIME_ZONE,
    url: `${PORTAL}/calendars/${cal.slug}`,
  }));
  const events = new Map<string, DemoEvent[]>();
  for (const cal of CURATED) events.set(String(cal.id), cal.events.map((spec) => buildEvent(spec, cal, anchor)));
  const calendarsUpdatedAt = updatedBefore(anchor, 'calendars');
  return {
    calendars: () => calendars,
    events: (calendarId) => events.get(calendarId),
    event: (calendarId, eventId) => events.get(calendarId)?.find((e) => String(e.id) === eventId),
    eventIds: (calendarId) => (events.get(calendarId) ?? []).map((e) => String(e.id)),
    facultyCalendarIds: () => FACULTY_CALENDARS,
    calendarsUpdatedAt: () => calendarsUpdatedAt,
  };
}
