// Issue 20: every command the README shows is run here, as a user would type it, against the demo
// portal standing in for https://portal.example.edu/api; a command added to the README that this
// test does not know fails it. What the README shows but this test cannot run is named, with the
// test or CI step that covers it.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { workflowText } from '../../src/init/content.js';
import { runCli, type CliResult } from '../support/cli.js';

const README = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
const ACTION_DOCS = await readFile(new URL('../../docs/github-action.md', import.meta.url), 'utf8');
const PORTAL = 'https://portal.example.edu/api';

interface Block {
  lang: string;
  lines: string[];
}

/** The README's fenced blocks, dedented (blocks inside list items are indented). */
function blocks(text: string): Block[] {
  const found: Block[] = [];
  for (const m of text.matchAll(/^([ \t]*)```(\w*)\n([\s\S]*?)^[ \t]*```/gm)) {
    const indent = m[1]!.length;
    found.push({ lang: m[2]!, lines: m[3]!.split('\n').filter((l) => l.trim() !== '').map((l) => l.slice(indent)) });
  }
  return found;
}

/** A shell line without its trailing comment. */
const command = (line: string): string => line.replace(/\s+#.*$/, '').trim();

// Shown, not run here: installing calfeed itself (CI's `npm ci`), the test suite (CI runs it), and
// installing calfeed into another repository (test/e2e/package.test.ts installs the packed tarball).
const NOT_RUN_HERE = new Set(['npm install && npx calfeed build', 'npm test', 'npm install --save-dev github:OWNER/calfeed']);

let work: string;
let portal: DemoPortal;
let custom: DemoPortal;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-readme-'));
  [portal, custom] = await Promise.all([startDemoPortal({ now: Date.now() }), startDemoPortal({ now: Date.now(), dialect: 'custom' })]);
});

afterAll(async () => {
  await Promise.all([portal?.close(), custom?.close()]);
  await rm(work, { recursive: true, force: true });
});

/** Run a README command line (`npx calfeed ...`) in `dir`, the example portal replaced by `at`. */
async function run(line: string, dir: string, at: DemoPortal | undefined, env: Record<string, string> = {}): Promise<CliResult> {
  const words = command(line).split(/\s+/);
  expect(words.slice(0, 2), line).toEqual(['npx', 'calfeed']);
  const args = words.slice(2).map((w) => (at && w === PORTAL ? at.url : w));
  return runCli(args, { cwd: dir, env: { ...(at ? { CALFEED_TOKEN: at.tokens.university } : {}), ...env }, timeoutMs: 120_000 });
}

async function folder(name: string): Promise<string> {
  const dir = join(work, name);
  await mkdir(dir);
  return dir;
}

describe('the README, command by command', () => {
  const shell = blocks(README).filter((b) => b.lang === 'sh');
  const lines = shell.flatMap((b) => b.lines.map(command));

  it('shows no shell command this test does not run or name', () => {
    const calfeed = lines.filter((l) => l.startsWith('npx calfeed '));
    const other = lines.filter((l) => !l.startsWith('npx calfeed ') && !l.startsWith('export CALFEED_TOKEN='));
    expect(other.filter((l) => !NOT_RUN_HERE.has(l))).toEqual([]);
    // The ones the tests below run, in the README's order.
    expect(calfeed).toEqual([
      `npx calfeed build --base-url ${PORTAL} --site-url https://events.example.edu/`,
      `npx calfeed inspect --base-url ${PORTAL}`,
      'npx calfeed build --site-url https://events.example.edu/',
    ]);
    expect(lines).toContain('npm install && npx calfeed build');
  });

  it('"npx calfeed build" with no configuration builds the demo into output/, and "npx calfeed serve" previews it on 8080', async () => {
    const dir = await folder('quick-start');
    const r = await run('npx calfeed build', dir, undefined);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/embedded demo portal/);
    expect(await readFile(join(dir, 'output', 'index.html'), 'utf8')).toContain('<html');
    // The prose's preview command, exactly as shown, answering where the README says.
    expect(README).toContain('`npx calfeed serve`');
    expect(README).toContain('http://127.0.0.1:8080/');
    const served = await servedPage(dir);
    expect(served).toContain('<html');
  });

  it('installs into your own site: the build line with --base-url and --site-url', async () => {
    const dir = await folder('own-site');
    const r = await run(lines.find((l) => l.startsWith('npx calfeed build --base-url'))!, dir, portal);
    expect(r.code, r.stderr).toBe(0);
    expect(await readFile(join(dir, 'output', 'rss.xml'), 'utf8')).toContain('<link>https://events.example.edu/');
  });

  it('connects a portal in three steps: inspect says what to map, the config maps it, the build succeeds', async () => {
    const dir = await folder('connect');
    // 1. Inspect: this portal keeps its start where detection cannot find it, so inspect says to map it.
    const inspected = await run(lines.find((l) => l.startsWith('npx calfeed inspect'))!, dir, custom);
    expect(inspected.code, inspected.stderr).toBe(1);
    expect(inspected.stdout + inspected.stderr).toMatch(/fields\.event\.start/);
    // 2. Map: the README's calfeed.config.json, as shown.
    const json = blocks(README).filter((b) => b.lang === 'json');
    expect(json).toHaveLength(1);
    await writeFile(join(dir, 'calfeed.config.json'), json[0]!.lines.join('\n').replace(PORTAL, custom.url));
    // 3. Build.
    const built = await run(lines.at(-1)!, dir, custom);
    expect(built.code, built.stderr).toBe(0);
    expect(built.stderr).toMatch(/calendars 5, events 59/);
  });

  it('shows the workflow "calfeed init" writes, exactly', () => {
    const yaml = blocks(README).filter((b) => b.lang === 'yaml');
    expect(yaml).toHaveLength(1);
    expect(yaml[0]!.lines.join('\n') + '\n').toBe(workflowText().replace(/\n\n+/g, '\n'));
  });

  it('names in its prose only calfeed commands that run as written: init, serve, verify', async () => {
    const inline = [...README.matchAll(/`(npx calfeed [^`]*)`/g)].map((m) => m[1]!);
    const shown = [...new Set(inline)].sort();
    expect(shown).toEqual([`npx calfeed init --base-url ${PORTAL}`, 'npx calfeed serve', 'npx calfeed verify --out DIR']);

    // init, in an empty site repository: the config and the workflow the README shows.
    const site = await folder('init');
    const init = await run(shown[0]!, site, portal);
    expect(init.code, init.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(site, 'calfeed.config.json'), 'utf8'))).toMatchObject({ baseUrl: portal.url });
    expect(await readFile(join(site, '.github', 'workflows', 'calfeed.yml'), 'utf8')).toBe(workflowText());

    // verify, on a folder a build wrote (DIR being that folder), and on one changed after the build.
    const dir = await folder('verify');
    expect((await run('npx calfeed build', dir, undefined)).code).toBe(0);
    const ok = await run(shown[2]!.replace('DIR', 'output'), dir, undefined);
    expect(ok.code, ok.stderr).toBe(0);
    await writeFile(join(dir, 'output', 'index.html'), 'changed after the build');
    expect((await run(shown[2]!.replace('DIR', 'output'), dir, undefined)).code).not.toBe(0);
  });
});

describe('docs/github-action.md, the workflow without the action', () => {
  it("runs its build step with its env, and its --json summary says it published", async () => {
    const yaml = blocks(ACTION_DOCS).filter((b) => b.lang === 'yaml' && b.lines.some((l) => l.includes('npx calfeed build --json')));
    expect(yaml).toHaveLength(1);
    const text = yaml[0]!.lines.join('\n');
    const step = /- run: (npx calfeed build[^\n]*)\n\s+env:\n((?:\s+CALFEED_\w+: .*\n?)+)/.exec(text);
    expect(step, text).not.toBeNull();
    const env = Object.fromEntries(
      [...step![2]!.matchAll(/(CALFEED_\w+): (.*)/g)].filter(([, k]) => k !== 'CALFEED_TOKEN').map(([, k, v]) => [k!, v!.trim() === PORTAL ? portal.url : v!.trim()]),
    );
    expect(Object.keys(env).sort()).toEqual(['CALFEED_BASE_URL', 'CALFEED_SITE_URL', 'CALFEED_TIME_ZONE']);
    const [line, redirect] = step![1]!.split(' > ');
    expect(redirect).toBe('summary.json');
    const dir = await folder('workflow');
    const r = await run(line!, dir, portal, env);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, published: true, upToDate: false, events: 59 });
    // The folders the workflow caches are the ones the build used.
    expect(text).toMatch(/path: \|\n\s+\.calfeed-cache\n\s+output/);
    expect((await readFile(join(dir, '.calfeed-cache', 'build-store'), 'utf8')).length).toBeGreaterThan(0);
    expect((await readFile(join(dir, 'output', 'manifest.json'), 'utf8')).length).toBeGreaterThan(0);
  });
});

/** `npx calfeed serve` in dir: the page it serves at http://127.0.0.1:8080/, then stopped with Ctrl-C. */
async function servedPage(dir: string): Promise<string> {
  let page = '';
  const r = await runCli(['serve'], {
    cwd: dir,
    timeoutMs: 30_000,
    onSpawn: (child) => {
      child.stdout!.on('data', (d: Buffer) => {
        if (!String(d).includes('http://127.0.0.1:8080')) return;
        fetch('http://127.0.0.1:8080/')
          .then((res) => res.text())
          .then((text) => (page = text))
          .finally(() => child.kill('SIGINT'));
      });
    },
  });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain('Serving output at http://127.0.0.1:8080');
  return page;
}
