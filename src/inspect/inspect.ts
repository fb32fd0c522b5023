// `calfeed inspect`: fetch one calendar list, one event list and one event's details, and show what
// calfeed makes of them, with a `fields` block ready to paste into calfeed.config.json when
// detection guesses wrong. Fetching is here; the analysis is normalize/explain (pure).

import type { LoadedConfig } from '../config/load.js';
import { httpOptions, withPortalSource, type PortalSource } from '../pipeline/source.js';
import { apiPaths } from '../crawl/api-paths.js';
import { nextPageUrl } from '../crawl/paging.js';
import { PortalClient } from '../http/index.js';
import { printable, type Logger } from '../log.js';
import { explain, findList, normalizeCalendars, rawId, unwrapRecord, type Explanation, type NormalizeOptions } from '../normalize/index.js';
import { VERSION } from '../version.js';
import { formatInspection } from './format.js';

export interface Inspection {
  /** False when a field the build needs is found in no record: every record would be skipped. */
  ok: boolean;
  /** Those fields, as config paths (e.g. "fields.event.start"). */
  missing: string[];
  source: string;
  calendars: { url: string; envelope: string; count: number; explanation: Explanation };
  /** nextPage: token-free URL of the page after the first, when the list says there is more. */
  events?: { url: string; calendarId: string; envelope: string; count: number; nextPage?: string; explanation: Explanation };
  details?: { url: string; eventId: string; explanation: Explanation };
  /** Merged `fields` block for calfeed.config.json. */
  fields: object;
}

/** Run inspect against the configured portal (or the demo) and print the report. */
export async function runInspect(args: { loaded: LoadedConfig; log: Logger; out: NodeJS.WritableStream; now: number }): Promise<Inspection> {
  const { config, token } = args.loaded;
  return withPortalSource({ config, token, now: args.now, log: args.log, doing: 'inspecting' }, (source) => inspect(args, source));
}

async function inspect(args: { loaded: LoadedConfig; log: Logger; out: NodeJS.WritableStream }, source: PortalSource): Promise<Inspection> {
  const { config } = args.loaded;
  const { baseUrl, timeZone } = source;
  const client = new PortalClient(httpOptions(config, source, { concurrency: 1, userAgent: `calfeed/${VERSION} inspect`, onWarning: (m) => args.log.warn(m) }));
  const opts: NormalizeOptions = { timeZone, locales: config.locales, fields: config.fields, maxFieldLength: config.maxFieldLength };
  try {
    const listRes = await client.getJson(apiPaths.calendars());
    const calList = findList(listRes.json, 'calendars', config.fields?.lists?.calendars);
    const inspection: Inspection = {
      ok: true,
      missing: [],
      source: source.demo ? `demo portal ${baseUrl}` : baseUrl,
      calendars: { url: listRes.url, envelope: envelopeName(calList.path), count: calList.items.length, explanation: explain('calendar', calList.items.slice(0, 20), opts) },
      fields: {},
    };
    const calendarId = calList.items.map((c) => rawId(c, 'calendar', config.fields)).find((id) => id !== undefined);
    if (calendarId !== undefined) {
      // The build reads an event's wall times in its calendar's zone (when the calendar names one): so does inspect.
      const calendarZone = normalizeCalendars(calList.items, opts).calendars.find((c) => c.id === calendarId)?.timeZone;
      const eventOpts: NormalizeOptions = { ...opts, timeZone: calendarZone ?? timeZone };
      const eventsRes = await client.getJson(apiPaths.events(calendarId));
      const evList = findList(eventsRes.json, 'events', config.fields?.lists?.events);
      // Only the first page is inspected; say whether more follow, as the build would follow them.
      const next = nextPageUrl({ json: eventsRes.json, link: eventsRes.link, url: eventsRes.url, itemCount: evList.items.length }, config.paging);
      inspection.events = {
        url: eventsRes.url,
        calendarId,
        envelope: envelopeName(evList.path),
        count: evList.items.length,
        ...(next !== undefined && { nextPage: client.urlFor(new URL(next, eventsRes.url).href) }),
        explanation: explain('event', evList.items.slice(0, 20), eventOpts),
      };
      const eventId = evList.items.map((e) => rawId(e, 'event', config.fields)).find((id) => id !== undefined);
      if (eventId !== undefined) {
        const detailsRes = await client.getJson(apiPaths.details(calendarId, eventId));
        const record = unwrapRecord(detailsRes.json);
        inspection.details = { url: detailsRes.url, eventId, explanation: explain('event', [record], eventOpts) };
      }
    }
    // One `fields` block: calendar mappings, and event mappings where details override the list entry.
    const { calendars, events, details } = inspection;
    const event = { ...events?.explanation.fieldsBlock.event, ...details?.explanation.fieldsBlock.event };
    inspection.fields = { calendar: calendars.explanation.fieldsBlock.calendar ?? {}, event };
    inspection.missing = missingRequired(inspection);
    inspection.ok = inspection.missing.length === 0;
    // Samples and field names are the portal's: the token it may echo and its control bytes stay out of stdout too.
    args.out.write(printable(config.json ? JSON.stringify(inspection, null, 2) + '\n' : formatInspection(inspection), [source.token]));
    for (const path of inspection.missing) {
      const [, kind, field] = path.split('.');
      args.log.error(`no ${field} found in any ${kind} record: the build would skip every ${kind}. Map ${path} in calfeed.config.json, then run calfeed inspect again.`);
    }
    return inspection;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Fields without which the build skips a record (an id, an event's start), found in no record inspected. */
function missingRequired(i: Inspection): string[] {
  const absent = (ex: Explanation | undefined, field: string): boolean => ex === undefined || (ex.fields.find((f) => f.field === field)?.path ?? null) === null;
  const missing: string[] = [];
  if (i.calendars.count > 0 && absent(i.calendars.explanation, 'id')) missing.push('fields.calendar.id');
  if (i.events && i.events.count > 0) {
    for (const field of ['id', 'start']) {
      if (absent(i.events.explanation, field) && absent(i.details?.explanation, field)) missing.push(`fields.event.${field}`);
    }
  }
  return missing;
}

function envelopeName(path: string[]): string {
  return path.length === 0 ? 'bare array' : `object, list under "${path.join('.')}"`;
}
