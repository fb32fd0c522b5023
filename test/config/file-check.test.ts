// The config file's `fields` and `paging` sections are checked against the model, and every
// problem in the configuration is reported in one error.
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.js';
import { CALENDAR_FIELDS, EVENT_FIELDS } from '../../src/normalize/types.js';
import { ConfigError } from '../../src/errors.js';

const withFile = (data: unknown, env: Record<string, string> = {}) => () =>
  resolveConfig('build', { flags: {}, env, file: { path: 'calfeed.config.json', data } });

/** The ConfigError message a resolve throws (fails the test if it throws anything else, or nothing). */
function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('config file: fields and paging', () => {
  it('fields.event.strat was accepted silently: now an unknown key with "did you mean"', () => {
    expect(messageOf(withFile({ fields: { event: { strat: 'kickoff.at' } } }))).toBe(
      'calfeed.config.json: unknown key "fields.event.strat" (did you mean "fields.event.start"?).',
    );
  });

  it('fields.evnt was accepted silently: now an unknown section with "did you mean"', () => {
    expect(messageOf(withFile({ fields: { evnt: { start: 'kickoff.at' } } }))).toMatch(/unknown key "fields\.evnt" \(did you mean "fields\.event"\?\)/);
    expect(messageOf(withFile({ fields: { calendar: { tz: 'zone' } } }))).toMatch(/unknown key "fields\.calendar\.tz"/);
    expect(messageOf(withFile({ fields: { lists: { event: 'rows' } } }))).toMatch(/"fields\.lists\.event" \(did you mean "fields\.lists\.events"\?\)/);
  });

  it('paging.mode "qurey" was accepted silently: now names the modes and suggests one', () => {
    expect(messageOf(withFile({ paging: { mode: 'qurey' } }))).toBe(
      'calfeed.config.json: "paging.mode": expected one of "auto", "none", "query", got "qurey" (did you mean "query"?).',
    );
    expect(messageOf(withFile({ paging: { pagesize: 50 } }))).toMatch(/unknown key "paging\.pagesize" \(did you mean "paging\.pageSize"\?\)/);
  });

  it('"start": 123 crashed with "path.split is not a function": now a ConfigError naming fields.event.start', () => {
    expect(messageOf(withFile({ fields: { event: { start: 123 } } }))).toMatch(
      /^calfeed\.config\.json: "fields\.event\.start": expected a dotted path string .* or a \[date, time\] pair .*, got 123\.$/,
    );
  });

  it('takes [date, time] pairs only where the model reads them (start, end)', () => {
    const ok = withFile({ fields: { event: { start: ['date', 'startTime'], end: ['date', 'endTime'] } } })();
    expect(ok.fields?.event?.start).toEqual(['date', 'startTime']);
    expect(messageOf(withFile({ fields: { event: { title: ['a', 'b'] } } }))).toMatch(/"fields\.event\.title": expected a dotted path string like "schedule\.begins", got \["a","b"\]/);
    expect(messageOf(withFile({ fields: { event: { start: ['date'] } } }))).toMatch(/"fields\.event\.start"/);
    expect(messageOf(withFile({ fields: { lists: { events: ['a', 'b'] } } }))).toMatch(/"fields\.lists\.events"/);
  });

  it('accepts every model field, with "" for "not mapped" as inspect prints it, and every paging setting', () => {
    const blank = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, '']));
    const c = withFile({
      fields: { calendar: blank(CALENDAR_FIELDS), event: blank(EVENT_FIELDS), lists: { calendars: 'data', events: 'payload.rows' } },
      paging: { mode: 'query', pageParam: 'p', sizeParam: 'size', pageSize: 100, firstPage: 0, maxPages: 50 },
    })();
    expect(c.paging).toEqual({ mode: 'query', pageParam: 'p', sizeParam: 'size', pageSize: 100, firstPage: 0, maxPages: 50 });
  });

  it.each([
    [{ paging: { pageSize: 0 } }, /"paging\.pageSize": expected a whole number of at least 1, got 0/],
    [{ paging: { firstPage: -1 } }, /"paging\.firstPage": expected a whole number of at least 0, got -1/],
    [{ paging: { maxPages: '10' } }, /"paging\.maxPages": expected a whole number of at least 1, got "10"/],
    [{ paging: { pageParam: '' } }, /"paging\.pageParam": expected a non-empty string/],
    [{ paging: 'query' }, /"paging" must be an object, got "query"/],
    [{ fields: { event: 'kickoff.at' } }, /"fields\.event" must be an object, got "kickoff\.at"/],
  ])('rejects %j, naming the key path', (data, message) => {
    expect(messageOf(withFile(data))).toMatch(message);
  });
});

describe('config problems reported at once', () => {
  it('unknown config keys were reported one per run: now all in one error', () => {
    const message = messageOf(withFile({ concurency: 4, titel: 'Events', fields: { evnt: {} }, paging: { mode: 'qurey' } }));
    expect(message).toMatch(/^4 configuration problems:\n/);
    expect(message).toContain('unknown key "concurency" (did you mean "concurrency"?)');
    expect(message).toContain('unknown key "titel" (did you mean "title"?)');
    expect(message).toContain('unknown key "fields.evnt"');
    expect(message).toContain('"paging.mode"');
  });

  it('reports bad values beside unknown keys, and bad flags and env values with them', () => {
    const message = messageOf(() =>
      resolveConfig('build', {
        flags: { concurrency: '0' },
        env: { CALFEED_RETRIES: 'x' },
        file: { path: 'c.json', data: { token: 'abc', timeZone: 'Mars/Olympus', feedLimit: 0 } },
      }),
    );
    expect(message).toMatch(/^5 configuration problems:/);
    expect(message).toContain('c.json: "token" is not allowed');
    expect(message).toContain('--concurrency: expected a whole number from 1 to 256');
    expect(message).toContain('env CALFEED_RETRIES: expected a whole number');
    expect(message).toContain('c.json: "timeZone": "Mars/Olympus" is not an IANA time zone name');
    expect(message).toContain('c.json: "feedLimit": expected a whole number from 1 to 100000');
  });
});

describe('messages about env and file values name their source', () => {
  it('a bad CALFEED_TIME_ZONE was blamed on --time-zone: now on the env var', () => {
    const message = messageOf(withFile({}, { CALFEED_TIME_ZONE: 'Mars/Olympus' }));
    expect(message).toMatch(/^env CALFEED_TIME_ZONE: "Mars\/Olympus" is not an IANA time zone name/);
    expect(message).not.toContain('--time-zone');
  });

  it.each([
    [{ CALFEED_BASE_URL: 'portal.example.edu' }, /^env CALFEED_BASE_URL: "portal\.example\.edu" is not a URL/],
    [{ CALFEED_SITE_URL: 'ftp://cdn.example.edu' }, /^env CALFEED_SITE_URL: .* must start with http/],
    [{ CALFEED_LOCALE: 'not a locale!' }, /^env CALFEED_LOCALE: "not a locale!" is not a BCP 47/],
  ])('blames %j on the env var, not the flag', (env, message) => {
    expect(messageOf(withFile({}, env))).toMatch(message);
  });

  it('blames a bad file value on its key', () => {
    expect(messageOf(withFile({ siteUrl: 'cdn.example.edu' }))).toMatch(/^calfeed\.config\.json: "siteUrl": "cdn\.example\.edu" is not a URL/);
    expect(messageOf(withFile({ locale: ' , ' }))).toMatch(/^calfeed\.config\.json: "locale": give at least one language/);
  });
});
