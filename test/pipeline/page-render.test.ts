// The build's page renderer: an event's files and a calendar's feeds and pages, the latter from the
// spool file, must be what the renderers make of whole events.
import { mkdtempSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Calendar, FeedEvent, SiteContext } from '../../src/model.js';
import { PageRenderer, type CalendarJob } from '../../src/pipeline/page-render.js';
import { EventSpool, itemSpans, spans } from '../../src/pipeline/spool.js';
import { ownClock } from '../../src/render/clock.js';
import { createRenderContext } from '../../src/render/context.js';
import { loadHtmlRenderer } from '../../src/render/html/index.js';
import type { PageText } from '../../src/render/html/messages.js';
import { veventText } from '../../src/render/ical/index.js';
import { feedItems } from '../../src/render/syndication/index.js';
import { sampleCalendar, sampleEvent, sampleSite } from '../fixtures/sample.js';
import { calendarPages, feedTexts, newestStamp, renderSyndication, selectFeedEvents } from '../support/render.js';

const ctx = createRenderContext();

/**
 * A calendar job for `events`, spooled into a spool file in a folder of its own in `dir` as a build
 * spools them; every other event without its feed items, as one that had ended when spooled.
 */
function spooledJob(dir: string, cal: Calendar, events: FeedEvent[], site: SiteContext, text: PageText): CalendarJob {
  const spool = EventSpool.create(mkdtempSync(path.join(dir, 'job-')));
  const facts = { start: 0, end: 0, stamp: 0, pageStart: 0, pageEnd: 0, cancelled: false, placeless: false, categories: [] };
  const spooled = (e: FeedEvent, i: number) => ({ vevent: veventText(ctx, e, site), items: i % 2 ? feedItems(ctx, e, cal.timeZone, site, text) : '', record: '{}' });
  const refs = new Map(events.map((e, i) => [e.id, spool.add(e, spooled(e, i), facts)]));
  const selected = selectFeedEvents(ctx, events, [cal], site);
  const feed = selected.map((e) => refs.get(e.id)!);
  return { cal, calendars: [cal], read: spool.text, list: spans([...refs.values()]), feed: itemSpans(feed), updated: newestStamp(selected.length ? selected : events) };
}

describe('page renderer', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'calfeed-pages-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("renders an event's VEVENT, and its page and feed items only when asked for", async () => {
    const site = sampleSite();
    const html = await loadHtmlRenderer();
    const pages = new PageRenderer(ctx, html, site);
    const cal = sampleCalendar();
    const events = Array.from({ length: 12 }, (_, i) => sampleEvent({ id: `e${i}`, slug: `e${i}`, title: `Talk ${i} <b>ĄČ</b> 🌳` }));
    events.forEach((e, i) => {
      const r = pages.render(cal, e, { page: i % 3 !== 0, items: i % 2 === 0 });
      expect(r.vevent).toBe(veventText(ctx, e, site));
      expect(r.items).toBe(i % 2 === 0 ? feedItems(ctx, e, cal.timeZone, site, html.text(site)) : '');
      if (i % 3 === 0) expect(r.page).toBeUndefined();
      else expect(r.page).toBe(html.event(ctx, cal, e, site));
    });
  });

  it("renders a calendar's feeds and pages from the spool as the renderers do from whole events, and until when they hold", async () => {
    const site = sampleSite();
    const html = await loadHtmlRenderer();
    const cal = sampleCalendar();
    const events = Array.from({ length: 30 }, (_, i) => sampleEvent({ id: `e${i}`, slug: `e${i}`, title: `Talk ${i} <b>ĄČ</b> 🌳` }));
    const job = spooledJob(dir, cal, events, site, html.text(site));
    // From the spool only the feeds' items are read whole and the list pages get ListEvents; until
    // when they hold is what the renderers' clock recorded (the sample's next start or end, or
    // midnight in Vilnius).
    const own = ownClock(site);
    const expected = { ...renderSyndication(ctx, cal, [cal], events, own, html.text(own)), ...calendarPages(html, ctx, cal, events, own), changesAt: own.clock.changesAt };
    expect(expected.changesAt).toBeGreaterThan(site.clock.now);
    expect(expected.changesAt).toBeLessThanOrEqual(Date.UTC(2026, 2, 20, 22, 0));
    expect(expected.rss).toContain('Talk 29');
    expect(expected.index).toContain('Talk 29');
    // The index and past pages come in pieces, rendered as they are iterated: changesAt is read after them, as the build does.
    const got = new PageRenderer(ctx, html, site).calendar(job);
    const index = [...got.index].join('');
    const past = [...got.past].join('');
    expect({ ...got, ...feedTexts(got), index, past, changesAt: got.changesAt }).toEqual(expected);
  });

  it('fails a render with the template error, named, when a user template breaks; a VEVENT alone still renders', async () => {
    const templates = path.join(dir, 'broken');
    await mkdir(path.join(templates, 'pages'), { recursive: true });
    await writeFile(path.join(templates, 'pages', 'event.hbs'), '{{token}}');
    const pages = new PageRenderer(ctx, await loadHtmlRenderer(templates), sampleSite());
    expect(() => pages.render(sampleCalendar(), sampleEvent(), { page: true, items: true })).toThrow(expect.objectContaining({ name: 'CalfeedError', code: 'BUILD', message: expect.stringMatching(/event/) }));
    expect(pages.render(sampleCalendar(), sampleEvent(), { page: false, items: false }).vevent).toContain('BEGIN:VEVENT');
  });
});
