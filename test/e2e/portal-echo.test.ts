// Issue 17 acceptance, items 3, 4 and 5, with the real CLI against a small hostile portal: a token it
// echoes (in a `next` link, a redirect Location, error bodies in every encoding, one straddling the
// snippet cut) is in no file of --out or the cache, not in stdout, stderr or the --json summary;
// workflow commands and ANSI escapes in its bodies are defused in the log; a body dripped a byte at a
// time ends at --request-timeout.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { listEntries } from '../support/untrusted.js';
import { startServer, wait, type TestServer } from '../http/test-server.js';

const TOKEN = 'SeCrEt-T0k~~~/en+x=';
const PCT = encodeURIComponent(TOKEN);
/** Every form the token must not appear in, and its first ten characters (a token cut in half). */
const FORMS = {
  raw: TOKEN,
  'percent-encoded, upper case': PCT,
  'percent-encoded, lower case': PCT.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
  base64: Buffer.from(TOKEN).toString('base64'),
  base64url: Buffer.from(TOKEN).toString('base64url'),
  'cut in half': TOKEN.slice(0, 10),
};
const PWNED = '\n::error::PWNED\n##[error]PWNED\n\u001b[31mred\u001b[0m';

/** Error bodies of the details of c1's events, each echoing the token another way. */
const ECHOES: Record<string, string> = {
  e1: `no such event for token ${FORMS.raw}`,
  e2: `no such event for ${FORMS['percent-encoded, lower case']}`,
  e3: `no such event for ${FORMS['percent-encoded, upper case']}`,
  e4: `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}`,
  e5: `sig=${FORMS.base64url}`,
  e6: `${'x'.repeat(190)}${TOKEN} straddles the 200-byte snippet`,
  e7: `${PWNED} ${TOKEN}`,
};

let portal: TestServer;
let root: string;
let mode: 'echo' | 'pwned-list' | 'drip' = 'echo';

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json' }).end(text);
}

const event = (id: string, day: number): object => ({ id, title: `Event ${id}`, start: `2030-01-${String(day).padStart(2, '0')}T10:00:00Z` });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'calfeed-echo-'));
  portal = await startServer({}, async (req, res) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(res, 401, { error: 'unauthorized' });
    const url = new URL(req.url ?? '/', 'http://portal');
    const path = url.pathname;
    if (path === '/event-calendars' && mode === 'drip') {
      res.writeHead(200, { 'content-type': 'application/json' });
      while (!res.destroyed) {
        res.write(' ');
        await wait(200);
      }
      return;
    }
    if (path === '/event-calendars' && mode === 'pwned-list') return send(res, 200, PWNED);
    if (path === '/event-calendars' && url.searchParams.get('page') === '2') {
      // The link came back as the portal gave it.
      if (url.searchParams.get('sig') !== TOKEN) return send(res, 403, { error: 'bad signature' });
      return send(res, 200, { data: [{ id: 'c2', title: 'Two' }], links: { next: null } });
    }
    if (path === '/event-calendars') return send(res, 200, { data: [{ id: 'c1', title: 'One' }], links: { next: `/event-calendars?page=2&sig=${PCT}` } });
    if (path === '/event-calendar/c1/events') return void res.writeHead(302, { location: `/moved/c1/events?sig=${PCT}` }).end();
    if (path === '/moved/c1/events') return send(res, 200, { data: ['e0', ...Object.keys(ECHOES)].map((id, i) => event(id, i + 1)) });
    if (path === '/event-calendar/c2/events') return send(res, 200, { data: [event('f1', 20)] });
    const details = /^\/event-calendar\/(c1|c2)\/event\/(\w+)\/details$/.exec(path);
    if (details && details[2] === 'e7') return send(res, 200, ECHOES.e7!);
    if (details && ECHOES[details[2]!]) return send(res, 404, ECHOES[details[2]!]!);
    if (details) return send(res, 200, event(details[2]!, 1));
    send(res, 404, { error: 'no such route' });
  });
});

afterAll(async () => {
  await portal?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

interface Run {
  result: CliResult;
  dirs: string[];
}

async function calfeed(command: 'build' | 'inspect', work: string, extra: string[] = []): Promise<Run> {
  const out = join(root, work, 'site');
  const cache = join(root, work, 'cache');
  const args = command === 'build' ? ['--out', out, '--cache-dir', cache, '--max-failed-details', '100%'] : [];
  const result = await runCli([command, '--base-url', portal.url, '--retries', '0', '--json', ...args, ...extra], { env: { CALFEED_TOKEN: TOKEN } });
  return { result, dirs: command === 'build' ? [out, cache] : [] };
}

/** Every place the token must not be: files below the dirs, stdout, stderr. */
async function expectNoToken(run: Run): Promise<void> {
  const texts: Array<[string, string]> = [
    ['stdout', run.result.stdout],
    ['stderr', run.result.stderr],
  ];
  for (const dir of run.dirs) {
    for (const e of await listEntries(dir).catch(() => [])) {
      if (e.kind === 'file') texts.push([join(dir, e.path), await readFile(join(dir, e.path), 'latin1')]);
    }
  }
  for (const [where, text] of texts) {
    for (const [name, form] of Object.entries(FORMS)) expect(text.includes(form), `${name} in ${where}`).toBe(false);
  }
}

/** No line a CI system would run as a command, no terminal escape. */
function expectDefused(stderr: string): void {
  for (const line of stderr.split('\n')) expect(line).not.toMatch(/^\s*(::|##\[)/);
  expect(stderr).not.toMatch(/[\u001b\u009b]/);
}

describe('a portal that echoes the token', () => {
  it('regression: the token by value (issue 17, item 3): in a next link, a redirect Location and error bodies in every encoding, it is nowhere in --out, the cache, the log or the summary', async () => {
    mode = 'echo';
    const first = await calfeed('build', 'echo');
    expect(first.result.code, first.result.stderr).toBe(0);
    expect(JSON.parse(first.result.stdout)).toMatchObject({ ok: true, calendars: 2 });
    await expectNoToken(first);
    // It went through the paths that hold the token: the masked link is recorded, the failures logged.
    expect(await readFile(join(first.dirs[1]!, 'build-store'), 'utf8')).toContain('event-calendars?page=2&sig=***');
    for (const id of Object.keys(ECHOES)) expect(first.result.stderr).toContain(`event/${id}/details`);
    // The next build cannot replay the masked link from the cache; it asks from page 1 again.
    const second = await calfeed('build', 'echo');
    expect(second.result.code, second.result.stderr).toBe(0);
    await expectNoToken(second);
  });

  it('regression: the token by value (issue 17, item 3): inspect prints the redirected list URL masked', async () => {
    mode = 'echo';
    const run = await calfeed('inspect', 'inspect');
    expect(run.result.code, run.result.stderr).toBe(0);
    expect(JSON.parse(run.result.stdout).events.url).toBe(`${portal.url}/moved/c1/events?sig=***`);
    await expectNoToken(run);
  });

  it('regression: portal bytes in logs (issue 17, item 4): ::error::, ##[ and ANSI escapes in a body are defused in stderr, the JSON parser\'s message included', async () => {
    mode = 'echo';
    const details = await calfeed('build', 'pwned-details');
    expect(details.result.code, details.result.stderr).toBe(0);
    expect(details.result.stderr).toContain('is not valid JSON');
    expectDefused(details.result.stderr);
    mode = 'pwned-list';
    const list = await calfeed('build', 'pwned-list');
    expect(list.result.code, list.result.stderr).toBe(1);
    expect(list.result.stderr).toContain('is not valid JSON');
    expectDefused(list.result.stderr);
    expect(JSON.parse(list.result.stdout).error.message).not.toMatch(/[\n\u001b]/);
    await expectNoToken(list);
  });
});

describe('a portal that drips its body', () => {
  it('regression: no request had a total deadline (issue 17, item 5): a byte every 200 ms ends at --request-timeout, named', async () => {
    mode = 'drip';
    const run = await calfeed('build', 'drip', ['--body-timeout', '5', '--request-timeout', '1']);
    expect(run.result.code, run.result.stderr).toBe(1);
    expect(run.result.stderr).toContain(`[GET] "${portal.url}/event-calendars": the whole request took longer than 1 s (request timeout)`);
    expect(run.result.stderr).toContain('--request-timeout');
    expect(JSON.parse(run.result.stdout)).toMatchObject({ ok: false, error: { code: 'NETWORK' } });
  }, 30_000);
});
