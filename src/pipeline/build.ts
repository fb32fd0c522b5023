// The pipeline: plan -> gather -> render -> build store -> publish -> record. Everything is staged
// beside --out and published in one step, so whatever fails on the way, --out stays as it was.

import type { LoadedConfig } from '../config/load.js';
import type { DetailsFailure } from '../crawl/index.js';
import { CalfeedError } from '../errors.js';
import { PortalClient } from '../http/index.js';
import type { Logger } from '../log.js';
import { acquireLock, outputFolder, recover } from '../publish/index.js';
import { manifestSha256 } from '../publish/intact.js';
import type { PreparedStore } from '../state/build-store.js';
import type { LastBuild } from '../state/last-build.js';
import { VERSION } from '../version.js';
import { unchangedReport } from './gather.js';
import { planBuild } from './plan.js';
import { SiteBuild } from './site-build.js';
import { httpOptions, withPortalSource, type PortalSource } from './source.js';
import { toSummary, type BuildSummary, type SummaryCounts } from './summary.js';

export interface BuildRun {
  loaded: LoadedConfig;
  log: Logger;
  /** "Now" for this build (the only clock read, done by the caller). */
  now: number;
  /** Stops the build until its commit step begins; from then on it is not cancelled. */
  signal?: AbortSignal;
  /** Told when publishing reaches its commit step (no stopping from then) and when the new site is current. */
  onPhase?: (phase: 'committing' | 'published') => void;
}

/**
 * Build and publish the site; returns the summary, or throws a CalfeedError with nothing
 * published. Once the new site is current it returns (published: true), whatever fails after.
 */
export async function runBuild(run: BuildRun): Promise<BuildSummary> {
  const { config, token } = run.loaded;
  return withPortalSource({ config, token, now: run.now, log: run.log, doing: 'building from' }, (source) => buildFrom(run, source));
}

async function buildFrom(run: BuildRun, source: PortalSource): Promise<BuildSummary> {
  const { log, signal } = run;
  const { config } = run.loaded;
  const started = performance.now();
  const outDir = await outputFolder(config.out);
  if (config.siteUrlIsDefault) log.info(`Links point at ${config.siteUrl}; set --site-url (CALFEED_SITE_URL) to where the folder will be served.`);
  const lock = await lockOutput(outDir, log);
  const client = new PortalClient(
    httpOptions(config, source, {
      userAgent: `calfeed/${VERSION} (+https://github.com/calfeed/calfeed)`,
      signal,
      onRetry: (r) => log.info(`retry ${r.attempt} of ${r.url} in ${Math.round(r.waitMs)} ms: ${r.reason}`),
      onWarning: (m) => log.warn(m),
    }),
  );
  const summary = (counts: SummaryCounts): BuildSummary => {
    const durationMs = performance.now() - started;
    return toSummary({ source, out: config.out, http: client.stats, warnings: log.warnings, durationMs }, counts);
  };
  let build: SiteBuild | undefined;
  try {
    const plan = await planBuild({ run, source, client, outDir });
    if (plan.upToDate) return summary(upToDateCounts(run, plan.record, plan.failures));
    // The portal data's warnings, from here on, are what a rebuild that finds nothing changed repeats.
    const dataWarningsFrom = log.warnings.length;
    const site = (build = await SiteBuild.start(run, plan, outDir, source.timeZone));
    const gathered = await site.gather(client, started);
    const rendered = await site.render(gathered);
    await site.prepareStore(gathered, rendered);
    const published = await site.publish(outDir, gathered, rendered);
    // The new site is current: saving the state is best effort, nothing may fail this build now.
    await saveState(run, outDir, site.takePrepared(), (manifest) => site.record(gathered, rendered, published.files, manifest, dataWarningsFrom));
    for (const warning of rendered.warnings) log.warn(warning);
    return summary(site.counts(gathered, rendered, published));
  } catch (error) {
    await build?.release();
    if (signal?.aborted && !(error instanceof CalfeedError && error.code === 'INTERRUPTED')) {
      throw new CalfeedError('INTERRUPTED', `Build interrupted; ${config.out} was left as it was.`, { cause: error });
    }
    throw error;
  } finally {
    await client.close().catch(() => undefined);
    await lock.release().catch(() => undefined);
  }
}

/** The lock on --out, then recovery from a build killed before (only the lock holder may touch its staging folders). */
async function lockOutput(outDir: string, log: Logger): Promise<{ release(): Promise<void> }> {
  const lock = await acquireLock(outDir);
  if (lock.note) log.info(lock.note);
  try {
    for (const note of await recover(outDir)) log.info(note);
  } catch (error) {
    await lock.release();
    throw error;
  }
  return lock;
}

/**
 * After the commit: add this build's record to the prepared store and make it current in one
 * rename. A failure is a warning: the last store's record does not vouch for the new --out.
 */
async function saveState(run: BuildRun, outDir: string, prepared: PreparedStore, record: (manifest: string) => LastBuild): Promise<void> {
  try {
    const manifest = await manifestSha256(outDir);
    await prepared.commit(manifest === undefined ? null : record(manifest));
  } catch (error) {
    await prepared.discard().catch(() => undefined);
    const why = error instanceof Error ? error.message : String(error);
    run.log.warn(`The new site is published, but saving the build state in ${run.loaded.config.cacheDir} failed (${why}); the next build redoes what it cannot trust.`);
  }
}

/** The counts of a rebuild that found nothing changed, with the last build's warnings given again. */
function upToDateCounts(run: BuildRun, record: LastBuild, failures: DetailsFailure[]): SummaryCounts {
  for (const warning of [...record.warnings, ...record.siteWarnings]) run.log.warn(warning);
  const { calendars, events, unreadable, eventFiles, calendarFiles, files } = record.counts;
  return {
    upToDate: true,
    published: false,
    calendars,
    events,
    unreadable,
    report: unchangedReport(calendars, events, record.lists, failures),
    history: { new: 0, changed: 0, removed: 0 },
    eventFiles: { rendered: 0, kept: eventFiles },
    calendarFiles: { rendered: 0, kept: calendarFiles },
    files: { written: 0, unchanged: files, removed: 0, files },
  };
}
