// What `calfeed init` writes. Pure: an inspection and the settings in, file text out.

import type { ResolvedConfig } from '../config/resolve.js';
import type { Inspection } from '../inspect/inspect.js';

/** The action a site repository uses: calfeed's own repository, at a release tag (docs/github-action.md). */
export const ACTION_REF = 'OWNER/calfeed@v1';

/** Everything inspect warned about, once each. */
export function inspectWarnings(i: Inspection): string[] {
  const all = [i.calendars.explanation, i.events?.explanation, i.details?.explanation].flatMap((x) => x?.warnings ?? []);
  return [...new Set(all)];
}

/** The starting calfeed.config.json. JSON holds no comments, so they go in "$comment", which calfeed skips. */
export function configText(i: Inspection, config: ResolvedConfig, demo: boolean): string {
  const comment = [
    demo
      ? 'Written by calfeed init from the embedded demo portal: set "baseUrl" to your portal\'s Event Calendar API, then run "npx calfeed inspect" and correct "fields".'
      : `Written by calfeed init from what inspect found at ${config.baseUrl}.`,
    'The token never goes here: set env CALFEED_TOKEN (in GitHub Actions, the repository secret CALFEED_TOKEN).',
    '"timeZone" reads portal times that carry no offset (a calendar that names its own zone keeps it); "locale" orders languages, e.g. "lt,en".',
    '"fields" maps each event and calendar field to the portal\'s dotted path, as inspect detected it; "" keeps detecting, and so does a path a record lacks.',
    '"siteUrl" is passed by the workflow (the GitHub Pages URL); set it here for another host. Every option: "npx calfeed build --help"; flags and env vars override this file.',
    ...inspectWarnings(i).map((warning) => `inspect warned: ${warning}`),
  ];
  const file = {
    $comment: comment,
    ...(config.baseUrl !== undefined && { baseUrl: config.baseUrl }),
    ...authSettings(config),
    title: config.title,
    timeZone: config.timeZone,
    locale: config.locales.join(','),
    fields: i.fields,
  };
  return JSON.stringify(file, null, 2) + '\n';
}

/** Auth settings other than the defaults: init was given them to reach the portal, and so will the build need them. */
function authSettings(config: ResolvedConfig): Record<string, string> {
  const { auth } = config;
  return {
    ...(auth.header !== 'Authorization' && { authHeader: auth.header }),
    ...(auth.scheme !== 'Bearer' && { authScheme: auth.scheme === '' ? 'none' : auth.scheme }),
    ...(auth.mode === 'query' && { authQueryParam: auth.queryParam }),
  };
}

/** The site repository's workflow; `configFile` only when the config is not at the default path. */
export function workflowText(configFile?: string): string {
  return `# Builds the events site with calfeed and publishes it on GitHub Pages, hourly and when run by hand.
# Before the first run: add the portal's API token as the repository secret CALFEED_TOKEN
# (Settings > Secrets and variables > Actions), and set Settings > Pages > Source to "GitHub Actions".
# The portal, time zone and field mapping are in calfeed.config.json; more in calfeed's docs/github-action.md.
name: events
on:
  schedule:
    - cron: '17 * * * *' # hourly, off the busy top of the hour
  workflow_dispatch:
permissions:
  contents: read
  pages: write
  id-token: write
# One build at a time: a second waits instead of racing the first for the cache and the deployment.
concurrency:
  group: calfeed
  cancel-in-progress: false
jobs:
  build:
    runs-on: ubuntu-latest
    environment:
      name: github-pages
      url: \${{ steps.deploy.outputs.page_url }}
    steps:
      - uses: actions/checkout@v4
      - id: pages
        uses: actions/configure-pages@v5
      - id: calfeed
        uses: ${ACTION_REF} # calfeed's repository and release tag
        with:
          site-url: \${{ steps.pages.outputs.base_url }}/
          token: \${{ secrets.CALFEED_TOKEN }}${configFile === undefined ? '' : `\n          config: ${JSON.stringify(configFile)}`}
      # An up-to-date build published nothing new since the last deployment; a run by hand deploys anyway.
      - if: steps.calfeed.outputs.published == 'true' || github.event_name == 'workflow_dispatch'
        uses: actions/upload-pages-artifact@v3
        with:
          path: public
      - if: steps.calfeed.outputs.published == 'true' || github.event_name == 'workflow_dispatch'
        id: deploy
        uses: actions/deploy-pages@v4
`;
}
