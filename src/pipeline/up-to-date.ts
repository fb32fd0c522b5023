// Telling a rebuild that would change nothing before reading or rendering anything: when the
// settings, templates, runtime and --out are as the record says, "now" has not passed its
// stableUntil, and the portal says no list changed, the build would publish what --out holds.

import { createHash } from 'node:crypto';
import type { ResolvedConfig } from '../config/resolve.js';
import { probeFailedDetails, probeLists, type DetailsFailure, type ProbeResult } from '../crawl/index.js';
import type { PortalClient } from '../http/index.js';
import { outputDiffers } from '../publish/intact.js';
import { PublishedManifest } from '../publish/published-manifest.js';
import { MAX_RECORDED_WARNINGS, type LastBuild } from '../state/last-build.js';
import { VERSION } from '../version.js';
import { dateDataVersions } from './render-keys.js';

export interface InputsOf {
  config: ResolvedConfig;
  /** The portal this build reads: its base URL, or "embedded demo". */
  portal: string;
  /** The time zone in effect (the demo's, when the demo is built without one). */
  timeZone: string;
  /** HtmlRenderer.fingerprint of the templates in effect. */
  templates: string;
  /** The resolved output folder. */
  outDir: string;
  token: string | undefined;
}

/**
 * Fingerprint of all a build's output depends on but the portal's data and "now": settings (not those
 * that only change what it prints or its threads), templates, token (hashed), versions and date data.
 */
export function buildInputs(of: InputsOf): string {
  const { command: _command, json: _json, quiet: _quiet, verbose: _verbose, threads: _threads, ...settings } = of.config;
  const token = of.token === undefined ? null : createHash('sha256').update(of.token).digest('hex');
  const parts = [VERSION, process.version, ...dateDataVersions(), of.portal, of.timeZone, of.templates, of.outDir, token, settings];
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
}

/** --out already holds what this build would publish: the last build's record, and the details that still fail. */
export interface UpToDatePlan {
  upToDate: true;
  record: LastBuild;
  failures: DetailsFailure[];
}

export type UpToDate =
  | UpToDatePlan
  | {
      upToDate: false;
      why: string;
      /** What the probe of the lists learnt, when it ran (the crawl does not ask again). */
      probe?: ProbeResult;
      /** The last build's record, when the settings are the same and --out as it published it (its store may stand in). */
      intact?: LastBuild;
    };

export interface UpToDateCheck {
  record: LastBuild | undefined;
  /** buildInputs() of this build. */
  inputs: string;
  now: number;
  outDir: string;
  /** --out's manifest.json as this build reads it, once (shared with staging); by default read here. */
  published?: PublishedManifest;
  client: PortalClient;
  signal?: AbortSignal;
}

/** Whether this build would publish exactly what --out holds; if not, why (and what the probe learnt). */
export async function checkUpToDate(check: UpToDateCheck): Promise<UpToDate> {
  const { record, now } = check;
  if (!record) return { upToDate: false, why: 'no record of a last build' };
  if (record.inputs !== check.inputs) return { upToDate: false, why: 'settings, templates, token or calfeed changed since the last build' };
  if (now < record.builtAt) return { upToDate: false, why: 'the clock is earlier than at the last build' };
  if (record.warnings.length > MAX_RECORDED_WARNINGS) return { upToDate: false, why: `the last build gave more than ${MAX_RECORDED_WARNINGS} warnings, more than a rebuild repeats` };
  const differs = await outputDiffers(check.published ?? new PublishedManifest(check.outDir), record.manifest);
  if (differs) return { upToDate: false, why: `the output folder changed since the last build: ${differs}` };
  if (record.detailsDueAt !== null && now >= record.detailsDueAt) {
    return { upToDate: false, why: "some events' details are due for a check (--details-max-age)", intact: record };
  }
  const probe = await probeLists(check.client, record.lists, check.signal);
  if (probe.changed) return { upToDate: false, why: `${probe.changed.why} since the last build`, probe, intact: record };
  const retried = await probeFailedDetails(check.client, record.failedDetails, check.signal);
  if (retried.readable) return { upToDate: false, why: retried.readable, probe, intact: record };
  if (record.stableUntil !== null && now >= record.stableUntil) {
    const why = 'nothing changed at the portal, but time moved on: an event started or ended, a day began, or a cancellation expired';
    return { upToDate: false, why, probe: { ...probe, failing: retried.failures }, intact: record };
  }
  return { upToDate: true, record, failures: retried.failures };
}
