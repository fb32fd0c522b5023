// Resolve: layers in, one validated config out. Pure: the caller has already read the flags, the
// environment and the config file; this only applies precedence (flags > env > file > defaults),
// parses values and says precisely what is wrong and where it came from.

import { IANAZone } from 'luxon';
import { ConfigError } from '../errors.js';
import type { FieldsConfig } from '../normalize/index.js';
import type { PagingConfig } from '../crawl/index.js';
import type { HttpOptions } from '../http/index.js';
import type { SiteLink } from '../model.js';
import { checkFile } from './file-check.js';
import { parseLinks } from './links.js';
import { OPTIONS, type Command, type OptionSpec } from './options.js';

export type RawValue = string | number | boolean | string[] | SiteLink[];
export interface ConfigLayers {
  flags: Record<string, RawValue | undefined>;
  env: Record<string, string | undefined>;
  /** Parsed config file and its path (for messages). */
  file?: { path: string; data: unknown };
}

/** The HTTP client settings the config sets, declared (and documented) once, in HttpOptions. */
type HttpSettings = Pick<
  HttpOptions,
  'auth' | 'concurrency' | 'rateLimit' | 'connectTimeoutMs' | 'headersTimeoutMs' | 'bodyTimeoutMs' | 'requestTimeoutMs' | 'retries' | 'retryMaxWaitMs' | 'maxResponseBytes' | 'allowRedirectHosts'
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
  /** Logo URL, or a path on the site's host. */
  logo?: string;
  /** #rgb or #rrggbb. */
  primaryColor?: string;
  headerLinks: SiteLink[];
  footerLinks: SiteLink[];
  feedLimit: number;
  icalPastDays: number;
  keepRemovedDays: number;
  refreshMinutes: number;
  templates?: string;
  cacheDir: string;
  detailsMaxAgeMs: number;
  allowShrink: boolean;
  /** 0: everything in the main thread; more: files are written by a thread of their own; default: by the cores. */
  threads?: number;
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  fields?: FieldsConfig;
  paging: PagingConfig;
  serve: { dir: string; port?: number; host: string };
  demo: { port?: number; dialect: string; faults: string; latencyMs: number; calendars?: number; eventsPerCalendar?: number };
}

const DEFAULT_PAGING: PagingConfig = { mode: 'auto', pageParam: 'page', firstPage: 1, maxPages: 1000 };

/** Merge the layers and validate every value; throws one ConfigError naming every bad value and its source. */
export function resolveConfig(command: Command, layers: ConfigLayers): ResolvedConfig {
  const { get, fileData } = optionValues(layers);
  const str = (k: string) => get.get(k) as string | undefined;
  const num = (k: string) => get.get(k) as number | undefined;
  const req = (k: string) => get.get(k) as number;
  const bool = (k: string) => get.get(k) === true;

  const siteUrlRaw = str('siteUrl')!;

  return {
    command,
    baseUrl: str('baseUrl')?.replace(/\/+$/, ''),
    tokenFile: str('tokenFile'),
    out: str('out')!,
    siteUrl: siteUrlRaw.endsWith('/') ? siteUrlRaw : siteUrlRaw + '/',
    siteUrlIsDefault: layers.flags.siteUrl === undefined && !layers.env.CALFEED_SITE_URL && fileData.siteUrl === undefined,
    auth: authOf(str('authHeader')!, str('authScheme')!, str('authQueryParam')),
    concurrency: req('concurrency'),
    rateLimit: num('rateLimit'),
    connectTimeoutMs: req('connectTimeout'),
    headersTimeoutMs: req('headersTimeout'),
    bodyTimeoutMs: req('bodyTimeout'),
    requestTimeoutMs: req('requestTimeout'),
    retries: req('retries'),
    retryMaxWaitMs: req('retryMaxWait'),
    maxResponseBytes: req('maxResponseBytes'),
    allowRedirectHosts: (get.get('allowRedirectHosts') as string[] | undefined) ?? [],
    maxCalendars: req('maxCalendars'),
    maxEvents: req('maxEvents'),
    maxFieldLength: req('maxFieldLength'),
    maxFailedDetails: req('maxFailedDetails'),
    timeZone: str('timeZone')!,
    locales: localesOf(str('locale')!),
    title: str('title')!,
    logo: str('logo'),
    primaryColor: str('primaryColor'),
    headerLinks: (get.get('headerLinks') as SiteLink[] | undefined) ?? [],
    footerLinks: (get.get('footerLinks') as SiteLink[] | undefined) ?? [],
    feedLimit: req('feedLimit'),
    icalPastDays: req('icalPastDays'),
    keepRemovedDays: req('keepRemovedDays'),
    refreshMinutes: Math.max(1, Math.round(req('refresh') / 60_000)),
    templates: str('templates'),
    cacheDir: str('cacheDir')!,
    detailsMaxAgeMs: req('detailsMaxAge'),
    allowShrink: bool('allowShrink'),
    threads: num('threads'),
    json: bool('json'),
    quiet: bool('quiet'),
    verbose: bool('verbose'),
    fields: fileData.fields as FieldsConfig | undefined,
    paging: { ...DEFAULT_PAGING, ...(fileData.paging as Partial<PagingConfig> | undefined) },
    serve: { dir: str('dir')!, port: num('port'), host: str('host')! },
    demo: { port: num('port'), dialect: str('dialect')!, faults: str('faults')!, latencyMs: req('latency'), calendars: num('calendars'), eventsPerCalendar: num('events') },
  };
}

/** How the token is sent: in the header with its scheme ("none": the bare token), or as a query parameter. */
function authOf(header: string, scheme: string, queryParam: string | undefined): ResolvedConfig['auth'] {
  return {
    mode: queryParam ? 'query' : 'header',
    header,
    scheme: scheme.toLowerCase() === 'none' ? '' : scheme,
    queryParam: queryParam ?? 'access_token',
  };
}

/**
 * Every option's value, parsed and checked, and the config file's data; throws one ConfigError
 * naming every bad value and its source.
 */
function optionValues(layers: ConfigLayers): { get: Map<string, RawValue | undefined>; fileData: Record<string, unknown> } {
  const problems: string[] = [];
  const fileData = checkFile(layers.file, problems);
  const value = (spec: OptionSpec): RawValue | undefined => {
    const [raw, source] = pick(spec, layers, fileData);
    if (raw === undefined) return undefined;
    let parsed: RawValue;
    try {
      parsed = parseValue(spec, raw, source);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(error.message);
      return undefined;
    }
    const problem = CHECKS[spec.key]?.(parsed as string);
    if (problem) problems.push(`${source}: ${problem}`);
    return problem ? undefined : parsed;
  };
  const get = new Map(OPTIONS.map((spec) => [spec.key, value(spec)] as const));
  if (problems.length === 1) throw new ConfigError(problems[0]!);
  if (problems.length > 1) throw new ConfigError(`${problems.length} configuration problems:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  return { get, fileData };
}

/** The raw value that wins (flags > env > file > default) and where it came from, for messages. */
function pick(spec: OptionSpec, layers: ConfigLayers, fileData: Record<string, unknown>): [RawValue | undefined, string] {
  const fromFlag = layers.flags[spec.key];
  if (fromFlag !== undefined) return [fromFlag, `--${spec.flag}`];
  const fromEnv = layers.env[spec.env];
  if (fromEnv !== undefined && fromEnv !== '') return [fromEnv, `env ${spec.env}`];
  const fromFile = fileData[spec.key];
  if (fromFile !== undefined) return [fromFile as RawValue, `${layers.file!.path}: "${spec.key}"`];
  return [spec.default, `default of --${spec.flag}`];
}

/** Checks beyond the value's type, by option key; each returns what is wrong, or undefined. */
const CHECKS: Partial<Record<string, (value: string) => string | undefined>> = {
  baseUrl: httpUrlProblem,
  siteUrl: httpUrlProblem,
  timeZone: (zone) => (IANAZone.isValidZone(zone) ? undefined : `"${zone}" is not an IANA time zone name. Use a name like Europe/Vilnius or America/New_York.`),
  logo: (logo) => (/^\/(?!\/)/.test(logo) || !httpUrlProblem(logo) ? undefined : `"${logo}" is neither an http(s) URL nor a path on the site's host (/static/logo.svg).`),
  primaryColor: (color) => (/^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(color) ? undefined : `"${color}" is not a colour as #rgb or #rrggbb (e.g. #7a0019).`),
  locale: (list) => {
    const locales = localesOf(list);
    if (locales.length === 0) return 'give at least one language, e.g. "en" or "lt,en".';
    const bad = locales.find((locale) => !isLocale(locale));
    return bad === undefined ? undefined : `"${bad}" is not a BCP 47 language tag (e.g. en, lt, en-GB).`;
  },
};

const localesOf = (list: string) => list.split(',').map((l) => l.trim()).filter(Boolean);

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
    case 'duration':
      return parseDuration(text, fail);
    case 'bytes': {
      const m = /^(\d+(?:\.\d+)?)\s*([kmg]?b?|[kmg])?$/i.exec(text);
      if (!m) return fail('a size like 20MB or 512KB');
      const bytes = Math.round(Number(m[1]) * UNITS_BYTES[(m[2] || 'b').toLowerCase()]!);
      return bytes >= 1024 ? bytes : fail('a size of at least 1KB');
    }
    case 'links':
      return parseLinks(raw, source);
    case 'hosts': {
      // From a repeated flag, a comma-separated string, or a JSON array in the config file.
      const given = (Array.isArray(raw) ? (raw as unknown[]) : [raw]).flatMap((h) => (typeof h === 'string' ? h.split(',') : [h]));
      const items = given.map((h) => (typeof h === 'string' ? h.trim().toLowerCase() : h)).filter((h) => h !== '');
      const host = /^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;
      for (const h of items) if (typeof h !== 'string' || !host.test(h)) fail('host names like files.example.edu or files.example.edu:8443 (no scheme, no path)');
      return items as string[];
    }
    case 'ratio': {
      const m = /^(\d+(?:\.\d+)?)(%)?$/.exec(text);
      if (!m) return fail('a ratio like 5% or 0.05');
      const ratio = m[2] ? Number(m[1]) / 100 : Number(m[1]);
      return ratio >= 0 && ratio <= 1 ? ratio : fail('a ratio from 0 to 1 (or 0% to 100%)');
    }
  }
}

/** A duration (90m, 3h, 1d, 500ms, or ISO 8601 PT3H) in ms; `fail` names what was expected. */
function parseDuration(text: string, fail: (expected: string) => never): number {
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

function httpUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value}" is not a URL. Give an absolute http(s) URL, e.g. https://portal.example.edu/api.`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `"${value}" must start with http:// or https://.`;
  if (url.username || url.password) return 'credentials in the URL are not allowed; use CALFEED_TOKEN or --token-file.';
  return undefined;
}

function isLocale(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}
