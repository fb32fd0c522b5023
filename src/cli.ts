#!/usr/bin/env node
// The calfeed command. Thin on purpose: parse arguments, call one library function, map errors to
// exit statuses (0 built, 1 failed, 2 usage/config, 3 shrink guard, 130/143 stopped by SIGINT/
// SIGTERM). Logs go to stderr; stdout carries only --json output, so CI scripts can pipe it.

import { setFlagsFromString } from 'node:v8';
import { helpText, parseCommandLine } from './cli/args.js';
import { type LoadedConfig, loadConfig } from './config/load.js';
import { CalfeedError, exitCodeFor } from './errors.js';
import { asIoError, type IoContext } from './io-error.js';
import { createLogger, type Logger, redactSecrets } from './log.js';
import { VERSION } from './version.js';

// A build makes much short-lived text; letting the heap grow by at most half of what survived each
// full collection keeps its peak near what is live (docs/performance.md). Process-wide, so the
// command sets it; V8 reads it at each new heap limit, so setting it now works. A value given to
// node itself (NODE_OPTIONS may not hold it) is left alone.
if (!process.execArgv.some((arg) => /heap[-_]growing[-_]percent/.test(arg))) {
  setFlagsFromString('--heap-growing-percent=50');
}

/** Secrets known so far, redacted from every message, including a crash's. */
const secrets: Array<string | undefined> = [process.env.CALFEED_TOKEN];

/** The command's folders, once known: a file-system fault is reported as the IO error it is (io-error.ts). */
let ioContext: IoContext = {};

/** The error as reported: a file-system fault as an IO error, anything else as it is. */
function reported(error: unknown): unknown {
  return asIoError(error, ioContext) ?? error;
}

async function main(argv: string[]): Promise<number> {
  const args = parseCommandLine(argv);
  if (args.command === 'help') {
    process.stdout.write(helpText(args.helpFor));
    return 0;
  }
  if (args.command === 'version') {
    process.stdout.write(`calfeed ${VERSION}\n`);
    return 0;
  }
  const loaded = await loadConfig(args.command, args.flags, process.env, process.cwd());
  const { config } = loaded;
  secrets.push(loaded.token);
  ioContext = ioContextFor(args.command, loaded);
  const log = createLogger({ stream: process.stderr, quiet: config.quiet, verbose: config.verbose, secrets });

  switch (args.command) {
    case 'build':
      return buildCommand(loaded, log);
    case 'inspect': {
      const { runInspect } = await import('./inspect/inspect.js');
      const inspection = await runInspect({ loaded, log, out: process.stdout, now: Date.now() });
      return inspection.ok ? 0 : 1;
    }
    case 'init': {
      const { runInit } = await import('./init/init.js');
      return runInit({ loaded, log, cwd: process.cwd(), now: Date.now() });
    }
    case 'verify': {
      const { verifyPublished } = await import('./publish/verify.js');
      const { files, problems, total } = await verifyPublished(config.out);
      if (config.json) process.stdout.write(JSON.stringify({ ok: total === 0, out: config.out, files, problems, problemsTotal: total }, null, 2) + '\n');
      for (const { path, problem } of problems) log.error(`${path}: ${problem}`);
      if (total > problems.length) log.error(`... and ${total - problems.length} more problems`);
      if (total === 0) log.info(`${config.out} is intact: its ${files} files match its manifest.json.`);
      else log.error(`${config.out} does not match its manifest.json (${total} problem${total === 1 ? '' : 's'}). Build again to publish a complete site.`);
      return total === 0 ? 0 : 1;
    }
    case 'serve': {
      const { startPreviewServer } = await import('./serve/index.js');
      const server = await startPreviewServer({ dir: config.serve.dir, port: config.serve.port ?? 8080, host: config.serve.host });
      process.stdout.write(`Serving ${config.serve.dir} at ${server.url} (Ctrl-C to stop)\n`);
      await waitForSignal();
      await server.close();
      return 0;
    }
    case 'demo-server': {
      const { runDemoServer } = await import('./demo/cli.js');
      const portal = await runDemoServer(config.demo, process.stdout);
      await waitForSignal();
      await portal.close();
      return 0;
    }
  }
}

/** Which folder a failed path belongs to, per command, and what a failed build guarantees. */
function ioContextFor(command: string, { config }: LoadedConfig): IoContext {
  const out = { flag: '--out', dir: config.out, siblings: true };
  const cacheDir = { flag: '--cache-dir', dir: config.cacheDir };
  switch (command) {
    case 'build':
      // runBuild throws only before its commit step, or from a commit step undone (see build.ts).
      return { folders: [out, cacheDir], outcome: `Nothing was published: ${config.out} was left as it was.` };
    case 'verify':
      return { folders: [out] };
    case 'serve':
      return { folders: [{ flag: '--dir', dir: config.serve.dir }] };
    default:
      return {};
  }
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

/** Exit statuses of a build stopped by a signal before its commit point (128 + the signal's number). */
const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

/**
 * `calfeed build`. Before the commit point a signal stops it (exit 130/143, --out as it was); a
 * second one exits at once. From the commit step on, signals cancel nothing: the new site is
 * published, the state saved, and the exit is 0. Every exit prints the --json object if asked.
 */
async function buildCommand(loaded: LoadedConfig, log: Logger): Promise<number> {
  const { config } = loaded;
  const json = (value: object): void => void (config.json && process.stdout.write(JSON.stringify(value, null, 2) + '\n'));
  const controller = new AbortController();
  let phase: 'building' | 'committing' | 'published' = 'building';
  let stoppedBy: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals): void => {
    if (phase !== 'building') {
      log.warn(
        phase === 'committing'
          ? `${signal} received while ${config.out} is being replaced, which cannot be stopped halfway: the new site is being published; calfeed finishes, then exits.`
          : `${signal} received: the new site is already published at ${config.out}; calfeed is finishing (saving its state), then exits.`,
      );
      return;
    }
    const again = stoppedBy !== undefined;
    stoppedBy = signal;
    const error = new CalfeedError('INTERRUPTED', `Build interrupted by ${signal}; nothing was published and ${config.out} was left as it was.`);
    if (again) {
      // A second signal: give up at once. The commit has not begun, so --out is untouched.
      log.error(`${signal} received again: exiting now; ${config.out} stays as it was.`);
      json(failure(error, signal));
      process.exit(SIGNAL_EXIT[signal] ?? 1);
    }
    log.error(`${signal} received: stopping; ${config.out} stays as it was.`);
    controller.abort(error);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    // Loaded here, as each command's code is: help and usage errors answer without loading the pipeline.
    const { runBuild } = await import('./pipeline/build.js');
    const { formatSummary } = await import('./pipeline/summary.js');
    const onPhase = (next: 'committing' | 'published'): void => void (phase = next);
    const summary = await runBuild({ loaded, log, now: Date.now(), signal: controller.signal, onPhase });
    // Stopped, but it had nothing left to do (up to date): still a stop, --out as it was.
    if (stoppedBy !== undefined && !summary.published) throw controller.signal.reason;
    json(summary);
    log.info(formatSummary(summary));
    return 0;
  } catch (caught) {
    const error = reported(caught);
    json(failure(error, stoppedBy));
    if (!(error instanceof CalfeedError && error.code === 'INTERRUPTED' && stoppedBy !== undefined)) throw error;
    process.stderr.write(`error: ${redactSecrets(error.message, secrets)}\n`);
    return SIGNAL_EXIT[stoppedBy] ?? 1;
  }
}

function failure(error: unknown, signal?: NodeJS.Signals): object {
  const code = error instanceof CalfeedError ? error.code : 'INTERNAL';
  const exitCode = code === 'INTERRUPTED' && signal !== undefined ? (SIGNAL_EXIT[signal] ?? 1) : exitCodeFor(error);
  return { ok: false, published: false, error: { code, exitCode, message: redactSecrets(String((error as Error)?.message ?? error), secrets) } };
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (caught: unknown) => {
    const error = reported(caught);
    if (error instanceof CalfeedError) {
      process.stderr.write(`error: ${redactSecrets(error.message, secrets)}\n`);
    } else {
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.stderr.write(`error: unexpected failure (a bug in calfeed; please report it): ${redactSecrets(detail, secrets)}\n`);
    }
    process.exit(exitCodeFor(error));
  },
);
