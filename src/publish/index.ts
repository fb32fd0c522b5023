// Writing and publishing the output folder. Typical use by the build:
//
//   const lock = await acquireLock(out);            // refuses a second build (LOCKED)
//   try {
//     for (const note of await recover(out)) log(note);
//     const reason = shrinkReason(await readManifest(out), counts);   // before createStaging
//     const staging = await createStaging(out);
//     try {
//       await staging.write(paths.calendarsMirror(), body);  ... every output file ...
//       await writeSiteMeta(staging, calendars, { generator: `calfeed ${version}` });
//       const result = await publish(staging, out);
//     } catch (e) { await discard(staging); throw e; }
//   } finally { await lock.release(); }

import { paths } from '../paths.js';
import { renderRobots, renderSitemaps } from '../render/sitemap.js';
import { renderHeaders } from './headers.js';
import { manifestChunks } from './manifest.js';
import type { Staging } from './staging.js';

export { contentTypeFor, type FileKind, isMirrorPath, kindOf } from './content-types.js';
export { CACHE_CONTROL, type HeaderRule, headerRules, headersForPath, renderHeaders } from './headers.js';
export { acquireLock, DEFAULT_LOCK_MAX_AGE_MS, type LockOptions, type OutputLock } from './lock.js';
export { type Manifest, type ManifestCalendar, type ManifestFile, MANIFEST_FORMAT, renderManifest, manifestChunks } from './manifest.js';
export { parseManifest, readManifest, scanManifest, type ManifestConsumer } from './manifest-read.js';
export { shrinkReason } from './shrink-guard.js';
export { assertSafeRelPath } from './rel-path.js';
export { outputFolder } from './siblings.js';
export { PublishedManifest } from './published-manifest.js';
export { assertReplaceable } from './replaceable.js';
export { createStaging, discard, sameAsPublished, setAside, type StagedFile, type Staging, type StagingOptions } from './staging.js';
export { publish, type PublishOptions, type PublishResult, type SwapStep } from './swap.js';
export { recover } from './recover.js';
export { contentProblem, icalProblem } from './content-check.js';
export { verifyStaging, type VerifyOptions } from './verify.js';
export { xmlProblem } from './xml-check.js';

/** Write sitemap.xml (with its parts) and robots.txt for the pages staged; call after every page is. */
export async function writeSearchIndexes(staging: Staging, siteUrl: string): Promise<void> {
  for (const [relPath, xml] of renderSitemaps(siteUrl, staging.files().keys())) await staging.write(relPath, xml);
  await staging.write(paths.site('robots.txt'), renderRobots(siteUrl));
}

/** Write _headers, then manifest.json listing every staged file; call after all other files are written. */
export async function writeSiteMeta(
  staging: Staging,
  calendars: ReadonlyArray<{ id: string; slug: string; title: string; events: number }>,
  meta: { generator: string },
): Promise<void> {
  await staging.write(paths.headers(), renderHeaders());
  // Streamed from the table in 64 KB pieces: at 100,000 events the manifest is 75 MB.
  await staging.writeChunks(paths.manifest(), manifestChunks(staging.files(), calendars, meta));
}
