// The CLI contract: help, exit statuses, the zero-config demo build.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPTIONS, optionsFor } from '../../src/config/options.js';
import { runCli } from '../support/cli.js';
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
    [['build', '--no-such-flag'], /Unknown option '--no-such-flag'/],
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

  it('documents every option in the README table', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    for (const spec of OPTIONS) {
      expect(readme, `--${spec.flag}`).toContain(`\`--${spec.flag}`);
      expect(readme, spec.env).toContain(spec.env);
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
});
