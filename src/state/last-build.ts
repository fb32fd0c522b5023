// The build record, the build store's last line: what the last published build was made from and until when
// it stays right, so that a rebuild can tell that nothing changed from a few conditional requests
// and a look at --out, without reading or rendering anything (src/pipeline/up-to-date.ts).
//
// Like the rest of the store it can only ever save work: it is written after the publish, and
// anything missing or not matching (another --out, other settings, a changed manifest.json) means
// a normal build.

import type { ListRecord } from '../crawl/index.js';
import { isObject } from '../normalize/record.js';

/**
 * A rebuild that renders nothing repeats the last build's warnings from the record; past this
 * many it could not repeat them all, so such a build is never up to date (it reads everything).
 */
export const MAX_RECORDED_WARNINGS = 1000;

export interface LastBuild {
  /** Fingerprint of everything besides the portal's data and "now" that the output depends on (the store's header). */
  inputs: string;
  /** The build's "now" (epoch ms). */
  builtAt: number;
  /**
   * The first instant at which the same data would render differently: an event starts or ends,
   * leaves the iCalendar window, a day begins, or a removed event's cancellation expires. Epoch
   * ms; null: never.
   */
  stableUntil: number | null;
  /** From when some event's details are due for a check (--details-max-age); null: never. */
  detailsDueAt: number | null;
  /**
   * Events whose details could not be read ([calendar id, event id]); published from their list
   * entries. The next build asks for them again first: while they still fail it may be up to date.
   */
  failedDetails: Array<[string, string]>;
  /** SHA-256 (hex) of --out/manifest.json as published. */
  manifest: string;
  /** The lists the build was made from, the calendar list first. */
  lists: ListRecord[];
  /** What the build's summary said, for a rebuild that changes nothing to say again. */
  counts: { calendars: number; events: number; unreadable: number; eventFiles: number; calendarFiles: number; files: number };
  /** The portal data's warnings: repeated by a rebuild that renders nothing. */
  warnings: string[];
  /** Warnings about the site as built at builtAt (siteWarnings in src/pipeline/placeless.ts): repeated only by a rebuild that renders nothing, until stableUntil. */
  siteWarnings: string[];
}

/** The record in the build store (made for `inputs`), or undefined when anything in it is not as a build writes it. */
export function parseLastBuild(doc: unknown, inputs: string): LastBuild | undefined {
  if (!isObject(doc)) return undefined;
  const { builtAt, stableUntil, detailsDueAt, failedDetails, manifest, lists, counts, warnings, siteWarnings } = doc;
  if (typeof builtAt !== 'number' || typeof manifest !== 'string') return undefined;
  if (!isInstant(stableUntil) || !isInstant(detailsDueAt)) return undefined;
  if (!Array.isArray(failedDetails) || !failedDetails.every(isIdPair)) return undefined;
  if (!Array.isArray(lists) || lists.length === 0 || !lists.every(isListRecord)) return undefined;
  if (!isStrings(warnings) || !isStrings(siteWarnings)) return undefined;
  if (!isObject(counts) || !['calendars', 'events', 'unreadable', 'eventFiles', 'calendarFiles', 'files'].every((k) => typeof counts[k] === 'number')) return undefined;
  return {
    inputs,
    builtAt,
    stableUntil,
    detailsDueAt,
    failedDetails,
    manifest,
    lists,
    counts: counts as LastBuild['counts'],
    warnings,
    siteWarnings,
  };
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((w) => typeof w === 'string');
}

function isIdPair(value: unknown): value is [string, string] {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string';
}

function isListRecord(value: unknown): value is ListRecord {
  if (!isObject(value) || typeof value['mirrorPath'] !== 'string' || !isObject(value['entry'])) return false;
  const { sha256, pages } = value['entry'];
  return (
    typeof sha256 === 'string' &&
    Array.isArray(pages) &&
    pages.length > 0 &&
    pages.every(
      (p) =>
        isObject(p) &&
        typeof p['url'] === 'string' &&
        typeof p['sha256'] === 'string' &&
        (p['etag'] === undefined || typeof p['etag'] === 'string') &&
        (p['lastModified'] === undefined || typeof p['lastModified'] === 'string'),
    )
  );
}

function isInstant(value: unknown): value is number | null {
  return value === null || (typeof value === 'number' && Number.isFinite(value));
}
