// Command-line parsing, generated from the option table so flags, help and docs agree.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError } from '../errors.js';
import { nearest } from '../config/nearest.js';
import { OPTIONS, optionsFor, type Command } from '../config/options.js';
import type { RawValue } from '../config/resolve.js';

export const COMMANDS: Record<Command, string> = {
  build: 'Crawl the portal and write the static site into --out (atomically).',
  inspect: 'Fetch one calendar list, one event list and one event, and show how calfeed reads them.',
  serve: 'Preview a built folder locally with the headers _headers declares.',
  'demo-server': 'Run the embedded demo portal and print its URL and tokens.',
  verify: 'Check a published folder against its manifest.json: every file, its size and SHA-256, nothing extra.',
  init: 'Write a starting calfeed.config.json from what inspect finds, and a GitHub Actions workflow; overwrites nothing.',
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
  // A list option may be repeated: parseArgs gives an array, parsed like a comma-separated list.
  for (const spec of specs) options[spec.flag] = { type: spec.type === 'boolean' ? 'boolean' : 'string', multiple: spec.type === 'hosts' || spec.type === 'links' };
  let parsed: { values: Record<string, string | string[] | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, options, strict: true, allowPositionals: true }) as typeof parsed;
  } catch (error) {
    throw flagError((error as Error).message, command);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 0) {
    throw new ConfigError(`Unexpected argument "${positionals[0]}". Run "calfeed ${command} --help".`, { usage: true });
  }
  const flags: Record<string, RawValue | undefined> = {};
  for (const spec of specs) flags[spec.key] = values[spec.flag];
  return { command, flags };
}

/**
 * Node's parseArgs messages, in calfeed's words where they fall short: an unknown flag gets a
 * "did you mean" (Node's own message also has an unbalanced quote), and a flag of another command says so.
 */
function flagError(message: string, command: Command): ConfigError {
  const help = ` Run "calfeed ${command} --help" for the flags.`;
  if (/token/i.test(message)) {
    return new ConfigError(`${message.replace(/\..*$/s, '')}. The token is never a flag: set env CALFEED_TOKEN or use --token-file PATH.`, { usage: true });
  }
  const unknown = /^Unknown option '([^']*)'/.exec(message)?.[1];
  if (unknown === undefined) return new ConfigError(`${message.replace(/\.$/, '')}.${help}`, { usage: true });
  const name = unknown.replace(/^-+/, '').replace(/=.*$/, '');
  const owner = OPTIONS.find((spec) => spec.flag === name);
  if (owner) return new ConfigError(`--${name} is not a flag of ${command}, only of ${owner.commands.join(', ')}.${help}`, { usage: true });
  // Only long flags get a suggestion: calfeed has no short ones, so "-x" resembles nothing.
  const hint = unknown.startsWith('--') ? nearest(name, optionsFor(command).map((spec) => spec.flag)) : undefined;
  return new ConfigError(`Unknown flag ${unknown}${hint ? ` (did you mean --${hint}?)` : ''}.${help}`, { usage: true });
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
      'Run "calfeed <command> --help" for its flags. With no --base-url, build, inspect and init use the embedded demo portal.',
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
