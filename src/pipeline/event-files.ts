// One event's own files, its page and "add to calendar" .ics, written as its details arrive; kept as
// published (bytes and mtime) when its inputs have not changed.

import { createHash } from 'node:crypto';
import type { Calendar, FeedEvent, SiteContext } from '../model.js';
import { paths } from '../paths.js';
import type { Staging } from '../publish/index.js';
import type { RenderContext } from '../render/context.js';
import { renderEventIcs } from '../render/ical/index.js';
import type { StoredEvents } from '../state/build-store.js';
import type { HistoryTracker } from '../state/history.js';
import type { PageRenderer } from './page-render.js';
import { dateDataVersions } from './render-keys.js';

/** What writing an event's files gives the spool: its VEVENT, its feed items and its history record (JSON). */
export interface EventOutput {
  vevent: string;
  items: string;
  record: string;
}

/**
 * What history records of an event's files: the fingerprint of what they were rendered from and a
 * digest of their bytes' SHA-256 (page, then .ics); undefined when either is unknown.
 */
function stamp(fingerprint: string, pageSha256: string | undefined, icsSha256: string | undefined): string | undefined {
  if (pageSha256 === undefined || icsSha256 === undefined) return undefined;
  return `${fingerprint}.${createHash('sha256').update(pageSha256).update(icsSha256).digest('base64url').slice(0, 22)}`;
}

/** Writes event pages and .ics files, skipping those whose fingerprint matches the published ones. */
export class EventFiles {
  rendered = 0;
  kept = 0;
  private readonly siteKey: string;

  constructor(
    private readonly ctx: RenderContext,
    private readonly staging: Staging,
    private readonly pages: PageRenderer,
    /** HtmlRenderer.fingerprint of the templates in effect. */
    templates: string,
    private readonly site: SiteContext,
    private readonly history: HistoryTracker,
    /** The last build's rows: an event rendered from the same inputs takes its feed items from its row. */
    private readonly rows?: StoredEvents,
    /** The runtime's date data (see dateDataVersions); a parameter so tests can vary it. */
    runtime: Array<string | null> = dateDataVersions(),
  ) {
    // Everything of the site an event page or .ics depends on: every setting (so one added to
    // SiteContext is covered without a change here) but "now", which neither file shows.
    const { clock: _clock, ...settings } = site;
    this.siteKey = JSON.stringify([settings, templates, ...runtime]);
  }

  /**
   * Write (or keep) the page and .ics of one event, last published with `renderedBefore`. Returns
   * its VEVENT, its feed items (`withItems`) and its history record as published (HistoryTracker.recordOf).
   */
  async write(cal: Calendar, event: FeedEvent, renderedBefore: string | undefined, withItems: boolean, eventJson = JSON.stringify(event)): Promise<EventOutput> {
    const page = paths.eventPage(cal.slug, event.slug);
    const ics = paths.eventIcs(cal.slug, event.slug);
    const fingerprint = this.fingerprint(cal, eventJson);
    // Kept when the build that made them rendered them from these inputs to the very bytes --out's
    // manifest lists now: true whichever build published them, so no record of it is needed.
    const listed = renderedBefore && stamp(fingerprint, await this.staging.publishedHash(page), await this.staging.publishedHash(ics));
    const keep = listed !== undefined && listed === renderedBefore && (await this.staging.isPublished(page)) && (await this.staging.isPublished(ics));
    // Rendered from the same inputs: its row's items are what rendering them again would give.
    const same = withItems && renderedBefore?.startsWith(`${fingerprint}.`);
    const stored = same ? this.rows?.ref(event.calendarId, event.id) : undefined;
    const items = stored && this.rows!.spool.itemsOf(stored);
    const rendered = this.pages.render(cal, event, { page: !keep, items: withItems && items === undefined });
    if (keep) {
      await this.staging.keep(page);
      await this.staging.keep(ics);
      this.kept++;
    } else {
      await Promise.all([this.staging.write(page, rendered.page!), this.staging.write(ics, renderEventIcs(this.ctx, event, this.site, rendered.vevent))]);
      this.rendered++;
    }
    const staged = this.staging.files();
    const stamped = stamp(fingerprint, staged.get(page)?.sha256, staged.get(ics)?.sha256);
    this.history.markRendered(event.calendarId, event.id, stamped);
    return { vevent: rendered.vevent, items: items ?? rendered.items, record: this.history.recordOf(event, stamped) };
  }

  /**
   * Fingerprint of everything an event's page and .ics are rendered from (`eventJson`:
   * JSON.stringify(event)). Also what history records as the event's `rendered`.
   */
  fingerprint(cal: Calendar, eventJson: string): string {
    return createHash('sha256').update(this.siteKey).update(this.calendarJson(cal)).update(eventJson).digest('base64url').slice(0, 27);
  }

  // A calendar's JSON, once per calendar rather than once per event.
  private readonly calendarJsons = new WeakMap<Calendar, string>();
  private calendarJson(cal: Calendar): string {
    let json = this.calendarJsons.get(cal);
    if (json === undefined) {
      json = JSON.stringify(cal);
      this.calendarJsons.set(cal, json);
    }
    return json;
  }
}
