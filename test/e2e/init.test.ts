// `calfeed init` through the real CLI in empty folders: the files it writes, that the config it
// writes builds, that a second run overwrites nothing, and that the docs show the workflow it writes.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { workflowText } from '../../src/init/content.js';
import { DEMO_WARNINGS, runCli } from '../support/cli.js';

const WORKFLOW = '.github/workflows/calfeed.yml';

let work: string;
const portals: DemoPortal[] = [];
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-init-'));
});
afterAll(async () => {
  for (const portal of portals) await portal.close();
  if (work) await rm(work, { recursive: true, force: true });
});

async function folder(): Promise<string> {
  return mkdtemp(join(work, 'site-'));
}
const readJson = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown> & { fields: { event: Record<string, unknown> } };

describe('calfeed init', () => {
  it('writes a commented config from the demo and the workflow; the config builds; a second run overwrites nothing', async () => {
    const dir = await folder();
    const r = await runCli(['init'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/Wrote calfeed\.config\.json \(from the embedded demo portal\) and \.github\/workflows\/calfeed\.yml\./);

    const config = await readJson(join(dir, 'calfeed.config.json'));
    expect(config.baseUrl).toBeUndefined();
    expect((config.$comment as string[]).join('\n')).toMatch(/set "baseUrl" to your portal's Event Calendar API/);
    expect(config.fields.event).toMatchObject({ id: 'eventId', start: 'startDateTime', end: 'endDateTime' });
    expect(await readFile(join(dir, WORKFLOW), 'utf8')).toBe(workflowText());

    const build = await runCli(['build', '--config', 'calfeed.config.json', '--json'], { cwd: dir });
    expect(build.code, build.stderr).toBe(0);
    expect(JSON.parse(build.stdout)).toMatchObject({ ok: true, demo: true, events: 59, warnings: DEMO_WARNINGS });

    const before = await Promise.all(['calfeed.config.json', WORKFLOW].map((f) => readFile(join(dir, f), 'utf8')));
    const again = await runCli(['init'], { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^error: calfeed init overwrites nothing, and these files exist: calfeed\.config\.json, \.github\/workflows\/calfeed\.yml\./m);
    expect(await Promise.all(['calfeed.config.json', WORKFLOW].map((f) => readFile(join(dir, f), 'utf8')))).toEqual(before);
  });

  it('refuses when only the workflow exists, naming it, and writes no config', async () => {
    const dir = await folder();
    await mkdir(join(dir, '.github/workflows'), { recursive: true });
    await writeFile(join(dir, WORKFLOW), 'name: mine\n');
    const r = await runCli(['init'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/these files exist: \.github\/workflows\/calfeed\.yml\./);
    expect(existsSync(join(dir, 'calfeed.config.json'))).toBe(false);
    expect(await readFile(join(dir, WORKFLOW), 'utf8')).toBe('name: mine\n');
  });

  it('from a portal at --base-url: keeps the URL and the auth settings it needed, never the token, and --config names the file', async () => {
    const portal = await startDemoPortal({ auth: { mode: 'query', param: 'key' } });
    portals.push(portal);
    const dir = await folder();
    const env = { CALFEED_TOKEN: portal.tokens.university };
    const r = await runCli(['init', '--base-url', portal.url, '--auth-query-param', 'key', '--time-zone', portal.timeZone, '--config', 'site.json'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const config = await readJson(join(dir, 'site.json'));
    expect(config).toMatchObject({ baseUrl: portal.url, authQueryParam: 'key', timeZone: portal.timeZone });
    const workflow = await readFile(join(dir, WORKFLOW), 'utf8');
    expect(workflow).toBe(workflowText('site.json'));
    for (const text of [JSON.stringify(config), workflow, r.stderr]) expect(text).not.toContain(portal.tokens.university);

    // The build needs nothing init was given but the token.
    const build = await runCli(['build', '--config', 'site.json', '--json'], { cwd: dir, env });
    expect(build.code, build.stderr).toBe(0);
    expect(JSON.parse(build.stdout)).toMatchObject({ ok: true, demo: false, events: 59, warnings: DEMO_WARNINGS });
  });

  it('writes what inspect warned about into the config and the log', async () => {
    const portal = await startDemoPortal({ dialect: 'custom' });
    portals.push(portal);
    const dir = await folder();
    const r = await runCli(['init', '--base-url', portal.url], { cwd: dir, env: { CALFEED_TOKEN: portal.tokens.university } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^warning: inspect: no start found in any record: set fields\.event\.start/m);
    const config = await readJson(join(dir, 'calfeed.config.json'));
    expect(config.$comment).toContainEqual(expect.stringMatching(/^inspect warned: no start found in any record/));
    expect(config.fields.event.start).toBe('');
  });

  it('writes the workflow docs/github-action.md shows', async () => {
    const docs = await readFile(new URL('../../docs/github-action.md', import.meta.url), 'utf8');
    expect(docs).toContain('```yaml\n' + workflowText() + '```\n');
  });
});
