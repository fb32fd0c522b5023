// The option table: one row per setting, read by the flag parser, the env reader, the config-file
// reader, `--help` and the table in docs/configuration.md alike, so the four can never disagree.

export type Command = 'build' | 'inspect' | 'serve' | 'demo-server' | 'verify' | 'init';
export type OptionType = 'string' | 'int' | 'number' | 'boolean' | 'seconds' | 'duration' | 'bytes' | 'ratio' | 'hosts' | 'links';

export interface OptionSpec {
  /** Key in calfeed.config.json and in the resolved config. */
  key: string;
  /** Command-line flag, without dashes. */
  flag: string;
  /** Environment variable (every option has one, for CI). */
  env: string;
  type: OptionType;
  /** Default as the user would write it (shown in help), or undefined for none. */
  default?: string | number | boolean;
  /** Placeholder in help, e.g. URL, DIR, N. */
  arg?: string;
  help: string;
  commands: readonly Command[];
  /** Not settable in the config file (per-invocation switches). */
  cliOnly?: boolean;
  /** Bounds for numbers. */
  min?: number;
  max?: number;
}

const B: readonly Command[] = ['build'];
// init runs an inspect, so it takes inspect's flags (and --config names the file it writes).
const BI: readonly Command[] = ['build', 'inspect', 'init'];

/** Every option calfeed understands, in help order. */
export const OPTIONS: readonly OptionSpec[] = [
  // Where from, where to.
  { key: 'baseUrl', flag: 'base-url', env: 'CALFEED_BASE_URL', type: 'string', arg: 'URL', commands: BI, help: 'Base URL of the portal\'s Event Calendar API. Not set: build from the embedded demo portal.' },
  { key: 'tokenFile', flag: 'token-file', env: 'CALFEED_TOKEN_FILE', type: 'string', arg: 'PATH', commands: BI, help: 'Read the API token from this file (else env CALFEED_TOKEN). Never pass the token as a flag.' },
  { key: 'out', flag: 'out', env: 'CALFEED_OUT', type: 'string', default: 'output', arg: 'DIR', commands: ['build', 'verify'], help: 'Output folder, replaced atomically when the build succeeds (verify: the folder to check).' },
  { key: 'siteUrl', flag: 'site-url', env: 'CALFEED_SITE_URL', type: 'string', default: 'http://localhost:8080/', arg: 'URL', commands: B, help: 'Public URL where the output folder is served; every absolute link starts with it.' },
  { key: 'config', flag: 'config', env: 'CALFEED_CONFIG', type: 'string', arg: 'FILE', commands: BI, cliOnly: true, help: 'JSON config file (default: calfeed.config.json in the working folder, if present; for init, the file it writes).' },
  // How to talk to the portal.
  { key: 'authHeader', flag: 'auth-header', env: 'CALFEED_AUTH_HEADER', type: 'string', default: 'Authorization', arg: 'NAME', commands: BI, help: 'Header that carries the token.' },
  { key: 'authScheme', flag: 'auth-scheme', env: 'CALFEED_AUTH_SCHEME', type: 'string', default: 'Bearer', arg: 'WORD', commands: BI, help: 'Scheme before the token in the header; "none" sends the bare token.' },
  { key: 'authQueryParam', flag: 'auth-query-param', env: 'CALFEED_AUTH_QUERY_PARAM', type: 'string', arg: 'NAME', commands: BI, help: 'Send the token as this query parameter instead of a header.' },
  { key: 'concurrency', flag: 'concurrency', env: 'CALFEED_CONCURRENCY', type: 'int', default: 8, min: 1, max: 256, arg: 'N', commands: BI, help: 'Requests in flight at once.' },
  { key: 'rateLimit', flag: 'rate-limit', env: 'CALFEED_RATE_LIMIT', type: 'number', min: 0.1, max: 10000, arg: 'N', commands: BI, help: 'At most N requests per second (default: no limit beyond --concurrency).' },
  { key: 'connectTimeout', flag: 'connect-timeout', env: 'CALFEED_CONNECT_TIMEOUT', type: 'seconds', default: 10, arg: 'SECONDS', commands: BI, help: 'Time to open a connection.' },
  { key: 'headersTimeout', flag: 'headers-timeout', env: 'CALFEED_HEADERS_TIMEOUT', type: 'seconds', default: 60, arg: 'SECONDS', commands: BI, help: 'Time to wait for response headers (a slow portal needs more).' },
  { key: 'bodyTimeout', flag: 'body-timeout', env: 'CALFEED_BODY_TIMEOUT', type: 'seconds', default: 60, arg: 'SECONDS', commands: BI, help: 'Longest pause while a response body arrives.' },
  { key: 'requestTimeout', flag: 'request-timeout', env: 'CALFEED_REQUEST_TIMEOUT', type: 'seconds', default: 120, arg: 'SECONDS', commands: BI, help: 'Longest a whole request may take, from connecting to the last byte (a body sent slowly but steadily never trips --body-timeout).' },
  { key: 'allowRedirectHosts', flag: 'allow-redirect-host', env: 'CALFEED_ALLOW_REDIRECT_HOSTS', type: 'hosts', arg: 'HOST', commands: BI, help: 'Also follow redirects and links to this host (name, or name:port), never with the token. Repeat the flag, or give a comma-separated list (a JSON array in the config file). Other origins than --base-url are refused.' },
  { key: 'retries', flag: 'retries', env: 'CALFEED_RETRIES', type: 'int', default: 4, min: 0, max: 20, arg: 'N', commands: BI, help: 'Retries on network errors, timeouts and 408/425/429/5xx, with exponential backoff and jitter.' },
  { key: 'retryMaxWait', flag: 'retry-max-wait', env: 'CALFEED_RETRY_MAX_WAIT', type: 'seconds', default: 60, arg: 'SECONDS', commands: BI, help: 'Longest single wait between retries, Retry-After included.' },
  { key: 'maxResponseBytes', flag: 'max-response-bytes', env: 'CALFEED_MAX_RESPONSE_BYTES', type: 'bytes', default: '20MB', arg: 'SIZE', commands: BI, help: 'Largest response body accepted (e.g. 20MB, 512KB).' },
  { key: 'maxCalendars', flag: 'max-calendars', env: 'CALFEED_MAX_CALENDARS', type: 'int', default: 5000, min: 1, max: 1_000_000, arg: 'N', commands: B, help: 'Most calendars accepted from the portal.' },
  { key: 'maxEvents', flag: 'max-events', env: 'CALFEED_MAX_EVENTS', type: 'int', default: 100000, min: 1, max: 10_000_000, arg: 'N', commands: B, help: 'Most events accepted per calendar.' },
  { key: 'maxFieldLength', flag: 'max-field-length', env: 'CALFEED_MAX_FIELD_LENGTH', type: 'int', default: 100000, min: 100, max: 10_000_000, arg: 'N', commands: BI, help: 'Longer text fields are cut to this many characters, with a warning.' },
  { key: 'maxFailedDetails', flag: 'max-failed-details', env: 'CALFEED_MAX_FAILED_DETAILS', type: 'ratio', default: '5%', arg: 'RATIO', commands: B, help: 'Events whose details fail are published from their list entry; if more than this share of events fail or cannot be read, the build fails.' },
  // What to make of the data.
  { key: 'timeZone', flag: 'time-zone', env: 'CALFEED_TIME_ZONE', type: 'string', default: 'UTC', arg: 'ZONE', commands: BI, help: 'IANA zone of portal times that carry no offset (e.g. Europe/Vilnius).' },
  { key: 'locale', flag: 'locale', env: 'CALFEED_LOCALE', type: 'string', default: 'en', arg: 'LOCALES', commands: BI, help: 'Language for dates and multilingual values; a list like "lt,en" sets the fallback order. Page text is in the first with a message catalog (en, lt, or one of --templates).' },
  { key: 'title', flag: 'title', env: 'CALFEED_TITLE', type: 'string', default: 'Events', arg: 'TEXT', commands: B, help: 'The site\'s name: title of the combined feeds and the index page, and the end of every page title.' },
  { key: 'logo', flag: 'logo', env: 'CALFEED_LOGO', type: 'string', arg: 'URL', commands: B, help: 'Logo beside the site\'s name in every page\'s header: an http(s) URL, or a path on the site\'s host such as /static/logo.svg.' },
  { key: 'primaryColor', flag: 'primary-color', env: 'CALFEED_PRIMARY_COLOR', type: 'string', arg: 'COLOR', commands: B, help: 'Brand colour of buttons, links and the header rule in the light theme, as #rgb or #rrggbb (the CSS property --calfeed-primary).' },
  { key: 'headerLinks', flag: 'header-link', env: 'CALFEED_HEADER_LINKS', type: 'links', arg: 'LABEL=URL', commands: B, help: 'A link in every page\'s header, after the site\'s name: an http(s) URL, or a path on the site (about/ from --site-url, /contact/ from its host). Repeat the flag; in the config file an array of {"label", "url"}; in env a JSON array, or one LABEL=URL a line.' },
  { key: 'footerLinks', flag: 'footer-link', env: 'CALFEED_FOOTER_LINKS', type: 'links', arg: 'LABEL=URL', commands: B, help: 'A link in every page\'s footer, given as --header-link\'s are.' },
  // Feeds.
  { key: 'feedLimit', flag: 'feed-limit', env: 'CALFEED_FEED_LIMIT', type: 'int', default: 500, min: 1, max: 100000, arg: 'N', commands: B, help: 'Most items in each RSS/Atom/JSON feed (upcoming events, by start).' },
  { key: 'icalPastDays', flag: 'ical-past-days', env: 'CALFEED_ICAL_PAST_DAYS', type: 'int', default: 90, min: 0, max: 36500, arg: 'DAYS', commands: B, help: 'iCalendar keeps events that ended up to this many days ago.' },
  { key: 'keepRemovedDays', flag: 'keep-removed-days', env: 'CALFEED_KEEP_REMOVED_DAYS', type: 'int', default: 30, min: 0, max: 3650, arg: 'DAYS', commands: B, help: 'An event gone from the API stays in iCalendar as cancelled this long, so subscribed apps drop it.' },
  { key: 'refresh', flag: 'refresh', env: 'CALFEED_REFRESH', type: 'duration', default: '3h', arg: 'DURATION', commands: B, help: 'How often calendar apps should refresh (REFRESH-INTERVAL, X-PUBLISHED-TTL), e.g. 3h, 90m.' },
  { key: 'templates', flag: 'templates', env: 'CALFEED_TEMPLATES', type: 'string', arg: 'DIR', commands: B, help: 'Folder of templates, partials, assets and message catalogs (locales/{lang}.json) that override the built-in ones; see docs/templates.md.' },
  // Incremental builds and safety.
  { key: 'cacheDir', flag: 'cache-dir', env: 'CALFEED_CACHE_DIR', type: 'string', default: '.calfeed-cache', arg: 'DIR', commands: B, help: 'Build state kept between runs (ETags, first-seen times, sequences). Keep it with your CI cache.' },
  { key: 'detailsMaxAge', flag: 'details-max-age', env: 'CALFEED_DETAILS_MAX_AGE', type: 'duration', default: '24h', arg: 'DURATION', commands: B, help: 'Details of an unchanged list entry are re-checked after this long.' },
  { key: 'threads', flag: 'threads', env: 'CALFEED_THREADS', type: 'int', min: 0, max: 64, arg: 'N', commands: B, help: 'Whether files are written by a thread of their own beside the main one: 0 does everything in the main thread, any other number adds the writer thread (default: the writer thread when the process may use more than one core). 0 is for a container with less CPU quota than the cores it sees, which Node.js cannot tell. The output is the same either way.' },
  { key: 'allowShrink', flag: 'allow-shrink', env: 'CALFEED_ALLOW_SHRINK', type: 'boolean', default: false, commands: B, help: 'Publish even when the build has less than half the events or calendars of the last one.' },
  // Output of the command itself.
  { key: 'json', flag: 'json', env: 'CALFEED_JSON', type: 'boolean', default: false, commands: ['build', 'inspect', 'verify'], cliOnly: true, help: 'Print a machine-readable summary on stdout (logs stay on stderr).' },
  { key: 'quiet', flag: 'quiet', env: 'CALFEED_QUIET', type: 'boolean', default: false, commands: BI, cliOnly: true, help: 'No progress output; warnings and errors only.' },
  { key: 'verbose', flag: 'verbose', env: 'CALFEED_VERBOSE', type: 'boolean', default: false, commands: B, cliOnly: true, help: 'Also print what the build reads of its own state (last build, history, render record, crawl cache) and why it cannot use it.' },
  // serve
  { key: 'dir', flag: 'dir', env: 'CALFEED_SERVE_DIR', type: 'string', default: 'output', arg: 'DIR', commands: ['serve'], cliOnly: true, help: 'Folder to preview.' },
  { key: 'port', flag: 'port', env: 'CALFEED_PORT', type: 'int', min: 0, max: 65535, arg: 'N', commands: ['serve', 'demo-server'], cliOnly: true, help: 'Port to listen on (serve: 8080; demo-server: random).' },
  { key: 'host', flag: 'host', env: 'CALFEED_HOST', type: 'string', default: '127.0.0.1', arg: 'HOST', commands: ['serve'], cliOnly: true, help: 'Address to listen on.' },
  // demo-server
  { key: 'dialect', flag: 'dialect', env: 'CALFEED_DEMO_DIALECT', type: 'string', default: 'default', arg: 'NAME', commands: ['demo-server'], cliOnly: true, help: 'Response dialect: default, envelope, multilingual, custom.' },
  { key: 'faults', flag: 'faults', env: 'CALFEED_DEMO_FAULTS', type: 'string', default: 'none', arg: 'MODE', commands: ['demo-server'], cliOnly: true, help: 'Fault injection: none, flaky, down, garbage, slow, empty, unauthorized, hostile, huge, redirect.' },
  { key: 'latency', flag: 'latency', env: 'CALFEED_DEMO_LATENCY', type: 'int', default: 0, min: 0, max: 60000, arg: 'MS', commands: ['demo-server'], cliOnly: true, help: 'Delay before every response, in milliseconds.' },
  { key: 'calendars', flag: 'calendars', env: 'CALFEED_DEMO_CALENDARS', type: 'int', min: 1, max: 100000, arg: 'N', commands: ['demo-server'], cliOnly: true, help: 'Generate this many calendars (scale mode).' },
  { key: 'events', flag: 'events', env: 'CALFEED_DEMO_EVENTS', type: 'int', min: 1, max: 1000000, arg: 'N', commands: ['demo-server'], cliOnly: true, help: 'Generate this many events per calendar (scale mode).' },
];

/** Keys that only the config file can set (structured values). */
export const FILE_ONLY_KEYS = ['fields', 'paging'] as const;

/** The options of one command. */
export function optionsFor(command: Command): OptionSpec[] {
  return OPTIONS.filter((o) => o.commands.includes(command));
}
