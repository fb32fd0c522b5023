// What a build does, decided before it reads a list or renders a page: nothing (--out is up to
// date), or crawl the portal, taking what still stands from the build store (when only "now" moved
// since the last build, every event does).

import type { ProbeResult } from '../crawl/index.js';
import type { PortalClient } from '../http/index.js';
import { PublishedManifest } from '../publish/index.js';
import { htmlRenderer, readTemplates, type HtmlRenderer } from '../render/html/index.js';
import { BuildStore, type StoreSections } from '../state/build-store.js';
import type { BuildRun } from './build.js';
import type { PortalSource } from './source.js';
import { buildInputs, checkUpToDate, type UpToDatePlan } from './up-to-date.js';

/** A build that renders and publishes. */
export interface RenderPlan {
  upToDate: false;
  html: HtmlRenderer;
  /** buildInputs() of this build. */
  inputs: string;
  /** What the store is keyed by: the base URL, or "embedded demo" (a new port each run). */
  portal: string;
  store: BuildStore;
  /** --out's manifest as this build found it, read once, shared by every step that needs it. */
  published: PublishedManifest;
  /** What the up-to-date check's probe of the lists learnt (the crawl does not ask again). */
  probe: ProbeResult | undefined;
  /** What the store holds besides its record; its saved events only when its record vouches for --out. */
  sections: StoreSections;
}

export interface PlanInput {
  run: BuildRun;
  source: PortalSource;
  client: PortalClient;
  outDir: string;
}

/** Read the build store and --out's manifest, ask the portal whether anything changed, and decide. */
export async function planBuild({ run, source, client, outDir }: PlanInput): Promise<UpToDatePlan | RenderPlan> {
  const { config } = run.loaded;
  const { log } = run;
  const portal = source.demo ? 'embedded demo' : source.baseUrl;
  const templates = await readTemplates(config.templates);
  const inputs = buildInputs({ config, portal, timeZone: source.timeZone, templates: templates.fingerprint, outDir, token: source.token });
  const store = await BuildStore.open(config.cacheDir);
  // Read once, after recover() (which may have put the last output back), by whoever asks first.
  const published = new PublishedManifest(outDir);
  const check = await checkUpToDate({ record: store.record, inputs, now: run.now, outDir, published, client, signal: run.signal });
  run.signal?.throwIfAborted();
  if (check.upToDate) return check;
  // Compiled only now: the check needs their fingerprint alone, and asks the portal nothing unless
  // the inputs are the last published build's, which compiled these very templates.
  const html = htmlRenderer(templates);
  if (store.record) log.info(`Building: ${check.why}.`);

  // The last build's events only when its output and state are current (checkUpToDate).
  const { sections, note } = store.load(portal, check.intact !== undefined);
  const storeNote = store.note ?? note;
  // That there is no store yet is calfeed's own business; that one is damaged, from another version
  // or another portal explains a slower, fuller build.
  if (storeNote && store.missing) log.debug(`build store: ${storeNote}`);
  else if (storeNote) log.info(`build store: ${storeNote}`);
  return { upToDate: false, html, inputs, portal, store, published, probe: check.probe, sections };
}
