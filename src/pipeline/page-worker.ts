// Worker thread entry: renders for the main thread (page-pool.ts) from the same templates, so its
// output is byte for byte the same.

import { parentPort, workerData } from 'node:worker_threads';
import { CalfeedError } from '../errors.js';
import type { Calendar, FeedEvent, SiteContext } from '../model.js';
import { createRenderContext } from '../render/context.js';
import { loadHtmlRenderer } from '../render/html/index.js';
import { type CalendarJob, pagesTransfer, renderCalendar, renderEvent, type EncodedPages, type EventWants } from './page-pool.js';

export interface PageWorkerData {
  templates: string | undefined;
  site: SiteContext;
}

export type PageJob =
  | {
      kind: 'event';
      id: number;
      cal: Calendar;
      event: FeedEvent;
      wants: EventWants;
    }
  | { kind: 'calendar'; id: number; job: CalendarJob };

export type PageReply =
  | { id: number; page?: string; vevent: string; items: string }
  | { id: number; files: EncodedPages }
  | { id: number; error: { message: string; code?: string } };

const { templates, site } = workerData as PageWorkerData;
const port = parentPort!;
const html = await loadHtmlRenderer(templates);
const ctx = createRenderContext();

// Jobs come in batches (a turn of the main thread's event loop: one message, not one per event), and
// their replies go back as one.
port.on('message', (jobs: PageJob[]) => {
  const done = jobs.map(run);
  port.postMessage(
    done.map((d) => d.reply),
    done.flatMap((d) => d.transfer),
  );
});

function run(job: PageJob): { reply: PageReply; transfer: ArrayBuffer[] } {
  try {
    if (job.kind === 'event') return { reply: { id: job.id, ...renderEvent(ctx, html, site, job.cal, job.event, job.wants) }, transfer: [] };
    const files = renderCalendar(ctx, html, site, job.job);
    return { reply: { id: job.id, files }, transfer: pagesTransfer(files) };
  } catch (error) {
    // Only calfeed's own error codes cross over; anything else is a BUILD error on the other side.
    const code = error instanceof CalfeedError ? error.code : undefined;
    return { reply: { id: job.id, error: { message: (error as Error).message, ...(code ? { code } : {}) } }, transfer: [] };
  }
}
