// `calfeed init`: asks nothing. Inspects the portal (or the demo), then writes a starting
// calfeed.config.json and a GitHub Actions workflow, never over a file that exists.

import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { makeDir } from '../make-dir.js';
import { dirname, join, relative } from 'node:path';
import { Writable } from 'node:stream';
import { DEFAULT_CONFIG_FILE, type LoadedConfig } from '../config/load.js';
import { ConfigError } from '../errors.js';
import { runInspect } from '../inspect/inspect.js';
import type { Logger } from '../log.js';
import { ACTION_REF, configText, inspectWarnings, workflowText } from './content.js';

export const WORKFLOW_FILE = '.github/workflows/calfeed.yml';

/** Writes both files into `cwd` (the site repository's root); returns the exit status. */
export async function runInit(args: { loaded: LoadedConfig; log: Logger; cwd: string; now: number }): Promise<number> {
  const { loaded, log, cwd } = args;
  const configPath = loaded.configPath ?? join(cwd, DEFAULT_CONFIG_FILE);
  const workflowPath = join(cwd, WORKFLOW_FILE);
  // Checked before inspecting, so a refusal costs no requests; 'wx' below still refuses a file made meanwhile.
  const existing = [configPath, workflowPath].filter((path) => existsSync(path));
  if (existing.length > 0) {
    const names = existing.map((path) => relative(cwd, path)).join(', ');
    throw new ConfigError(`calfeed init overwrites nothing, and these files exist: ${names}. Edit them, or move them away and run init again.`);
  }

  // The report is for people; init reads the inspection itself.
  const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
  const inspection = await runInspect({ loaded, log, out: discard, now: args.now });
  const configFile = relative(cwd, configPath);
  const demo = loaded.config.baseUrl === undefined;
  await writeNew(configPath, configText(inspection, loaded.config, demo));
  await writeNew(workflowPath, workflowText(configFile === DEFAULT_CONFIG_FILE ? undefined : configFile));

  for (const warning of inspectWarnings(inspection)) log.warn(`inspect: ${warning}`);
  log.info(`Wrote ${configFile} (from ${demo ? 'the embedded demo portal' : loaded.config.baseUrl}) and ${WORKFLOW_FILE}.`);
  log.info(`Next: "npx calfeed build" to try the config; in the workflow, set ${ACTION_REF} to where you get calfeed; commit both files.`);
  return 0;
}

async function writeNew(path: string, text: string): Promise<void> {
  await makeDir(dirname(path));
  try {
    await writeFile(path, text, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw new ConfigError(`calfeed init overwrites nothing, and ${path} appeared while it ran.`, { cause: error });
  }
}
