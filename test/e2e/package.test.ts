// Getting calfeed into another repository: the package as `npm pack` makes it, installed from the
// tarball into an empty folder (runtime dependencies come from the registry; dev dependencies are
// never installed for a dependency), and `npx calfeed build` run there against the demo portal.
// Needs the npm registry, as `npm ci` does; about 25 s, most of it the install.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_WARNINGS, runCommand, type CliResult } from '../support/cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { dependencies: object; devDependencies: object };

let work: string;
let packed: { filename: string; files: Array<{ path: string }> };
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-package-'));
  // `npm test` compiled dist/ just before; --ignore-scripts skips `prepare` compiling it a second time.
  const r = await runCommand('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT });
  expect(r.code, r.stderr).toBe(0);
  packed = (JSON.parse(r.stdout) as Array<typeof packed>)[0]!;
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

const ok = (r: CliResult) => expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);

describe('the npm package', () => {
  it('holds the compiled CLI and the templates, and no sources or tests', () => {
    const paths = packed.files.map((f) => f.path);
    for (const needed of ['package.json', 'dist/cli.js', 'dist/demo/server.js', 'templates/layouts/base.hbs', 'templates/assets/page.js']) {
      expect(paths).toContain(needed);
    }
    expect(paths.filter((p) => /^(src|test|\.ci|\.github)\//.test(p) || p === 'action.yml')).toEqual([]);
  });

  it('installs from the tarball into an empty folder, without dev dependencies, and builds the demo there', async () => {
    const site = join(work, 'site');
    await mkdir(site);
    await writeFile(join(site, 'package.json'), JSON.stringify({ name: 'site', private: true }));
    const install = await runCommand('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, packed.filename)], { cwd: site, timeoutMs: 110_000 });
    ok(install);
    for (const dev of Object.keys(pkg.devDependencies)) expect(existsSync(join(site, 'node_modules', dev)), dev).toBe(false);
    for (const dep of Object.keys(pkg.dependencies)) expect(existsSync(join(site, 'node_modules', dep)), dep).toBe(true);

    const build = await runCommand('npx', ['--no-install', 'calfeed', 'build', '--json'], { cwd: site });
    ok(build);
    expect(JSON.parse(build.stdout)).toMatchObject({ ok: true, demo: true, events: 59, warnings: DEMO_WARNINGS });
    expect(existsSync(join(site, 'output', 'manifest.json'))).toBe(true);
    ok(await runCommand('npx', ['--no-install', 'calfeed', 'verify'], { cwd: site }));
  }, 150_000);
});
