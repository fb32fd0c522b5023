// The bench's "reference build": the simplest script that writes the same set of files as
// `calfeed build`, with the same libraries (undici's request, handlebars, feed, VEVENTs by hand),
// and nothing else: no sanitizing, no state, no checks, no threads, no staging (it writes straight
// into OUT_DIR). Its bytes differ from calfeed's; its files and its work are about the same: every
// mirror, event page and .ics, each calendar's pages, feeds and calendar.ics, each category's page,
// feeds and calendar.ics, the combined ones, search.json, the sitemap, robots.txt, 404.html, the
// static assets, _headers and a manifest with every file's SHA-256. The bench runs it in turn
// with calfeed's cold build: what calfeed costs beyond this is the price of what it adds.
//
//   node test/bench/reference-build.mjs BASE_URL OUT_DIR CONCURRENCY SITE_URL   (token in BENCH_TOKEN)
//
// Prints {"events": N, "files": N} on stdout.

import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Feed } from 'feed';
import Handlebars from 'handlebars';
import { Pool } from 'undici';

const [baseUrl, out, concurrencyArg, siteUrl] = process.argv.slice(2);
const ASSETS = fileURLToPath(new URL('../../templates/assets/', import.meta.url));
const DAY = 86_400_000;
// The same windows as calfeed's defaults, so both render the same events: feeds list events that
// have not ended (at most 500), calendar.ics those that ended up to 90 days ago and all later ones.
const now = Date.now();
const FEED_LIMIT = 500;
const ICAL_PAST_DAYS = 90;

const base = new URL(baseUrl);
const pool = new Pool(base.origin, { connections: Number(concurrencyArg) });
const headers = { authorization: `Bearer ${process.env.BENCH_TOKEN}` };

// The pool keeps at most CONCURRENCY requests in flight and queues the rest.
async function get(path) {
  const res = await pool.request({ path: base.pathname + path, method: 'GET', headers });
  const body = Buffer.from(await res.body.arrayBuffer());
  if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
  return body;
}

const manifest = [];
async function write(path, data) {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  await writeFile(join(out, path), bytes);
  manifest.push({ path, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
}

const layout = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{title}}</title><link rel="canonical" href="{{canonical}}"><link rel="stylesheet" href="{{root}}style.css">
{{#each feeds}}<link rel="alternate" type="{{type}}" href="{{href}}">
{{/each}}<script src="{{root}}page.js" defer></script></head>
<body><header><a href="{{root}}index.html">Events</a></header><main id="main">{{{body}}}</main></body></html>
`;
const page = Handlebars.compile(layout);
const eventBody = Handlebars.compile(`<article><h1>{{title}}</h1><dl>
<dt>When</dt><dd><time datetime="{{start}}">{{when}}</time></dd>
{{#if location}}<dt>Where</dt><dd>{{location}}</dd>{{/if}}
{{#if organizer}}<dt>Organizer</dt><dd>{{organizer.name}} <a href="mailto:{{organizer.email}}">{{organizer.email}}</a></dd>{{/if}}
<dt>Categories</dt><dd>{{#each categories}}<span class="tag">{{this}}</span> {{/each}}</dd>
<dt>Calendar</dt><dd><a href="../index.html">{{calendar}}</a></dd></dl>
<p><a href="{{ics}}">Add to your calendar (.ics)</a> <a href="{{url}}">On the portal</a></p>
<div class="description">{{{description}}}</div></article>`);
const listBody = Handlebars.compile(`<h1>{{heading}}</h1>{{#if description}}<div>{{{description}}}</div>{{/if}}
<ul>{{#each events}}<li><time datetime="{{start}}">{{when}}</time> <a href="{{href}}">{{title}}</a>{{#if location}} <span>{{location}}</span>{{/if}}</li>
{{else}}<li>No events.</li>{{/each}}</ul>`);

const whenFormat = new Map();
function when(ev, zone) {
  if (!whenFormat.has(zone)) whenFormat.set(zone, new Intl.DateTimeFormat('en', { dateStyle: 'full', timeStyle: 'short', timeZone: zone }));
  return ev.allDay ? `${ev.startDate} – ${ev.endDate}` : whenFormat.get(zone).formatRange(ev.startMs, ev.endMs);
}

/** The event as the pages and feeds use it: its raw details with start and end as instants. */
function eventOf(raw, cal) {
  const allDay = raw.allDay === true;
  const startMs = Date.parse(allDay ? `${raw.startDate}T00:00:00Z` : raw.startDateTime);
  const endMs = allDay ? Date.parse(`${raw.endDate ?? raw.startDate}T00:00:00Z`) + DAY : Date.parse(raw.endDateTime ?? raw.startDateTime);
  const location = typeof raw.location === 'string' ? raw.location : [raw.location?.name, raw.location?.address].filter(Boolean).join(', ');
  const id = String(raw.eventId);
  return { ...raw, id, cal: cal.eventCalendarId, allDay, startMs, endMs, location, href: `events/${id}.html`, start: new Date(startMs).toISOString() };
}

const text = (html) => (html ?? '').replace(/<[^>]*>/g, ' ').replace(/&amp;/g, '&').replace(/\s+/g, ' ').trim();
const icsText = (s) => s.replace(/[\\;,]/g, (c) => `\\${c}`).replace(/\n/g, '\\n');
const stamp = (ms) => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
const day = (ms) => stamp(ms).slice(0, 8);
function fold(line) {
  let folded = '';
  for (let i = 0; i < line.length; i += 73) folded += (i ? '\r\n ' : '') + line.slice(i, i + 73);
  return folded;
}
function vevent(ev) {
  const lines = [
    'BEGIN:VEVENT',
    `UID:${ev.cal}/${ev.id}@${new URL(siteUrl).host}`,
    `DTSTAMP:${stamp(Date.parse(ev.updatedAt))}`,
    ev.allDay ? `DTSTART;VALUE=DATE:${day(ev.startMs)}` : `DTSTART:${stamp(ev.startMs)}`,
    ev.allDay ? `DTEND;VALUE=DATE:${day(ev.endMs)}` : `DTEND:${stamp(ev.endMs)}`,
    `SUMMARY:${icsText(ev.title)}`,
    `DESCRIPTION:${icsText(text(ev.description))}`,
    `LOCATION:${icsText(ev.location)}`,
    `URL:${ev.url}`,
    'END:VEVENT',
  ];
  return lines.map(fold).join('\r\n');
}
const vcalendar = (name, events) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calfeed//reference//EN', `X-WR-CALNAME:${icsText(name)}`, ...events.map(vevent), 'END:VCALENDAR', ''].join('\r\n');

/** The events of `events` that have not ended, by start: what feeds and list pages show. */
const upcomingOf = (events) => events.filter((ev) => ev.endMs > now).sort((a, b) => a.startMs - b.startMs);

/** rss.xml, atom.xml, feed.json and calendar.ics of `events` into `dir` ('' for the combined ones). */
async function feeds(dir, title, events) {
  const link = siteUrl + dir;
  const upcoming = upcomingOf(events).slice(0, FEED_LIMIT);
  const updated = new Date(Math.max(0, ...events.map((ev) => Date.parse(ev.updatedAt))));
  const feed = new Feed({ id: link + 'atom.xml', title, link, updated, copyright: '', author: { name: 'Events' } });
  for (const ev of upcoming) {
    const url = `${siteUrl}calendars/${ev.cal}/${ev.href}`;
    feed.addItem({ title: ev.title, id: url, link: url, date: new Date(ev.updatedAt), description: ev.description });
  }
  await write(dir + 'rss.xml', feed.rss2());
  await write(dir + 'atom.xml', feed.atom1());
  await write(dir + 'feed.json', feed.json1());
  await write(dir + 'calendar.ics', vcalendar(title, events.filter((ev) => ev.endMs > now - ICAL_PAST_DAYS * DAY)));
}

function listPage(root, dir, title, heading, description, events) {
  const body = listBody({ heading, description, events });
  return page({ title, canonical: siteUrl + dir, root, body, feeds: [{ type: 'application/rss+xml', href: 'rss.xml' }] });
}

async function calendarFiles(cal, events) {
  const dir = `calendars/${cal.eventCalendarId}/`;
  const upcoming = upcomingOf(events);
  const past = events.filter((ev) => ev.endMs <= now).sort((a, b) => b.startMs - a.startMs);
  await feeds(dir, cal.title, events);
  await write(dir + 'index.html', listPage('../../', dir, cal.title, cal.title, cal.description, upcoming));
  await write(dir + 'past.html', listPage('../../', dir + 'past.html', cal.title, `${cal.title}: past events`, '', past));
  await write(dir + 'widget.html', listPage('../../', dir + 'widget.html', cal.title, cal.title, '', upcoming.slice(0, 10)));
}

/** Each category's feeds, calendar.ics and page of upcoming events, and the page listing them. */
async function categoryFiles(events) {
  const byCategory = new Map();
  for (const ev of events) {
    for (const name of ev.categories ?? []) {
      const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
      if (!byCategory.has(slug)) byCategory.set(slug, { name, events: [] });
      byCategory.get(slug).events.push(ev);
    }
  }
  for (const [slug, { name, events: inCategory }] of byCategory) {
    const dir = `categories/${slug}/`;
    await mkdir(join(out, dir), { recursive: true });
    await feeds(dir, name, inCategory);
    const upcoming = upcomingOf(inCategory);
    const linked = upcoming.map((ev) => ({ ...ev, href: `../../calendars/${ev.cal}/${ev.href}` }));
    await write(dir + 'index.html', listPage('../../', dir, name, name, '', linked));
  }
  const cards = [...byCategory].map(([slug, { name }]) => ({ title: name, href: `${slug}/index.html`, when: '' }));
  await write('categories/index.html', listPage('../', 'categories/', 'Categories', 'Categories', '', cards));
}

async function calendar(cal) {
  const id = cal.eventCalendarId;
  const listBytes = await get(`/event-calendar/${id}/events`);
  await mkdir(join(out, 'event-calendar', id), { recursive: true });
  await mkdir(join(out, 'calendars', id, 'events'), { recursive: true });
  await write(`event-calendar/${id}/events`, listBytes);
  const events = await Promise.all(
    JSON.parse(listBytes.toString()).map(async (item) => {
      const detailsPath = `event-calendar/${id}/event/${item.eventId}/details`;
      const bytes = await get(`/${detailsPath}`);
      const ev = eventOf(JSON.parse(bytes.toString()), cal);
      ev.when = when(ev, cal.timeZone ?? 'UTC');
      await mkdir(join(out, dirname(detailsPath)), { recursive: true });
      await write(detailsPath, bytes);
      const body = eventBody({ ...ev, calendar: cal.title, ics: `${ev.id}.ics` });
      await write(`calendars/${id}/events/${ev.id}.html`, page({ title: ev.title, canonical: `${siteUrl}calendars/${id}/${ev.href}`, root: '../../../', body, feeds: [] }));
      await write(`calendars/${id}/events/${ev.id}.ics`, vcalendar(ev.title, [ev]));
      return ev;
    }),
  );
  await calendarFiles(cal, events);
  return events;
}

await mkdir(out, { recursive: true });
const calendarsBytes = await get('/event-calendars');
await write('event-calendars', calendarsBytes);
const calendars = JSON.parse(calendarsBytes.toString());
const all = (await Promise.all(calendars.map(calendar))).flat();
await feeds('', 'Events', all);
const cards = calendars.map((cal) => ({ title: cal.title, href: `calendars/${cal.eventCalendarId}/index.html`, when: cal.description ? text(cal.description) : '' }));
await write('index.html', listPage('', '', 'Events', 'Events', '', cards));
await categoryFiles(all);
await write('search.json', JSON.stringify({ version: 1, calendars: calendars.map((cal) => ({ slug: cal.eventCalendarId, title: cal.title })), events: upcomingOf(all).map((ev) => ({ url: `calendars/${ev.cal}/${ev.href}`, title: ev.title, start: ev.start, calendar: ev.cal, categories: ev.categories ?? [], place: ev.location, description: text(ev.description).slice(0, 200) })) }));
const pages = manifest.map((f) => f.path).filter((path) => path.endsWith('.html') && !path.endsWith('widget.html')).sort();
await write('sitemap.xml', `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${pages.map((path) => `<url><loc>${siteUrl}${path}</loc></url>\n`).join('')}</urlset>\n`);
await write('robots.txt', `User-agent: *\nAllow: /\n\nSitemap: ${siteUrl}sitemap.xml\n`);
await write('404.html', page({ title: 'Not found', canonical: siteUrl, root: '/', body: '<h1>Not found</h1>', feeds: [] }));
for (const name of ['style.css', 'page.js', 'widget.js']) await write(name, await readFile(join(ASSETS, name)));
await write('_headers', '/*\n  Cache-Control: public, max-age=300\n/event-calendars\n  Content-Type: application/json; charset=utf-8\n');
const files = manifest.length + 1;
await writeFile(join(out, 'manifest.json'), JSON.stringify({ counts: { calendars: calendars.length, events: all.length, files }, files: manifest }, null, 2));
await pool.close();
process.stdout.write(JSON.stringify({ events: all.length, files }) + '\n');
