// Event pages and VEVENTs, and calendars' feeds and pages, rendered in this thread from the build's
// render context. (Page worker threads were measured and left out, for their CPU and memory
// against what they bought: docs/performance.md.)

import type { Calendar, FeedEvent, SiteContext } from '../model.js';
import { ownClock } from '../render/clock.js';
import type { RenderContext } from '../render/context.js';
import type { HtmlRenderer } from '../render/html/index.js';
import { veventText } from '../render/ical/index.js';
import { feedItems, renderFeeds, type SyndicationFeeds } from '../render/syndication/index.js';
import { eventEndMs } from '../render/syndication/when.js';
import { readItems, spooledList, type SpoolRead } from './spool.js';

/** What to render of an event besides its VEVENT: either may be kept from the last build instead. */
interface EventWants {
  page: boolean;
  items: boolean;
}

interface RenderedEvent {
  /** The event page's HTML; absent when it was not asked for. */
  page?: string;
  vevent: string;
  /** Its feed items (feedItems()); '' when they were not asked for, or the event has ended (no feed lists it again). */
  items: string;
}

/** A calendar's feeds and pages. The index and past pages come in pieces (18 MB at 100,000 events), rendered as they are iterated (once). */
interface CalendarPages extends SyndicationFeeds {
  index: Iterable<string>;
  past: Iterable<string>;
  widget: string;
  /** Until when what they took from "now" holds (Infinity: for good); read it after iterating index and past. */
  readonly changesAt: number;
}

/** A calendar's feeds and pages to render; its events are read from the spool. */
export interface CalendarJob {
  cal: Calendar;
  calendars: Calendar[];
  /** The spool's reader (EventSpool.text). */
  read: SpoolRead;
  /** Every live event of the calendar, sorted (compareRefs): spans() of their refs. */
  list: Float64Array;
  /** The calendar feeds' items (its first feedLimit upcoming events): itemSpans() of their refs. */
  feed: Float64Array;
  /** When the feeds were last changed: the newest item's stamp, else the newest of all its events'. */
  updated: number;
}

/** Renders an event's files and a calendar's feeds and pages with the build's render context. */
export class PageRenderer {
  constructor(
    private readonly ctx: RenderContext,
    private readonly html: HtmlRenderer,
    private readonly site: SiteContext,
  ) {}

  /** An event's VEVENT, and what it `wants` of its page and feed items. */
  render(cal: Calendar, event: FeedEvent, wants: EventWants): RenderedEvent {
    const { ctx, html, site } = this;
    // An ended event never enters a feed again (a changed one is rendered again): no items for it.
    const items = wants.items && eventEndMs(ctx, event, cal.timeZone) > site.clock.now ? feedItems(ctx, event, cal.timeZone, site, html.text(site)) : '';
    return { vevent: veventText(ctx, event, site), items, ...(wants.page ? { page: html.event(ctx, cal, event, site) } : {}) };
  }

  /** A calendar's feeds, and its pages' pieces, rendered as the writer takes them. */
  calendar(job: CalendarJob): CalendarPages {
    const { ctx, html } = this;
    const site = ownClock(this.site);
    const pages = html.calendarPieces(ctx, job.cal, spooledList(job.read, job.list), site);
    const text = html.text(site);
    const items = readItems(job.read, job.feed, (event) => feedItems(ctx, event, job.cal.timeZone, site, text));
    const feeds = renderFeeds(ctx, job.cal, job.calendars, items, job.updated, site, text);
    return {
      ...feeds,
      index: pages.index,
      past: pages.past,
      widget: pages.widget,
      // What the pieces take from "now" is known once they are rendered.
      get changesAt() {
        return site.clock.changesAt;
      },
    };
  }
}
