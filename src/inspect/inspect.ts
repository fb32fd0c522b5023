// `calfeed inspect`: fetch one calendar list, one event list and one event's details, and show what
// calfeed makes of them, with a `fields` block ready to paste into calfeed.config.json when
// detection guesses wrong. Fetching is here; the analysis is normalize/explain (pure).

import type { LoadedConfig } from '../config/load.js';
import { startDemoPortal, type DemoPortal } from '../demo/server.js';
import { nextPageUrl } from '../crawl/paging.js';
import { PortalClient } from '../http/index.js';
import type { Logger } from '../log.js';
import { explain, findList, normalizeCalendars, rawId, unwrapRecord, type Explanation, type NormalizeOptions } from '../normalize/index.js';
import { VERSION } from '../version.js';
import { formatInspection } from './format.js';

export interface Inspection {
  source: string;
  calendars: { url: string; envelope: string; count: number; explanation: Explanation };
  /** nextPage: token-free URL of the page after the first, when the list says there is more. */
  events?: { url: string; calendarId: string; envelope: string; count: number; nextPage?: string; explanation: Explanation };
  details?: { url: string; eventId: string; explanation: Explanation };
  /** Merged `fields` block for calfeed.config.json. */
  fields: object;
}

/** Run inspect against the configured portal (or the demo) and print the report. */
export async function runInspect(args: { loaded: LoadedConfig; log: Logger; out: NodeJS.WritableStream }): Promise<Inspection> {
  const { config } = args.loaded;
  let demo: DemoPortal | undefined;
  let baseUrl = config.baseUrl;
  let token = args.loaded.token;
  let timeZone = config.timeZone;
  if (!baseUrl) {
    demo = await startDemoPortal({});
    baseUrl = demo.url;
    token = demo.tokens.university;
    if (timeZone === 'UTC') timeZone = demo.timeZone;
    args.log.info(`No --base-url configured: inspecting the embedded demo portal at ${demo.url}.`);
  }
  const client = new PortalClient({
    baseUrl,
    token,
    auth: config.auth,
    concurrency: 1,
    rateLimit: config.rateLimit,
    connectTimeoutMs: config.connectTimeoutMs,
    headersTimeoutMs: config.headersTimeoutMs,
    bodyTimeoutMs: config.bodyTimeoutMs,
    retries: config.retries,
    retryBaseMs: 500,
    retryMaxWaitMs: config.retryMaxWaitMs,
    maxResponseBytes: config.maxResponseBytes,
    userAgent: `calfeed/${VERSION} inspect`,
    onWarning: (m) => args.log.warn(m),
  });
  const opts: NormalizeOptions = { timeZone, locales: config.locales, fields: config.fields, maxFieldLength: config.maxFieldLength };
  try {
    const listRes = await client.getJson('event-calendars');
    const calList = findList(listRes.json, 'calendars', config.fields?.lists?.calendars);
    const inspection: Inspection = {
      source: demo ? `demo portal ${baseUrl}` : baseUrl,
      calendars: { url: listRes.url, envelope: envelopeName(calList.path), count: calList.items.length, explanation: explain('calendar', calList.items.slice(0, 20), opts) },
      fields: {},
    };
    const calendarId = calList.items.map((c) => rawId(c, 'calendar', config.fields)).find((id) => id !== undefined);
    if (calendarId !== undefined) {
      // The build reads an event's wall times in its calendar's zone (when the calendar names one): so does inspect.
      const calendarZone = normalizeCalendars(calList.items, opts).calendars.find((c) => c.id === calendarId)?.timeZone;
      const eventOpts: NormalizeOptions = { ...opts, timeZone: calendarZone ?? timeZone };
      const eventsRes = await client.getJson(`event-calendar/${encodeURIComponent(calendarId)}/events`);
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
        const detailsRes = await client.getJson(`event-calendar/${encodeURIComponent(calendarId)}/event/${encodeURIComponent(eventId)}/details`);
        const record = unwrapRecord(detailsRes.json);
        inspection.details = { url: detailsRes.url, eventId, explanation: explain('event', [record], eventOpts) };
      }
    }
    inspection.fields = mergeFieldBlocks(inspection);
    args.out.write(config.json ? JSON.stringify(inspection, null, 2) + '\n' : formatInspection(inspection));
    return inspection;
  } finally {
    await client.close().catch(() => undefined);
    await demo?.close();
  }
}

function envelopeName(path: string[]): string {
  return path.length === 0 ? 'bare array' : `object, list under "${path.join('.')}"`;
}

/** One `fields` block: calendar mappings, and event mappings where details override the list entry. */
function mergeFieldBlocks(i: Inspection): object {
  const calendar = i.calendars.explanation.fieldsBlock.calendar ?? {};
  const event = { ...(i.events?.explanation.fieldsBlock.event ?? {}), ...(i.details?.explanation.fieldsBlock.event ?? {}) };
  return { calendar, event };
}
