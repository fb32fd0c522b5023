// Worker thread entry: events' files rendered for the main thread (see event-thread.ts), a batch
// at a time. Its pages come back as UTF-8 bytes in one transferred buffer, ready to be written.

import { parentPort, workerData } from 'node:worker_threads';
import type { Calendar, SiteContext } from '../model.js';
import { clockAt } from '../render/clock.js';
import { createRenderContext } from '../render/context.js';
import { htmlRenderer, type TemplateSources } from '../render/html/index.js';
import { PageRenderer } from './page-render.js';

export interface EventThreadData {
  templates: TemplateSources;
  /** The build's settings; an event's files never show "now" but its feed items stop at its end. */
  site: Omit<SiteContext, 'clock'>;
  now: number;
}

export interface EventBatch {
  id: number;
  /** Calendars not sent before: [number, JSON]. */
  calendars: Array<[number, string]>;
  /** [calendar number, event JSON, page wanted, feed items wanted]. */
  events: Array<[number, string, boolean, boolean]>;
}

export interface EventReply {
  id: number;
  /** The pages' bytes, end to end. */
  pages: ArrayBuffer;
  /** Per event: its page's byte length (-1: none), its VEVENT, its feed items. */
  events: Array<[number, string, string]>;
}

const { templates, site, now } = workerData as EventThreadData;
const renderer = new PageRenderer(createRenderContext(), htmlRenderer(templates), { ...site, clock: clockAt(now) });
const calendars = new Map<number, Calendar>();
const encoder = new TextEncoder();
const port = parentPort!;

port.on('message', (batch: EventBatch) => {
  for (const [key, json] of batch.calendars) calendars.set(key, JSON.parse(json) as Calendar);
  const pages: string[] = [];
  const events = batch.events.map(([key, json, page, items]): [number, string, string] => {
    const rendered = renderer.render(calendars.get(key)!, JSON.parse(json), { page, items });
    if (rendered.page === undefined) return [-1, rendered.vevent, rendered.items];
    pages.push(rendered.page as string);
    return [Buffer.byteLength(rendered.page), rendered.vevent, rendered.items];
  });
  const bytes = encoder.encode(pages.join(''));
  port.postMessage({ id: batch.id, pages: bytes.buffer as ArrayBuffer, events } satisfies EventReply, [bytes.buffer as ArrayBuffer]);
});
