import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.js';
import { ConfigError } from '../../src/errors.js';

const none = { flags: {}, env: {} };

describe('resolveConfig', () => {
  it('applies the documented defaults', () => {
    const c = resolveConfig('build', none);
    expect(c.baseUrl).toBeUndefined();
    expect(c.out).toBe('output');
    expect(c.timeZone).toBe('UTC');
    expect(c.concurrency).toBe(8);
    expect(c.auth).toEqual({ mode: 'header', header: 'Authorization', scheme: 'Bearer', queryParam: 'access_token' });
    expect(c.maxResponseBytes).toBe(20 * 1024 * 1024);
    expect(c.maxFailedDetails).toBeCloseTo(0.05);
    expect(c.refreshMinutes).toBe(180);
    expect(c.keepRemovedDays).toBe(30);
    expect(c.icalPastDays).toBe(90);
    expect(c.feedLimit).toBe(500);
    expect(c.detailsMaxAgeMs).toBe(24 * 3_600_000);
    expect(c.siteUrlIsDefault).toBe(true);
  });

  it('ranks flags over env over file over defaults', () => {
    const file = { path: 'calfeed.config.json', data: { concurrency: 3, timeZone: 'Europe/Vilnius', out: 'from-file' } };
    const env = { CALFEED_CONCURRENCY: '5', CALFEED_OUT: 'from-env' };
    expect(resolveConfig('build', { flags: {}, env: {}, file }).concurrency).toBe(3);
    expect(resolveConfig('build', { flags: {}, env, file }).concurrency).toBe(5);
    const c = resolveConfig('build', { flags: { concurrency: '7' }, env, file });
    expect(c.concurrency).toBe(7);
    expect(c.out).toBe('from-env');
    expect(c.timeZone).toBe('Europe/Vilnius');
  });

  it('normalizes URLs and the auth settings', () => {
    const c = resolveConfig('build', {
      flags: { baseUrl: 'https://portal.example.edu/api/', siteUrl: 'https://cdn.example.edu/events', authScheme: 'none', authHeader: 'X-Api-Key' },
      env: {},
    });
    expect(c.baseUrl).toBe('https://portal.example.edu/api');
    expect(c.siteUrl).toBe('https://cdn.example.edu/events/');
    expect(c.auth).toMatchObject({ mode: 'header', header: 'X-Api-Key', scheme: '' });
    expect(resolveConfig('build', { flags: { authQueryParam: 'token' }, env: {} }).auth).toMatchObject({ mode: 'query', queryParam: 'token' });
  });

  it.each([
    [{ concurrency: '0' }, /--concurrency: expected a whole number from 1 to 256/],
    [{ concurrency: 'many' }, /--concurrency: expected a whole number/],
    [{ timeZone: 'Mars/Olympus' }, /not an IANA time zone/],
    [{ baseUrl: 'portal.example.edu' }, /--base-url: "portal.example.edu" is not a URL/],
    [{ baseUrl: 'ftp://portal.example.edu' }, /must start with http/],
    [{ baseUrl: 'https://user:secret@portal.example.edu' }, /credentials in the URL/],
    [{ refresh: '3' }, /duration with a unit/],
    [{ maxResponseBytes: 'lots' }, /a size like 20MB/],
    [{ maxFailedDetails: '150%' }, /a ratio from 0 to 1/],
    [{ locale: 'not a locale!' }, /BCP 47/],
  ])('rejects %j with a message naming the flag', (flags, message) => {
    expect(() => resolveConfig('build', { flags, env: {} })).toThrow(message);
  });

  it('names the env var or file key a bad value came from', () => {
    expect(() => resolveConfig('build', { flags: {}, env: { CALFEED_CONCURRENCY: 'x' } })).toThrow(/env CALFEED_CONCURRENCY/);
    expect(() => resolveConfig('build', { flags: {}, env: {}, file: { path: 'c.json', data: { concurrency: -1 } } })).toThrow(/c.json: "concurrency"/);
  });

  it('parses durations, sizes and ratios in their documented forms', () => {
    const c = resolveConfig('build', { flags: { refresh: '90m', detailsMaxAge: 'PT2H', maxResponseBytes: '512KB', maxFailedDetails: '0.1', connectTimeout: '2.5' }, env: {} });
    expect(c.refreshMinutes).toBe(90);
    expect(c.detailsMaxAgeMs).toBe(2 * 3_600_000);
    expect(c.maxResponseBytes).toBe(512 * 1024);
    expect(c.maxFailedDetails).toBeCloseTo(0.1);
    expect(c.connectTimeoutMs).toBe(2500);
  });

  it('bounds every request by --request-timeout, 120 s by default', () => {
    expect(resolveConfig('build', none).requestTimeoutMs).toBe(120_000);
    expect(resolveConfig('build', { flags: { requestTimeout: '5' }, env: {} }).requestTimeoutMs).toBe(5000);
  });

  it('takes --allow-redirect-host repeated, as a comma list (env) or an array (file); none by default', () => {
    expect(resolveConfig('build', none).allowRedirectHosts).toEqual([]);
    expect(resolveConfig('build', { flags: { allowRedirectHosts: ['Files.Example.edu', 'cdn.example.edu:8443,c.example'] }, env: {} }).allowRedirectHosts).toEqual([
      'files.example.edu',
      'cdn.example.edu:8443',
      'c.example',
    ]);
    expect(resolveConfig('build', { flags: {}, env: { CALFEED_ALLOW_REDIRECT_HOSTS: 'a.example, [::1]:8080' } }).allowRedirectHosts).toEqual(['a.example', '[::1]:8080']);
    const file = { path: 'c.json', data: { allowRedirectHosts: ['b.example'] } };
    expect(resolveConfig('build', { flags: {}, env: {}, file }).allowRedirectHosts).toEqual(['b.example']);
    expect(() => resolveConfig('build', { flags: { allowRedirectHosts: ['https://x.example/'] }, env: {} })).toThrow(/--allow-redirect-host: expected host names/);
  });

  it('refuses a token in the config file and unknown keys, suggesting the right one', () => {
    const file = (data: object) => ({ flags: {}, env: {}, file: { path: 'calfeed.config.json', data } });
    expect(() => resolveConfig('build', file({ token: 'abc' }))).toThrow(/"token" is not allowed/);
    expect(() => resolveConfig('build', file({ concurency: 4 }))).toThrow(/unknown key "concurency" \(did you mean "concurrency"\?\)/);
    expect(() => resolveConfig('build', file({ fields: 'start' }))).toThrow(ConfigError);
    expect(() => resolveConfig('build', file([1]))).toThrow(/JSON object/);
  });

  it('reads fields and paging from the file only', () => {
    const c = resolveConfig('build', { flags: {}, env: {}, file: { path: 'x', data: { fields: { event: { start: 'kickoff.at' } }, paging: { mode: 'query', pageSize: 50 } } } });
    expect(c.fields).toEqual({ event: { start: 'kickoff.at' } });
    expect(c.paging).toMatchObject({ mode: 'query', pageSize: 50, pageParam: 'page', firstPage: 1 });
  });

  it('splits a locale list into a preference order', () => {
    expect(resolveConfig('build', { flags: { locale: 'lt, en' }, env: {} }).locales).toEqual(['lt', 'en']);
  });
});
