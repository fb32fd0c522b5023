// The crawler's public surface.
export { crawl, type CalendarResult, type CrawlOptions, type CrawlProgress, type CrawlReport, type CrawlSink, type DetailsFailure } from './crawl.js';
export type { ListedEvent } from './listed.js';
export { CrawlCache, entryHash, sha256, type DocEntry, type EventEntry, type PageEntry } from './cache.js';
export { asSinglePage, firstPageUrl, linkHeaderNext, nextPageUrl, type PagingConfig } from './paging.js';
export type { DocSource, ListDoc } from './list.js';
export { probeFailedDetails, probeLists, type ListRecord, type ProbeResult } from './probe.js';
