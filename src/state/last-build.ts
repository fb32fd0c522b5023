// The build record, the build store's last line: what the last published build was made from and
// until when it stays right, so a rebuild can tell nothing changed from a few conditional requests
// (src/pipeline/up-to-date.ts). Anything missing or not matching means a normal build.

import type { ListRecord } from '../crawl/index.js';
import { isObject } from '../normalize/record.js';

/** Past this many warnings a rebuild could not repeat them all from the record: it is never up to date. */
export const MAX_RECORDED_WARNINGS = 1000;

export interface LastBuild {
  /** Fingerprint of everything besides the portal's data and "now" that the output depends on (the store's header). */
  inputs: string;
  /** The build's "now" (epoch ms). */
  builtAt: number;
  /** The first instant at which the same data would render differently (epoch ms; null: never). */
  stableUntil: number | null;
  /** From when some event's details are due for a check (--details-max-age); null: never. */
  detailsDueAt: number | null;
  /** Events whose details could not be read ([calendar id, event id]): the next build asks again first. */
  failedDetails: Array<[string, string]>;
  /** SHA-256 (hex) of --out/manifest.json as published. */
  manifest: string;
  /** The lists the build was made from, the calendar list first. */
  lists: ListRecord[];
  /** What the build's summary said, for a rebuild that changes nothing to say again. */
  counts: { calendars: number; events: number; unreadable: number; eventFiles: number; calendarFiles: number; files: number };
  /** The portal data's warnings: repeated by a rebuild that renders nothing. */
  warnings: string[];
  /** Warnings about the site as built (placeless.ts): repeated by a rebuild that renders nothing. */
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

/** Whether a parsed value is an array of strings. */
export function isStrings(value: unknown): value is string[] {
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
