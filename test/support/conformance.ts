// The two checkers issue 19 asks CI to run on every page kind: the Nu HTML Checker (vnu.jar from npm
// `vnu-jar`, on Debian's Java) and axe-core in Chromium. Both fail with the install command when
// their runtime is missing, never skip.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const VNU_JAR = require.resolve('vnu-jar/build/dist/vnu.jar');
const AXE_SOURCE = require.resolve('axe-core/axe.min.js');

/** The Nu HTML Checker's errors for some HTML files, as "file:line: message" (none: valid). */
export function vnuErrors(files: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('java', ['-Xss8m', '-jar', VNU_JAR, '--errors-only', '--format', 'json', ...files], { stdio: ['ignore', 'ignore', 'pipe'] });
    let out = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', (error) => reject(new Error(`cannot run java (${error.message}). Install it with: apt-get install -y default-jre-headless`)));
    child.on('close', () => {
      try {
        const { messages } = JSON.parse(out) as { messages: Array<{ type: string; url?: string; lastLine?: number; message: string }> };
        resolve(messages.filter((m) => m.type === 'error' || m.type === 'non-document-error').map((m) => `${m.url?.replace(/^file:/, '') ?? ''}:${m.lastLine ?? ''}: ${m.message}`));
      } catch {
        reject(new Error(`vnu.jar printed no JSON report: ${out.slice(0, 500)}`));
      }
    });
  });
}

let axeSource: Promise<string> | undefined;

/** axe-core's violations on the page as loaded, as "rule (impact): targets" (none: no violation found). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: await (axeSource ??= readFile(AXE_SOURCE, 'utf8')) });
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown[] }> }> }> } }).axe.run();
    return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
  });
  return violations;
}
