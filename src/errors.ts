// One small family of errors. Each carries a stable `code` that the CLI maps to an exit status, and a
// message written for the person reading a CI log: what happened, where, and what to do next.

export type ErrorCode =
  | 'USAGE' // bad flag or argument
  | 'CONFIG' // bad configuration value or file
  | 'HTTP' // the portal answered with an error status
  | 'AUTH' // the portal rejected the token
  | 'NETWORK' // connection failed or timed out
  | 'RESPONSE' // the portal answered, but not with usable JSON
  | 'LIMIT' // a configured size limit was exceeded
  | 'BUILD' // the build could not complete (too many failures, bad template, ...)
  | 'LOCKED' // another build holds the output lock
  | 'SHRINK' // the shrink guard refused to publish
  | 'IO' // the file system failed calfeed (disk full, read-only, permission denied; see io-error.ts)
  | 'INTERRUPTED'; // SIGINT / SIGTERM

/** Base class: every error calfeed raises on purpose. */
export class CalfeedError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CalfeedError';
    this.code = code;
  }
}

/** The error of a build stopped by its abort signal (SIGINT / SIGTERM). */
export function interrupted(options?: { cause?: unknown }): CalfeedError {
  return new CalfeedError('INTERRUPTED', 'Interrupted: the build was stopped before it finished; nothing was published.', options);
}

/** Usage or configuration problem: exit status 2. */
export class ConfigError extends CalfeedError {
  constructor(message: string, options?: { cause?: unknown; usage?: boolean }) {
    super(options?.usage ? 'USAGE' : 'CONFIG', message, options);
    this.name = 'ConfigError';
  }
}

/** Exit status for an error: 2 usage/config, 3 shrink guard, else 1 (failed, nothing published). */
export function exitCodeFor(error: unknown): number {
  if (!(error instanceof CalfeedError)) return 1;
  switch (error.code) {
    case 'USAGE':
    case 'CONFIG':
      return 2;
    case 'SHRINK':
      return 3;
    default:
      return 1;
  }
}
