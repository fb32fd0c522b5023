// The end-of-build summary: one object for --json, one short block of text for people.

import type { CrawlReport } from '../crawl/index.js';
import type { PublishResult } from '../publish/index.js';
import type { PortalSource } from './source.js';
import { redact } from '../http/index.js';

export interface BuildSummary {
  ok: true;
  /**
   * True when this build made --out the new site (its commit step happened); false when it left
   * --out as it was: up to date, or the build made the very files --out holds. A failed build's
   * --json object has false too.
   */
  published: boolean;
  /** The portal base URL (token redacted), or "demo". */
  source: string;
  demo: boolean;
  out: string;
  /**
   * True when the portal reported no change and --out was still as published, so the build left
   * it as it was without reading or rendering anything (see up-to-date.ts).
   */
  upToDate: boolean;
  calendars: number;
  events: number;
  /** Listed events that could not be read (no id, no start, bad time), skipped with a warning each. */
  unreadable: number;
  details: { fetched: number; notModified: number; reused: number; failed: number };
  requests: { total: number; retries: number; notModified: number; bytes: number };
  changes: { newEvents: number; changedEvents: number; removedEvents: number };
  /** Event pages and .ics files rendered anew, or kept because nothing they show changed. */
  eventFiles: { rendered: number; kept: number };
  /**
   * Calendar-level files (each calendar's calendar.ics, feeds and pages) and the combined
   * calendar.ics, feeds and index.html, rendered anew or kept because nothing they are rendered from
   * changed; counted in files.
   */
  calendarFiles: { rendered: number; kept: number };
  files: PublishResult;
  warnings: string[];
  durationMs: number;
}

/** What a summary says besides the counts: where from, where to, HTTP stats, warnings, duration. */
export interface SummaryContext {
  source: Pick<PortalSource, 'demo' | 'baseUrl' | 'token'>;
  out: string;
  http: { requests: number; retries: number; notModified: number; bytes: number };
  warnings: readonly string[];
  durationMs: number;
}

/** What a finished build counted; the fields the summary shows as they are come from it unchanged. */
export interface SummaryCounts
  extends Pick<BuildSummary, 'upToDate' | 'published' | 'calendars' | 'events' | 'unreadable' | 'eventFiles' | 'calendarFiles' | 'files'> {
  report: CrawlReport;
  history: { new: number; changed: number; removed: number };
}

/** Assemble the summary from the parts of a finished build. */
export function toSummary(context: SummaryContext, input: SummaryCounts): BuildSummary {
  const { source, http } = context;
  return {
    ok: true,
    published: input.published,
    // The token redacted in every form redact() knows.
    source: source.demo ? 'demo' : redact(source.baseUrl, source.token),
    demo: source.demo,
    out: context.out,
    upToDate: input.upToDate,
    calendars: input.calendars,
    events: input.events,
    unreadable: input.unreadable,
    details: {
      fetched: input.report.detailsFetched,
      notModified: input.report.detailsNotModified,
      reused: input.report.detailsReused,
      failed: input.report.detailsFailed.length,
    },
    requests: { total: http.requests, retries: http.retries, notModified: http.notModified, bytes: http.bytes },
    changes: { newEvents: input.history.new, changedEvents: input.history.changed, removedEvents: input.history.removed },
    eventFiles: { ...input.eventFiles },
    calendarFiles: { ...input.calendarFiles },
    files: input.files,
    warnings: [...context.warnings],
    durationMs: Math.round(context.durationMs),
  };
}

/** The summary as a few lines for the log. */
export function formatSummary(s: BuildSummary): string {
  const from = s.demo ? 'the embedded demo portal' : s.source;
  const seconds = (s.durationMs / 1000).toFixed(1);
  return [
    s.upToDate
      ? `${s.out} is up to date with ${from}: nothing changed since the last build (checked in ${seconds} s, nothing written)`
      : s.published
        ? `Built ${s.out} from ${from} in ${seconds} s`
        : `Built from ${from} in ${seconds} s the very files ${s.out} holds: left as it was, nothing written`,
    `  calendars ${s.calendars}, events ${s.events} (new ${s.changes.newEvents}, changed ${s.changes.changedEvents}, removed ${s.changes.removedEvents})` +
      (s.unreadable > 0 ? `, ${s.unreadable} unreadable (skipped)` : ''),
    `  details fetched ${s.details.fetched}, not modified ${s.details.notModified}, reused ${s.details.reused}, failed ${s.details.failed}`,
    `  requests ${s.requests.total} (retries ${s.requests.retries}, 304s ${s.requests.notModified})`,
    `  event pages rendered ${s.eventFiles.rendered}, kept ${s.eventFiles.kept}`,
    `  calendar files rendered ${s.calendarFiles.rendered}, kept ${s.calendarFiles.kept}`,
    `  files written ${s.files.written}, unchanged ${s.files.unchanged}, removed ${s.files.removed}, total ${s.files.files}`,
    `  warnings ${s.warnings.length}`,
  ].join('\n');
}
