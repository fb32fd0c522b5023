// Command-line parsing, generated from the option table so flags, help and docs agree.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError } from '../errors.js';
import { optionsFor, type Command } from '../config/options.js';
import type { RawValue } from '../config/resolve.js';

export const COMMANDS: Record<Command, string> = {
  build: 'Crawl the portal and write the static site into --out (atomically).',
  inspect: 'Fetch one calendar list, one event list and one event, and show how calfeed reads them.',
  serve: 'Preview a built folder locally with the headers _headers declares.',
  'demo-server': 'Run the embedded demo portal and print its URL and tokens.',
  verify: 'Check a published folder against its manifest.json: every file, its size and SHA-256, nothing extra.',
};

export interface ParsedArgs {
  command: Command | 'help' | 'version';
  /** For `help <command>`. */
  helpFor?: Command;
  flags: Record<string, RawValue | undefined>;
}

/** Parse argv (without node and script) into a command and flag values keyed by option key. */
export function parseCommandLine(argv: string[]): ParsedArgs {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    const target = first === 'help' ? rest[0] : undefined;
    if (target !== undefined && !(target in COMMANDS)) throw unknownCommand(target);
    return { command: 'help', helpFor: target as Command | undefined, flags: {} };
  }
  if (first === '--version' || first === '-v') return { command: 'version', flags: {} };
  if (!(first in COMMANDS)) throw unknownCommand(first);
  const command = first as Command;
  if (rest.includes('--help') || rest.includes('-h')) return { command: 'help', helpFor: command, flags: {} };

  const specs = optionsFor(command);
  const options: ParseArgsConfig['options'] = {};
  for (const spec of specs) options[spec.flag] = { type: spec.type === 'boolean' ? 'boolean' : 'string' };
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: rest, options, strict: true, allowPositionals: true }) as {
      values: Record<string, string | boolean | undefined>;
      positionals: string[];
    });
  } catch (error) {
    const hint = /token/i.test(String((error as Error).message))
      ? ' The token is never a flag: set env CALFEED_TOKEN or use --token-file PATH.'
      : ` Run "calfeed ${command} --help" for the flags.`;
    throw new ConfigError(`${(error as Error).message.replace(/\.$/, '')}.${hint}`, { usage: true });
  }
  if (positionals.length > 0) {
    throw new ConfigError(`Unexpected argument "${positionals[0]}". Run "calfeed ${command} --help".`, { usage: true });
  }
  const flags: Record<string, RawValue | undefined> = {};
  for (const spec of specs) flags[spec.key] = values[spec.flag];
  return { command, flags };
}

function unknownCommand(name: string): ConfigError {
  return new ConfigError(`Unknown command "${name}". Commands: ${Object.keys(COMMANDS).join(', ')}. Run "calfeed --help".`, { usage: true });
}

/** Help text for one command, or the overview. */
export function helpText(command?: Command): string {
  if (!command) {
    const lines = Object.entries(COMMANDS).map(([name, text]) => `  ${name.padEnd(12)} ${text}`);
    return [
      'calfeed: publish a portal\'s Event Calendar API as static JSON mirrors, feeds, iCalendar and pages.',
      '',
      'Usage: calfeed <command> [flags]',
      '',
      'Commands:',
      ...lines,
      '',
      'Run "calfeed <command> --help" for its flags. With no --base-url, build and inspect use the embedded demo portal.',
      'The API token comes from env CALFEED_TOKEN or --token-file, never from a flag.',
      'Exit status: 0 built, 1 build failed (nothing published), 2 usage or configuration error, 3 refused by the shrink guard.',
      '',
    ].join('\n');
  }
  const rows = optionsFor(command).map((spec) => {
    const left = `  --${spec.flag}${spec.arg ? ' ' + spec.arg : ''}`;
    const def = spec.default !== undefined && spec.type !== 'boolean' ? ` [default: ${spec.default}]` : '';
    return `${left.padEnd(32)} ${spec.help}${def}\n${''.padEnd(33)}env ${spec.env}`;
  });
  return [`Usage: calfeed ${command} [flags]`, '', COMMANDS[command], '', 'Flags:', ...rows, ''].join('\n');
}
