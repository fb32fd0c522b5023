// Load: the I/O half of configuration. Reads the config file and the token file; resolve.ts does
// the rest without touching the disk.

import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { ConfigError } from '../errors.js';
import { locateJsonError } from './json-error.js';
import type { Command } from './options.js';
import { resolveConfig, type RawValue, type ResolvedConfig } from './resolve.js';

export const DEFAULT_CONFIG_FILE = 'calfeed.config.json';

/** A resolved config plus the secret, which is kept apart so it is never printed with the config. */
export interface LoadedConfig {
  config: ResolvedConfig;
  token?: string;
  /** Where the config file came from, if any (for the log); for init, where it is to be written. */
  configPath?: string;
}

/** Read the config file (explicit, or calfeed.config.json if present), resolve all layers, read the token. */
export async function loadConfig(
  command: Command,
  flags: Record<string, RawValue | undefined>,
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<LoadedConfig> {
  const explicit = (flags.config as string | undefined) ?? env.CALFEED_CONFIG;
  const path = resolvePath(cwd, explicit ?? DEFAULT_CONFIG_FILE);
  const name = explicit ?? DEFAULT_CONFIG_FILE;
  // init writes the file instead of reading it.
  const file = command === 'init' ? undefined : await readConfigFile(path, name, explicit !== undefined);
  const config = resolveConfig(command, { flags, env, file: file === undefined ? undefined : { path: name, data: file } });
  const token = await readToken(config, env, cwd);
  return { config, token, configPath: file || command === 'init' ? path : undefined };
}

/** `name` is the path as the user gave it, for messages. */
async function readConfigFile(path: string, name: string, required: boolean): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`Cannot read config file ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const { line, column, reason } = locateJsonError(text, error as Error);
    throw new ConfigError(`${name} line ${line}, column ${column}: ${reason} (the file is not valid JSON).`, { cause: error });
  }
}

/** The token: env CALFEED_TOKEN, else the token file; never a flag, so it stays out of process lists and shell history. */
async function readToken(config: ResolvedConfig, env: Record<string, string | undefined>, cwd: string): Promise<string | undefined> {
  if (config.tokenFile) {
    const path = resolvePath(cwd, config.tokenFile);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new ConfigError(`Cannot read the token file ${path} (--token-file): ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`, { cause: error });
    }
    const token = text.trim();
    if (!token) throw new ConfigError(`The token file ${path} (--token-file) is empty.`);
    if (/[\r\n]/.test(token)) throw new ConfigError(`The token file ${path} (--token-file) holds more than one line; put only the token in it.`);
    return token;
  }
  const token = env.CALFEED_TOKEN?.trim();
  return token ? token : undefined;
}
