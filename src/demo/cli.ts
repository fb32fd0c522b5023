// `calfeed demo-server`: start the demo portal alone and print how to reach it. The lead's CLI parses
// flags and handles SIGINT; this only validates names and numbers and prints.

import { ConfigError } from '../errors.js';
import { DIALECTS, type DemoDialect } from './dialects.js';
import { FAULTS, type DemoFault } from './faults.js';
import { startDemoPortal, type DemoPortal, type DemoPortalOptions } from './server.js';

export interface DemoServerArgs {
  port?: number;
  dialect?: string;
  faults?: string;
  latencyMs?: number;
  calendars?: number;
  eventsPerCalendar?: number;
}

function oneOf<T extends string>(what: string, flag: string, value: string | undefined, valid: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if ((valid as readonly string[]).includes(value)) return value as T;
  throw new ConfigError(`Unknown ${what} '${value}' for ${flag}. Valid: ${valid.join(', ')}.`, { usage: true });
}

function count(flag: string, value: number | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < min) {
    throw new ConfigError(`${flag} must be an integer of at least ${min}, got ${value}.`, { usage: true });
  }
  return value;
}

/** Start the demo portal from CLI options and print its URL, both tokens and its time zone to `out`. */
export async function runDemoServer(args: DemoServerArgs, out: NodeJS.WritableStream): Promise<DemoPortal> {
  const options: DemoPortalOptions = {};
  const dialect = oneOf<DemoDialect>('dialect', '--dialect', args.dialect, DIALECTS);
  const faults = oneOf<DemoFault>('fault mode', '--faults', args.faults, FAULTS);
  const port = count('--port', args.port, 0);
  const latencyMs = count('--latency', args.latencyMs, 0);
  const calendars = count('--calendars', args.calendars, 1);
  const eventsPerCalendar = count('--events', args.eventsPerCalendar, 1);
  if (port !== undefined && port > 65535) throw new ConfigError(`--port must be at most 65535, got ${port}.`, { usage: true });
  if (dialect) options.dialect = dialect;
  if (faults) options.faults = faults;
  if (port !== undefined) options.port = port;
  if (latencyMs !== undefined) options.latencyMs = latencyMs;
  if (calendars !== undefined) options.calendars = calendars;
  if (eventsPerCalendar !== undefined) options.eventsPerCalendar = eventsPerCalendar;
  const portal = await startDemoPortal(options);
  out.write(
    [
      `Demo portal: ${portal.url}`,
      `Token (university): ${portal.tokens.university}`,
      `Token (faculty): ${portal.tokens.faculty}`,
      `Time zone: ${portal.timeZone}`,
      '',
    ].join('\n'),
  );
  return portal;
}
