// Writing and publishing the output folder: lock, recover, stage every file, publish. The build
// drives them in this order (src/pipeline/build.ts, site-build.ts).

import { paths } from '../paths.js';
import { renderRobots, renderSitemaps } from '../render/sitemap.js';
import { renderHeaders } from './headers.js';
import { manifestChunks } from './manifest.js';
import type { Staging } from './staging.js';

export { acquireLock } from './lock.js';
export { shrinkReason } from './shrink-guard.js';
export { outputFolder } from './siblings.js';
export { PublishedManifest } from './published-manifest.js';
export { createStaging, discard, sameAsPublished, setAside, type Staging } from './staging.js';
export { publish, type PublishResult } from './swap.js';
export { recover } from './recover.js';

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
  await staging.writeChunks(paths.manifest(), manifestChunks(staging.files(), calendars, meta));
}
