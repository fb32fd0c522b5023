// Page workers started only once a build has enough to render (see DeferredPool).

import type { Calendar, FeedEvent } from '../model.js';
import type { CalendarJob, CalendarPages, EventWants, PageRenderer, RenderedEvent } from './page-pool.js';

/**
 * Renders in this thread until more than `startAfter` pages' worth of rendering has been asked for
 * (an event page is one; a calendar's pages and feeds, half a page per event), then starts the
 * workers. Starting one costs about a second of CPU (its modules loaded, its templates compiled):
 * more than a small build, or a rebuild of a few hundred changed events, spends rendering.
 */
export class DeferredPool implements PageRenderer {
  private pool: PageRenderer | undefined;
  private asked = 0;
  private stopped = false;

  constructor(
    private readonly start: () => PageRenderer,
    readonly maxThreads: number,
    private readonly local: PageRenderer,
    private readonly startAfter: number,
  ) {}

  get threads(): number {
    return this.pool?.threads ?? 0;
  }

  render(cal: Calendar, event: FeedEvent, wants: EventWants): Promise<RenderedEvent> {
    return this.renderer(wants.page ? 1 : 0).render(cal, event, wants);
  }

  calendar(job: CalendarJob): Promise<CalendarPages> {
    // Half a page per event (`list` holds two numbers per event).
    return this.renderer(job.list.length / 4).calendar(job);
  }

  async stopThreads(): Promise<void> {
    this.stopped = true;
    await this.pool?.stopThreads();
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }

  // The workers once started; this thread until then, and after stopThreads().
  private renderer(pages: number): PageRenderer {
    this.asked += pages;
    if (!this.pool && !this.stopped && this.asked > this.startAfter) this.pool = this.start();
    return this.pool ?? this.local;
  }
}
