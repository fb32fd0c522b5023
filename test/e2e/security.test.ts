// Issue 7 acceptance, secrets and limits: the token never reaches the output, the cache, the logs, the
// --json summary or another origin (header and query-parameter modes, redirects); oversized responses
// fail with the limit named and leave the published folder alone; user templates cannot reach secrets.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal, type DemoPortalOptions } from '../../src/demo/server.js';
import { runCli, type CliResult } from '../support/cli.js';
import { snapshotTree } from '../support/tree.js';
import { filesContaining, inspectHtml, listEntries } from '../support/untrusted.js';
import { PAGE_NAMES } from '../../src/render/html/templates.js';

const NOW = Date.now();
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'calfeed-security-'));
});
afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

async function withPortal<T>(options: DemoPortalOptions, fn: (p: DemoPortal) => Promise<T>): Promise<T> {
  const portal = await startDemoPortal({ now: NOW, ...options });
  try {
    return await fn(portal);
  } finally {
    await portal.close();
  }
}

interface Built {
  result: CliResult;
  work: string;
  out: string;
  cache: string;
}

/** One build in a fresh work dir (--out and the cache dir inside it), the token in the environment. */
async function build(portal: DemoPortal, name: string, extra: string[] = [], baseUrl = portal.url): Promise<Built> {
  const work = join(root, name);
  await mkdir(work);
  const out = join(work, 'site');
  const cache = join(work, 'cache');
  const result = await runCli(
    ['build', '--base-url', baseUrl, '--out', out, '--cache-dir', cache, '--time-zone', portal.timeZone, '--retry-max-wait', '1', '--json', ...extra],
    { env: { CALFEED_TOKEN: portal.tokens.university }, cwd: work },
  );
  return { result, work, out, cache };
}

/** The token (raw, URL-encoded or base64) is in no file of --out or the cache, and not in stdout, stderr or the summary. */
async function expectNoLeak(built: Built, token: string): Promise<void> {
  const { result } = built;
  for (const dir of [built.out, built.cache]) {
    const exists = await readdir(dir).then(() => true, () => false);
    if (exists) expect(await filesContaining(dir, token), dir).toEqual([]);
  }
  for (const form of [token, encodeURIComponent(token), Buffer.from(token).toString('base64')]) {
    expect(result.stdout).not.toContain(form);
    expect(result.stderr).not.toContain(form);
  }
  // The --json summary (success or failure) is one JSON document on stdout.
  expect(JSON.stringify(JSON.parse(result.stdout))).not.toContain(token);
}

describe('the token', () => {
  it('in query-parameter mode reaches the portal (the build works) but no file, log or summary, and not the other origin', async () => {
    await withPortal({ faults: 'hostile', auth: { mode: 'query', param: 'api_key' } }, async (portal) => {
      const built = await build(portal, 'query', ['--auth-query-param', 'api_key', '--allow-redirect-host', '127.0.0.1']);
      expect(built.result.code, built.result.stderr).toBe(0);
      // The portal saw the token where it asked for it: the only way the build could pass its auth.
      expect(portal.stats().authFailures).toBe(0);
      expect(portal.stats().lastAuthHeaders).toContain(portal.tokens.university);
      // The hostile details redirect, allowed: followed, without the token in the query.
      expect(portal.stats().foreignRequests).toBeGreaterThan(0);
      expect(portal.stats().foreignAuthSeen).toBe(false);
      await expectNoLeak(built, portal.tokens.university);
      // Cache keys and messages are token-free URLs: not even the parameter's name with a value.
      for (const file of (await listEntries(built.cache)).filter((e) => e.kind === 'file')) {
        expect(await readFile(join(built.cache, file.path), 'utf8')).not.toMatch(/api_key=/);
      }
      expect(built.result.stderr).not.toMatch(/api_key=/);
    });
  });

  it.each([
    ['header', [] as string[], undefined],
    ['query', ['--auth-query-param', 'api_key'], { mode: 'query', param: 'api_key' } as const],
  ])('is not carried to an allowed host when the portal redirects the calendar list there (%s mode)', async (mode, flags, auth) => {
    await withPortal({ faults: 'redirect', ...(auth ? { auth } : {}) }, async (portal) => {
      const built = await build(portal, `redirect-${mode}`, [...flags, '--allow-redirect-host', '127.0.0.1']);
      expect(portal.stats().foreignRequests).toBeGreaterThan(0);
      expect(portal.stats().foreignAuthSeen).toBe(false);
      expect(built.result.stderr).toMatch(/leads to another origin, http:\/\/127\.0\.0\.1:\d+; following it without the token/);
      // The other origin answered without asking for a token; the event lists came from the portal with it.
      expect(built.result.code, built.result.stderr).toBe(0);
      await expectNoLeak(built, portal.tokens.university);
    });
  });

  it('regression: redirects to another origin were followed and published (issue 17, item 7): refused unless allowed, naming both origins and the flag', async () => {
    await withPortal({ faults: 'redirect' }, async (portal) => {
      const built = await build(portal, 'redirect-refused', ['--retries', '0']);
      expect(built.result.code, built.result.stderr).toBe(1);
      expect(portal.stats().foreignRequests).toBe(0);
      const message = JSON.parse(built.result.stdout).error.message as string;
      for (const text of [built.result.stderr, message]) {
        expect(text).toContain(`a redirect to another origin, http://127.0.0.1:`);
        expect(text).toContain(`(the portal is ${new URL(portal.url).origin})`);
        expect(text).toMatch(/--allow-redirect-host 127\.0\.0\.1:\d+/);
      }
      expect((await readdir(built.work)).includes('site')).toBe(false);
      await expectNoLeak(built, portal.tokens.university);
    });
  });

  it('sent over plain http to a host that is not loopback draws a warning (0.0.0.0: not named loopback, yet the traffic stays on this machine)', async () => {
    // A portal of two events: the warning is given before the crawl, and the builds only have to work.
    await withPortal({ calendars: 1, eventsPerCalendar: 2 }, async (portal) => {
      const port = new URL(portal.url).port;
      const built = await build(portal, 'plain-http', ['--retries', '0'], `http://0.0.0.0:${port}/api`);
      expect(built.result.stderr).toMatch(/--base-url http:\/\/0\.0\.0\.0:\d+\/api is plain http: the token travels unencrypted\. Use https\./);
      await expectNoLeak(built, portal.tokens.university);
      const loopback = await build(portal, 'loopback', ['--retries', '0'], `http://localhost:${port}/api`);
      expect(loopback.result.code, loopback.result.stderr).toBe(0);
      expect(loopback.result.stderr).not.toMatch(/plain http/);
    });
  });
});

describe('size limits', () => {
  let work: string;
  let out: string;
  let published: Awaited<ReturnType<typeof snapshotTree>>;

  beforeAll(async () => {
    work = join(root, 'limits');
    await mkdir(work);
    out = join(work, 'site');
    await withPortal({}, async (portal) => {
      const first = await runCli(['build', '--base-url', portal.url, '--out', out, '--cache-dir', join(work, 'cache'), '--time-zone', portal.timeZone], {
        env: { CALFEED_TOKEN: portal.tokens.university },
        cwd: work,
      });
      expect(first.code, first.stderr).toBe(0);
    });
    published = await snapshotTree(out);
  });

  async function failingBuild(options: DemoPortalOptions, extra: string[]): Promise<CliResult> {
    return withPortal(options, async (portal) => {
      const r = await runCli(['build', '--base-url', portal.url, '--out', out, '--cache-dir', join(work, 'cache'), '--time-zone', portal.timeZone, '--json', ...extra], {
        env: { CALFEED_TOKEN: portal.tokens.university },
        cwd: work,
      });
      expect(JSON.stringify(JSON.parse(r.stdout))).not.toContain(portal.tokens.university);
      expect(r.stderr).not.toContain(portal.tokens.university);
      return r;
    });
  }

  async function expectOutUntouched(): Promise<void> {
    expect(await snapshotTree(out)).toEqual(published);
    expect((await readdir(work)).sort()).toEqual(['cache', 'site']);
  }

  it('a calendar list over 25 MB fails at the 20 MB default, naming the limit and --max-response-bytes', async () => {
    const r = await failingBuild({ faults: 'huge' }, []);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/larger than 20 MB/);
    expect(r.stderr).toMatch(/--max-response-bytes/);
    expect(r.stderr).toContain('event-calendars');
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, error: { code: 'LIMIT', exitCode: 1 } });
    await expectOutUntouched();
  });

  it('--max-response-bytes 1KB fails on a normal portal the same way and leaves the published folder untouched', async () => {
    const r = await failingBuild({}, ['--max-response-bytes', '1KB']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/larger than 1 KB, the limit set by --max-response-bytes/);
    await expectOutUntouched();
  });
});

describe('user templates (--templates)', () => {
  /** Each page renders a dump of its whole view, plus attempts at prototypes and secrets. */
  const DUMP = '{{#each this}}[{{@key}}={{this}}{{> dump}}]{{/each}}';
  const PROBE = [
    '<pre id="probe">',
    'constructor=[{{constructor}}] proto=[{{__proto__}}] lookup=[{{lookup this "constructor"}}] lookup-proto=[{{lookup this "__proto__"}}]',
    ' with=[{{#with constructor}}{{name}}{{/with}}] token=[{{lookup this "token"}}] config=[{{lookup @root "config"}}] env=[{{lookup this "env"}}]',
    '</pre><pre id="dump">{{> dump}}</pre>',
  ].join('');
  const PAGES = PAGE_NAMES;

  async function templateDir(name: string, page: string): Promise<string> {
    const dir = join(root, name);
    await mkdir(join(dir, 'pages'), { recursive: true });
    await mkdir(join(dir, 'partials'), { recursive: true });
    await writeFile(join(dir, 'partials', 'dump.hbs'), DUMP);
    for (const p of PAGES) await writeFile(join(dir, 'pages', `${p}.hbs`), page);
    return dir;
  }

  it('see only their view: prototype access gives nothing, and no view holds the token or config', async () => {
    const dir = await templateDir('templates-probe', PROBE);
    await withPortal({ faults: 'hostile' }, async (portal) => {
      const built = await build(portal, 'templates-probe-build', ['--templates', dir]);
      expect(built.result.code, built.result.stderr).toBe(0);
      await expectNoLeak(built, portal.tokens.university);
      const index = await readFile(join(built.out, 'index.html'), 'utf8');
      expect(index).toContain('constructor=[] proto=[] lookup=[] lookup-proto=[] with=[] token=[] config=[] env=[]');
      // The dump really walked the view: it reached calendar titles, escaped.
      expect(index).toContain('Faculty of Science');
      expect(index).toContain('&lt;script&gt;alert(&quot;calendar&quot;)&lt;/script&gt;');
      expect(index).not.toMatch(/baseUrl|tokenFile|authHeader|cacheDir|CALFEED_/);
      // Escaping still applies in a user template: the dumped data cannot open a script element.
      for (const e of (await listEntries(built.out)).filter((f) => f.path.endsWith('.html'))) {
        const report = inspectHtml(await readFile(join(built.out, e.path), 'utf8'), { page: false });
        expect(report.problems, e.path).toEqual([]);
      }
    });
  });

  it('that ask for a field the view lacks (token, config) fail the build with the template named, and print no secret', async () => {
    for (const [name, page] of [
      ['templates-token', '{{token}}'],
      ['templates-config', '{{config.token}}'],
      ['templates-root', '{{@root.config.baseUrl}}'],
    ] as const) {
      const dir = await templateDir(name, page);
      await withPortal({}, async (portal) => {
        const built = await build(portal, `${name}-build`, ['--templates', dir]);
        expect(built.result.code, built.result.stderr).toBe(1);
        expect(built.result.stderr).toMatch(/Template .*pages\/\w+\.hbs.*failed to render: "(token|config|baseUrl)" not defined/);
        await expectNoLeak(built, portal.tokens.university);
        expect((await readdir(built.work)).includes('site')).toBe(false);
      });
    }
  });
});
