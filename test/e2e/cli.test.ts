// The CLI contract: help, exit statuses, the zero-config demo build.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPTIONS, optionsFor } from '../../src/config/options.js';
import { runCli } from '../support/cli.js';
import { optionsTable } from '../support/options-table.js';
import { listFiles } from '../support/tree.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-cli-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('calfeed CLI', () => {
  it('describes every flag of build in --help, with its env var', async () => {
    const r = await runCli(['build', '--help']);
    expect(r.code).toBe(0);
    for (const spec of optionsFor('build')) {
      expect(r.stdout).toContain(`--${spec.flag}`);
      expect(r.stdout).toContain(spec.env);
    }
    const top = await runCli(['--help']);
    expect(top.code).toBe(0);
    for (const command of ['build', 'inspect', 'serve', 'demo-server']) expect(top.stdout).toContain(command);
  });

  it.each([
    [['build', '--no-such-flag'], /Unknown flag --no-such-flag\. Run "calfeed build --help" for the flags\./],
    [['frobnicate'], /Unknown command "frobnicate"/],
    [['build', '--token', 'abc'], /never a flag: set env CALFEED_TOKEN or use --token-file/],
    [['build', '--concurrency', '0'], /--concurrency: expected a whole number from 1 to 256/],
    [['build', '--time-zone', 'Nowhere/Land'], /IANA/],
    [['build', '--token-file', 'missing-token.txt'], /Cannot read the token file .*missing-token.txt/],
    [['build', '--config', 'missing.json'], /Cannot read config file/],
  ])('exits 2 on %j with a clear message', async (args, message) => {
    const r = await runCli(args, { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('exits 2 on a bad calfeed.config.json in the working folder', async () => {
    const dir = join(work, 'badconfig');
    await import('node:fs/promises').then((fs) => fs.mkdir(dir));
    await writeFile(join(dir, 'calfeed.config.json'), '{ "concurency": 4 }');
    const r = await runCli(['build'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown key "concurency" \(did you mean "concurrency"\?\)/);
  });

  // Config mistakes: each was accepted, crashed, or was reported vaguely before calfeed checked the file like flags.
  it.each([
    ['fields.event.strat accepted', { fields: { event: { strat: 'kickoff.at' } } }, /^error: calfeed\.config\.json: unknown key "fields\.event\.strat" \(did you mean "fields\.event\.start"\?\)\.$/m],
    ['fields.evnt accepted', { fields: { evnt: {} } }, /unknown key "fields\.evnt" \(did you mean "fields\.event"\?\)/],
    ['paging.mode "qurey" accepted', { paging: { mode: 'qurey' } }, /"paging\.mode": expected one of "auto", "none", "query", got "qurey" \(did you mean "query"\?\)/],
    ['"start": 123 crashed with path.split is not a function', { fields: { event: { start: 123 } } }, /^error: calfeed\.config\.json: "fields\.event\.start": expected .*, got 123\.$/m],
    ['unknown keys reported one per run', { concurency: 4, titel: 'x' }, /2 configuration problems:\n.*"concurency".*\n.*"titel" \(did you mean "title"\?\)/],
  ])('config mistake "%s": exits 2 naming the key', async (_name, config, message) => {
    const dir = await mkdtemp(join(work, 'config-'));
    await writeFile(join(dir, 'calfeed.config.json'), JSON.stringify(config, null, 2));
    const r = await runCli(['build'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/unexpected failure/);
  });

  it('malformed JSON in the config file was located by "position 58": now by line and column', async () => {
    const dir = await mkdtemp(join(work, 'config-'));
    await writeFile(join(dir, 'calfeed.config.json'), '{\n  "out": "site",\n  "title": }\n');
    const r = await runCli(['build'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: calfeed\.config\.json line 3, column 12: Unexpected token '\}' \(the file is not valid JSON\)\.$/m);
  });

  it('a mistyped flag got Node\'s message with an unbalanced quote: now "did you mean"', async () => {
    const r = await runCli(['build', '--ouput', 'site'], { cwd: work });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: Unknown flag --ouput (did you mean --out?). Run "calfeed build --help" for the flags.\n');
  });

  it('a bad CALFEED_TIME_ZONE was blamed on --time-zone: now on the env var', async () => {
    const r = await runCli(['build'], { cwd: work, env: { CALFEED_TIME_ZONE: 'Mars/Olympus' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: env CALFEED_TIME_ZONE: "Mars\/Olympus" is not an IANA time zone name/);
    expect(r.stderr).not.toContain('--time-zone');
  });

  it('documents every option: docs/configuration.md has the table the option table makes', async () => {
    const doc = await readFile(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    expect(doc).toContain(optionsTable());
    // The README's short table names only options that exist, with their variables.
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    for (const [, flag, env] of readme.matchAll(/^\| `--([a-z-]+)[^`]*` \| `(CALFEED_[A-Z_]+)` \|/gm)) {
      expect(OPTIONS.find((o) => o.flag === flag)?.env, flag).toBe(env);
    }
  });

  it('builds from the embedded demo portal with no configuration and says so', async () => {
    const dir = join(work, 'zero');
    await import('node:fs/promises').then((fs) => fs.mkdir(dir));
    const r = await runCli(['build'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/embedded demo portal/);
    const files = await listFiles(join(dir, 'output'));
    expect(files).toContain('index.html');
    expect(files).toContain('event-calendars');
    expect(files).toContain('calendar.ics');
    expect(files.filter((f) => f.endsWith('/details')).length).toBeGreaterThan(20);
  });

  // Issue 20: every build printed calfeed's own bookkeeping ("history: …", "render record: …", "cache: …").
  it('prints no internal jargon unless --verbose', async () => {
    const jargon = /^(build store|history|render record|cache|last build): /m;
    const [plain, verbose] = [join(work, 'plain'), join(work, 'verbose')];
    await Promise.all([mkdir(plain), mkdir(verbose)]);
    const [first, firstVerbose] = await Promise.all([runCli(['build'], { cwd: plain }), runCli(['build', '--verbose'], { cwd: verbose })]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toMatch(jargon);
    expect(first.stderr).toMatch(/^Built output from the embedded demo portal in .*\n {2}calendars 5, events 59/m);
    expect(firstVerbose.code, firstVerbose.stderr).toBe(0);
    expect(firstVerbose.stderr).toMatch(/^build store: no build store at .* yet: full build$/m);
    expect(first.stderr).not.toMatch(/^build store: /m);
    // Damaged state is not bookkeeping: it explains a slower build, so it is said without --verbose, once.
    await writeFile(join(plain, '.calfeed-cache', 'build-store'), '{');
    const again = await runCli(['build'], { cwd: plain });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr.match(/^build store: .*build-store is corrupt or truncated: starting empty, full build$/gm)).toHaveLength(1);
    // So are the state files of an earlier calfeed, which are removed.
    for (const name of ['crawl.json', 'history.json', 'last-build.json']) await writeFile(join(plain, '.calfeed-cache', name), '{');
    const upgraded = await runCli(['build'], { cwd: plain });
    expect(upgraded.code, upgraded.stderr).toBe(0);
    expect(upgraded.stderr.match(/^build store: found the state files of an earlier calfeed in .* \(crawl.json, history.json, last-build.json\): starting from an empty build store, and removing them$/gm)).toHaveLength(1);
    expect((await readdir(join(plain, '.calfeed-cache'))).sort()).toEqual(['build-store']);
  });

  it.each(['serve', 'demo-server'])('regression: a port in use made %s report "a bug in calfeed": now exit 2 naming --port', async (command) => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const dir = await mkdtemp(join(work, 'serve-'));
      const r = await runCli([command, '--port', String(port), ...(command === 'serve' ? ['--dir', '.'] : [])], { cwd: dir, timeoutMs: 30_000 });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`--port: 127.0.0.1:${port} is already in use. Pass another --port, or 0 for any free port.`);
      expect(r.stderr).not.toMatch(/bug in calfeed/);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});
