// Runs the real calfeed CLI (compiled dist/cli.js, as `npx calfeed` does) in a child process.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Kill the child after this long (it must never outlive the test). */
  timeoutMs?: number;
  /** Called once the child has started, e.g. to send it a signal later. */
  onSpawn?: (child: import('node:child_process').ChildProcess) => void;
}

/** Run `calfeed ...args` and collect its exit status and output. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm test" (it compiles first) or "npm run build".`);
  return runCommand(process.execPath, [CLI, ...args], options);
}

/** Run any program (npm, bash, an installed calfeed) the same way: clean env, output collected, a time limit. */
export function runCommand(command: string, args: string[], options: CliOptions = {}): Promise<CliResult> {
  // A clean environment: no CALFEED_* from the developer's shell leaks into a test.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CALFEED_')));
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...base, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  options.onSpawn?.(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * What a build of the embedded demo portal warns of, and only that: three of its upcoming events
 * have no location, the case of the build's structured-data warning (src/pipeline/placeless.ts).
 */
export const DEMO_WARNINGS = [
  `3 upcoming events have no location, so search engines will not list them as events (Google's Event structured data requires one); ` +
    `add a place or an online address at the portal: event "4203" of calendar "42", event "4208" of calendar "42", event "1013" of calendar "science".`,
];
