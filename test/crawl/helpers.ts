// A sink that keeps the mirror in memory the way the build keeps it on disk, and a one-call crawl.

import { CrawlCache, crawl, type CalendarResult, type CrawlOptions, type CrawlReport, type CrawlSink, type DocSource, type ListDoc, type ListedEvent } from '../../src/crawl/index.js';
import { PortalClient, type HttpOptions } from '../../src/http/client.js';
import { paths } from '../../src/paths.js';

/** Records every call; `publish()` makes this crawl's output what the next crawl sees as published. */
export class MemorySink implements CrawlSink {
  store = new Map<string, Buffer>();
  written = new Map<string, Buffer>();
  calls: string[] = [];
  sources = new Map<string, DocSource>();
  failed: Array<{ calendarId: string; eventId: string; error: Error }> = [];
  warnings: string[] = [];
  lists = new Map<string, ListDoc>();
  /** Every onCalendar, in order. */
  results: CalendarResult[] = [];
  /** Whether the sink has a row that stands for an event (none by default), and the events asked about. */
  rows: (calendarId: string, eventId: string) => boolean = () => false;
  askedRows: string[] = [];
  private calendarSegments = new Map<string, string>();
  private eventSegments = new Map<string, Map<string, string>>();

  async published(relPath: string): Promise<Buffer | undefined> {
    return this.store.get(relPath);
  }

  async onCalendars(doc: ListDoc, segments: Map<string, string>): Promise<void> {
    this.calls.push('calendars');
    this.calendarSegments = segments;
    this.lists.set('', doc);
    this.write(paths.calendarsMirror(), doc.bytes, doc.source);
  }

  async onEvents(calendarId: string, doc: ListDoc, events: ReadonlyMap<string, ListedEvent>): Promise<void> {
    this.calls.push(`events ${calendarId}`);
    this.eventSegments.set(calendarId, new Map([...events].map(([id, e]) => [id, e.segment])));
    this.lists.set(calendarId, doc);
    this.write(paths.eventsMirror(this.calendarSegments.get(calendarId)!), doc.bytes, doc.source);
  }

  async onDetails(calendarId: string, eventId: string, doc: { bytes: Buffer; json: unknown; source: DocSource }): Promise<void> {
    this.calls.push(`details ${calendarId} ${eventId}`);
    JSON.stringify(doc.json); // the parsed JSON must be there, whatever the source
    this.write(this.detailsPath(calendarId, eventId), doc.bytes, doc.source);
  }

  async hasStoredRow(calendarId: string, eventId: string): Promise<boolean> {
    this.askedRows.push(`${calendarId} ${eventId}`);
    return this.rows(calendarId, eventId);
  }

  async onStored(calendarId: string, eventId: string): Promise<void> {
    this.calls.push(`stored ${calendarId} ${eventId}`);
    const path = this.detailsPath(calendarId, eventId);
    this.write(path, this.store.get(path)!, 'reused');
  }

  async onCalendar(result: CalendarResult): Promise<void> {
    this.calls.push(`done ${result.calendarId}`);
    this.results.push(result);
  }

  onDetailsFailed(calendarId: string, eventId: string, error: Error): void {
    this.calls.push(`failed ${calendarId} ${eventId}`);
    this.failed.push({ calendarId, eventId, error });
  }

  onWarning(message: string): void {
    this.warnings.push(message);
  }

  detailsPath(calendarId: string, eventId: string): string {
    return paths.detailsMirror(this.calendarSegments.get(calendarId)!, this.eventSegments.get(calendarId)!.get(eventId)!);
  }

  /** What a successful build does: this crawl's files become the published ones. */
  publish(): void {
    this.store = new Map(this.written);
    this.written = new Map();
    this.calls = [];
    this.sources = new Map();
    this.results = [];
    this.askedRows = [];
  }

  private write(relPath: string, bytes: Buffer, source: DocSource): void {
    this.written.set(relPath, Buffer.from(bytes));
    this.sources.set(relPath, source);
  }
}

export const TOKEN = 'crawl-token';

/** Client options for a test portal: deterministic waits, no real sleeping. */
export function clientFor(url: string, overrides: Partial<HttpOptions> = {}): PortalClient {
  return new PortalClient({
    baseUrl: url,
    token: TOKEN,
    auth: { mode: 'header', header: 'Authorization', scheme: 'Bearer', queryParam: 'access_token' },
    concurrency: 4,
    connectTimeoutMs: 5000,
    headersTimeoutMs: 5000,
    bodyTimeoutMs: 5000,
    requestTimeoutMs: 30_000,
    retries: 1,
    retryBaseMs: 10,
    retryMaxWaitMs: 1000,
    maxResponseBytes: 1024 * 1024,
    userAgent: 'calfeed-test',
    random: () => 0,
    sleep: async () => undefined,
    ...overrides,
  });
}

export const BASE_OPTIONS: CrawlOptions = {
  paging: { mode: 'auto', pageParam: 'page', firstPage: 1, maxPages: 1000 },
  maxCalendars: 100,
  maxEventsPerCalendar: 1000,
  maxFailedDetails: 0.05,
  detailsMaxAgeMs: 24 * 3600_000,
  now: Date.parse('2024-10-01T12:00:00Z'),
};

/** One crawl with a fresh client, closed afterwards. */
export async function runCrawl(
  url: string,
  cache: CrawlCache,
  sink: MemorySink,
  options: Partial<CrawlOptions> = {},
  client: Partial<HttpOptions> = {},
): Promise<{ report: CrawlReport; requests: number; maxInFlight: number }> {
  const c = clientFor(url, client);
  try {
    const report = await crawl(c, cache, { ...BASE_OPTIONS, ...options }, sink);
    return { report, requests: c.stats.requests, maxInFlight: c.maxInFlight };
  } finally {
    await c.close();
  }
}
