// ETag and Last-Modified validators and the 304 decision (RFC 9110 section 13).

import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** A strong ETag: a hash of the body, so equal bodies always share it. */
export function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/** If-None-Match uses weak comparison and may list several tags, or `*`. */
function etagMatches(header: string, etag: string): boolean {
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === '*' || t === etag);
}

/** Whether a GET with these headers gets 304. If-Modified-Since is ignored when If-None-Match is present. */
export function isNotModified(headers: IncomingHttpHeaders, etag: string, lastModified: number): boolean {
  const inm = headers['if-none-match'];
  if (inm !== undefined) return etagMatches(inm, etag);
  const ims = headers['if-modified-since'];
  if (ims === undefined) return false;
  const since = Date.parse(ims);
  return Number.isFinite(since) && lastModified <= since;
}

/** Whether a request carries a validator at all. */
export function isConditional(headers: IncomingHttpHeaders): boolean {
  return headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined;
}
