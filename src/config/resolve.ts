// Resolve: layers in, one validated config out. Pure: the caller has already read the flags, the
// environment and the config file; this only applies precedence (flags > env > file > defaults),
// parses values and says precisely what is wrong and where it came from.

import { IANAZone } from 'luxon';
import { ConfigError } from '../errors.js';
import type { FieldsConfig } from '../normalize/index.js';
import type { PagingConfig } from '../crawl/index.js';
import type { HttpOptions } from '../http/index.js';
import { FILE_ONLY_KEYS, OPTIONS, type Command, type OptionSpec } from './options.js';

export type RawValue = string | number | boolean;
export interface ConfigLayers {
  flags: Record<string, RawValue | undefined>;
  env: Record<string, string | undefined>;
  /** Parsed config file and its path (for messages). */
  file?: { path: string; data: unknown };
}

/** The HTTP client settings the config sets, declared (and documented) once, in HttpOptions. */
type HttpSettings = Pick<
  HttpOptions,
  'auth' | 'concurrency' | 'rateLimit' | 'connectTimeoutMs' | 'headersTimeoutMs' | 'bodyTimeoutMs' | 'retries' | 'retryMaxWaitMs' | 'maxResponseBytes'
>;

/** The settings a build runs with. Durations in milliseconds, sizes in bytes. */
export interface ResolvedConfig extends HttpSettings {
  command: Command;
  baseUrl?: string;
  tokenFile?: string;
  out: string;
  siteUrl: string;
  /** True when the site URL is the default (links will point at localhost). */
  siteUrlIsDefault: boolean;
  maxCalendars: number;
  maxEvents: number;
  maxFieldLength: number;
  maxFailedDetails: number;
  timeZone: string;
  /** Language preference, first wins. */
  locales: string[];
  title: string;
  feedLimit: number;
  icalPastDays: number;
  keepRemovedDays: number;
  refreshMinutes: number;
  templates?: string;
  cacheDir: string;
  detailsMaxAgeMs: number;
  allowShrink: boolean;
  json: boolean;
  quiet: boolean;
  fields?: FieldsConfig;
  paging: PagingConfig;
  serve: { dir: string; port?: number; host: string };
  demo: { port?: number; dialect: string; faults: string; latencyMs: number; calendars?: number; eventsPerCalendar?: number };
}

const DEFAULT_PAGING: PagingConfig = { mode: 'auto', pageParam: 'page', firstPage: 1, maxPages: 1000 };

/** Merge the layers and validate every value; throws ConfigError naming the source of a bad value. */
export function resolveConfig(command: Command, layers: ConfigLayers): ResolvedConfig {
  const fileData = checkFile(layers.file);
  const value = (spec: OptionSpec): RawValue | undefined => {
    const fromFlag = layers.flags[spec.key];
    if (fromFlag !== undefined) return parseValue(spec, fromFlag, `--${spec.flag}`);
    const fromEnv = layers.env[spec.env];
    if (fromEnv !== undefined && fromEnv !== '') return parseValue(spec, fromEnv, `env ${spec.env}`);
    const fromFile = fileData[spec.key];
    if (fromFile !== undefined) return parseValue(spec, fromFile as RawValue, `${layers.file!.path}: "${spec.key}"`);
    return spec.default === undefined ? undefined : parseValue(spec, spec.default, `default of --${spec.flag}`);
  };
  const get = new Map(OPTIONS.map((spec) => [spec.key, value(spec)] as const));
  const str = (k: string) => get.get(k) as string | undefined;
  const num = (k: string) => get.get(k) as number | undefined;
  const req = (k: string) => get.get(k) as number;
  const bool = (k: string) => get.get(k) === true;

  const baseUrl = str('baseUrl');
  if (baseUrl !== undefined) checkHttpUrl(baseUrl, '--base-url');
  const siteUrlRaw = str('siteUrl')!;
  checkHttpUrl(siteUrlRaw, '--site-url');
  const timeZone = str('timeZone')!;
  if (!IANAZone.isValidZone(timeZone)) {
    throw new ConfigError(`--time-zone: "${timeZone}" is not an IANA time zone name. Use a name like Europe/Vilnius or America/New_York.`);
  }
  const locales = str('locale')!.split(',').map((l) => l.trim()).filter(Boolean);
  for (const locale of locales) {
    if (!isLocale(locale)) throw new ConfigError(`--locale: "${locale}" is not a BCP 47 language tag (e.g. en, lt, en-GB).`);
  }
  if (locales.length === 0) throw new ConfigError('--locale: give at least one language, e.g. "en" or "lt,en".');
  const scheme = str('authScheme')!;
  const queryParam = str('authQueryParam');

  return {
    command,
    baseUrl: baseUrl?.replace(/\/+$/, ''),
    tokenFile: str('tokenFile'),
    out: str('out')!,
    siteUrl: siteUrlRaw.endsWith('/') ? siteUrlRaw : siteUrlRaw + '/',
    siteUrlIsDefault: layers.flags.siteUrl === undefined && !layers.env.CALFEED_SITE_URL && fileData.siteUrl === undefined,
    auth: {
      mode: queryParam ? 'query' : 'header',
      header: str('authHeader')!,
      scheme: scheme.toLowerCase() === 'none' ? '' : scheme,
      queryParam: queryParam ?? 'access_token',
    },
    concurrency: req('concurrency'),
    rateLimit: num('rateLimit'),
    connectTimeoutMs: req('connectTimeout'),
    headersTimeoutMs: req('headersTimeout'),
    bodyTimeoutMs: req('bodyTimeout'),
    retries: req('retries'),
    retryMaxWaitMs: req('retryMaxWait'),
    maxResponseBytes: req('maxResponseBytes'),
    maxCalendars: req('maxCalendars'),
    maxEvents: req('maxEvents'),
    maxFieldLength: req('maxFieldLength'),
    maxFailedDetails: req('maxFailedDetails'),
    timeZone,
    locales,
    title: str('title')!,
    feedLimit: req('feedLimit'),
    icalPastDays: req('icalPastDays'),
    keepRemovedDays: req('keepRemovedDays'),
    refreshMinutes: Math.max(1, Math.round(req('refresh') / 60_000)),
    templates: str('templates'),
    cacheDir: str('cacheDir')!,
    detailsMaxAgeMs: req('detailsMaxAge'),
    allowShrink: bool('allowShrink'),
    json: bool('json'),
    quiet: bool('quiet'),
    fields: fileData.fields as FieldsConfig | undefined,
    paging: { ...DEFAULT_PAGING, ...(fileData.paging as Partial<PagingConfig> | undefined) },
    serve: { dir: str('dir')!, port: num('port'), host: str('host')! },
    demo: {
      port: num('port'),
      dialect: str('dialect')!,
      faults: str('faults')!,
      latencyMs: req('latency'),
      calendars: num('calendars'),
      eventsPerCalendar: num('events'),
    },
  };
}

/** Validate the config file's top level: known keys only, no secrets. */
function checkFile(file: ConfigLayers['file']): Record<string, unknown> {
  if (!file) return {};
  const { data, path } = file;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new ConfigError(`${path}: expected a JSON object at the top level.`);
  }
  const known = new Set<string>([...OPTIONS.filter((o) => !o.cliOnly).map((o) => o.key), ...FILE_ONLY_KEYS, '$schema']);
  for (const key of Object.keys(data)) {
    if (key === 'token') {
      throw new ConfigError(`${path}: "token" is not allowed in a config file, which tends to end up in git. Set env CALFEED_TOKEN or "tokenFile".`);
    }
    if (!known.has(key)) {
      const hint = nearest(key, [...known]);
      throw new ConfigError(`${path}: unknown key "${key}"${hint ? ` (did you mean "${hint}"?)` : ''}.`);
    }
  }
  const record = data as Record<string, unknown>;
  for (const key of FILE_ONLY_KEYS) {
    const v = record[key];
    if (v !== undefined && (typeof v !== 'object' || v === null || Array.isArray(v))) {
      throw new ConfigError(`${path}: "${key}" must be an object.`);
    }
  }
  return record;
}

const UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000 };
const UNITS_BYTES: Record<string, number> = { b: 1, kb: 1024, k: 1024, mb: 1024 ** 2, m: 1024 ** 2, gb: 1024 ** 3, g: 1024 ** 3 };

/** Parse one raw value by its option type; the result is in ms for durations and seconds options. */
export function parseValue(spec: OptionSpec, raw: RawValue, source: string): RawValue {
  const fail = (expected: string): never => {
    throw new ConfigError(`${source}: expected ${expected}, got ${JSON.stringify(raw)}.`);
  };
  const text = String(raw).trim();
  const bounded = (n: number, what: string): number => {
    if (!Number.isFinite(n)) fail(what);
    if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
      fail(`${what} from ${spec.min ?? '-∞'} to ${spec.max ?? '∞'}`);
    }
    return n;
  };
  switch (spec.type) {
    case 'string':
      if (typeof raw !== 'string' || text === '') fail('a non-empty string');
      return text;
    case 'boolean':
      if (typeof raw === 'boolean') return raw;
      if (/^(1|true|yes)$/i.test(text)) return true;
      if (/^(0|false|no)$/i.test(text)) return false;
      return fail('true or false');
    case 'int':
      if (!/^\d+$/.test(text)) fail('a whole number');
      return bounded(Number(text), 'a whole number');
    case 'number':
      if (!/^\d+(\.\d+)?$/.test(text)) fail('a number');
      return bounded(Number(text), 'a number');
    case 'seconds': {
      if (!/^\d+(\.\d+)?$/.test(text)) fail('a number of seconds');
      const n = Number(text);
      if (n <= 0 || n > 86_400) fail('a number of seconds from 0 to 86400');
      return Math.round(n * 1000);
    }
    case 'duration': {
      const m = /^(\d+(?:\.\d+)?)\s*(ms|s|min|m|h|d)?$/i.exec(text) ?? /^PT?(?:(\d+)H)?(?:(\d+)M)?$/i.exec(text);
      if (!m) return fail('a duration like 90m, 3h or 1d');
      if (text.toUpperCase().startsWith('P')) {
        const ms = Number(m[1] ?? 0) * 3_600_000 + Number(m[2] ?? 0) * 60_000;
        return ms > 0 ? ms : fail('a duration like 90m, 3h or 1d');
      }
      if (!m[2]) return fail('a duration with a unit, like 90m, 3h or 1d');
      const ms = Number(m[1]) * UNITS_MS[m[2].toLowerCase()]!;
      return ms > 0 ? ms : fail('a positive duration like 90m, 3h or 1d');
    }
    case 'bytes': {
      const m = /^(\d+(?:\.\d+)?)\s*([kmg]?b?|[kmg])?$/i.exec(text);
      if (!m) return fail('a size like 20MB or 512KB');
      const bytes = Math.round(Number(m[1]) * UNITS_BYTES[(m[2] || 'b').toLowerCase()]!);
      return bytes >= 1024 ? bytes : fail('a size of at least 1KB');
    }
    case 'ratio': {
      const m = /^(\d+(?:\.\d+)?)(%)?$/.exec(text);
      if (!m) return fail('a ratio like 5% or 0.05');
      const ratio = m[2] ? Number(m[1]) / 100 : Number(m[1]);
      return ratio >= 0 && ratio <= 1 ? ratio : fail('a ratio from 0 to 1 (or 0% to 100%)');
    }
  }
}

function checkHttpUrl(value: string, source: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${source}: "${value}" is not a URL. Give an absolute http(s) URL, e.g. https://portal.example.edu/api.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${source}: "${value}" must start with http:// or https://.`);
  }
  if (url.username || url.password) {
    throw new ConfigError(`${source}: credentials in the URL are not allowed; use CALFEED_TOKEN or --token-file.`);
  }
}

function isLocale(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

/** The known key closest to a typo (edit distance <= 3). */
function nearest(word: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 4;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}
