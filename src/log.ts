// The build log: human lines on stderr (stdout is reserved for --json), every line passed through
// token redaction, so no code path can print the secret by accident.

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** Transient progress line; only on a terminal, overwritten in place. */
  progress(message: string): void;
  /** Warnings so far, for the summary. */
  readonly warnings: string[];
  /** Whether progress goes to a terminal (a live bar) rather than a log file. */
  readonly interactive: boolean;
}

export interface LoggerOptions {
  stream: NodeJS.WritableStream & { isTTY?: boolean };
  quiet: boolean;
  /** Secrets to redact from every line. */
  secrets: Array<string | undefined>;
}

/** Replace each secret (and its URL-encoded form) with ***. */
export function redactSecrets(text: string, secrets: Array<string | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) out = out.split(form).join('***');
  }
  return out;
}

/** Make portal-supplied text safe for a terminal: control characters become visible escapes. */
export function escapeControl(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
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
    options.stream.write(escapeControl(redactSecrets(line, options.secrets)) + '\n');
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
    progress: (m) => {
      if (options.quiet) return;
      const now = Date.now();
      if (now - lastProgress < progressEveryMs) return;
      lastProgress = now;
      if (tty) {
        options.stream.write('\r\x1b[K' + escapeControl(redactSecrets(m, options.secrets)));
        progressShown = true;
      } else {
        write(m);
      }
    },
  };
}
