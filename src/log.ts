// The build log: human lines on stderr (stdout is reserved for --json), every line passed through
// token redaction and control-character escaping, so no code path can print the secret, drive the
// terminal or issue a CI workflow command by accident.

import { defuseCommands, escapeControl } from './safe-text.js';
import { redactSecret } from './secrets.js';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** calfeed's own workings (state files and what was wrong with them): only with --verbose. */
  debug(message: string): void;
  /** A progress line (overwritten in place on a terminal); a function is called only when one is shown. */
  progress(message: string | (() => string)): void;
  /** Warnings so far, for the summary. */
  readonly warnings: string[];
  /** Whether progress goes to a terminal (a live bar) rather than a log file. */
  readonly interactive: boolean;
}

export interface LoggerOptions {
  stream: NodeJS.WritableStream & { isTTY?: boolean };
  quiet: boolean;
  /** Print debug lines (unless quiet). */
  verbose?: boolean;
  /** Secrets to redact from every line. */
  secrets: Array<string | undefined>;
}

/** Replace each secret, in every form src/secrets.ts knows (encoded, base64...), with ***. */
export function redactSecrets(text: string, secrets: Array<string | undefined>): string {
  const redactable = secrets.filter((secret): secret is string => secret !== undefined && secret.length >= 4);
  return redactable.reduce((out, secret) => redactSecret(out, secret), text);
}

/** Text as it may reach the terminal or a CI log: token-free, control characters escaped, CI commands defused. */
export function printable(text: string, secrets: Array<string | undefined>): string {
  return defuseCommands(escapeControl(redactSecrets(text, secrets)));
}

/** A logger writing to a stream (stderr in the CLI). */
export function createLogger(options: LoggerOptions): Logger {
  const warnings: string[] = [];
  const tty = options.stream.isTTY === true;
  let progressShown = false;
  // Off a terminal (CI logs) a progress line every few seconds is enough.
  const progressEveryMs = tty ? 100 : 5000;
  let lastProgress = 0;
  const write = (line: string): void => {
    if (progressShown) {
      options.stream.write('\r\x1b[K');
      progressShown = false;
    }
    options.stream.write(printable(line, options.secrets) + '\n');
  };
  return {
    warnings,
    interactive: tty,
    info: (m) => {
      if (!options.quiet) write(m);
    },
    warn: (m) => {
      // One warning, one line: a newline from portal data must not forge a log line.
      const line = redactSecrets(m, options.secrets).replace(/\r?\n/g, '\\n');
      warnings.push(line);
      write(`warning: ${line}`);
    },
    error: (m) => write(`error: ${m}`),
    debug: (m) => {
      if (options.verbose === true && !options.quiet) write(m);
    },
    progress: (m) => {
      if (options.quiet) return;
      const now = Date.now();
      if (now - lastProgress < progressEveryMs) return;
      lastProgress = now;
      const text = typeof m === 'function' ? m() : m;
      if (tty) {
        options.stream.write('\r\x1b[K' + printable(text, options.secrets));
        progressShown = true;
      } else {
        write(text);
      }
    },
  };
}
