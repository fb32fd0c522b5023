// Checks for the hostile-input and secrets tests (issue 7): what a folder holds, where a secret
// appears, and what in a piece of HTML could run script. Shared by test/e2e/hostile.test.ts and
// test/e2e/security.test.ts.
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { Parser } from 'htmlparser2';

/** The rule of src/paths.ts: every output path segment is one safe, URL-clean name. */
export const SAFE_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

export interface Entry {
  path: string;
  kind: 'dir' | 'file' | 'symlink' | 'other';
}

/** Every entry below dir (folders too), by lstat, so a symlink is reported as one and never followed. */
export async function listEntries(dir: string): Promise<Entry[]> {
  const out: Entry[] = [];
  async function walk(d: string): Promise<void> {
    for (const name of await readdir(d)) {
      const full = join(d, name);
      const info = await lstat(full);
      const path = relative(dir, full).split(sep).join('/');
      if (info.isSymbolicLink()) out.push({ path, kind: 'symlink' });
      else if (info.isDirectory()) {
        out.push({ path, kind: 'dir' });
        await walk(full);
      } else out.push({ path, kind: info.isFile() ? 'file' : 'other' });
    }
  }
  await walk(dir);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Paths below an output folder that break the safe-segment rule (or are not plain files and folders). */
export function unsafeEntries(entries: Entry[]): string[] {
  const bad: string[] = [];
  const folded = new Map<string, string>();
  for (const e of entries) {
    if (e.kind !== 'dir' && e.kind !== 'file') bad.push(`${e.path}: ${e.kind}`);
    for (const segment of e.path.split('/')) {
      if (!SAFE_SEGMENT.test(segment)) bad.push(`${e.path}: segment "${segment}"`);
      if (WINDOWS_RESERVED.test(segment)) bad.push(`${e.path}: reserved name "${segment}"`);
      if (segment.length > 110) bad.push(`${e.path}: segment of ${segment.length} characters`);
    }
    const other = folded.get(e.path.toLowerCase());
    if (other !== undefined) bad.push(`${e.path}: same as ${other} on a case-insensitive file system`);
    folded.set(e.path.toLowerCase(), e.path);
  }
  return bad;
}

/** Files below dir whose bytes contain the secret (raw, URL-encoded or base64 as in Basic auth). */
export async function filesContaining(dir: string, secret: string): Promise<string[]> {
  const forms = [secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64')];
  const hits: string[] = [];
  for (const e of await listEntries(dir)) {
    if (e.kind !== 'file') continue;
    const text = await readFile(join(dir, e.path), 'latin1');
    if (forms.some((f) => text.includes(f))) hits.push(e.path);
  }
  return hits;
}

// Elements that, coming from data, would run code, load another document or post a form.
const ACTIVE_ELEMENTS = new Set(['script', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'form', 'style', 'base', 'svg', 'math', 'link', 'meta', 'template', 'noscript']);
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'data', 'poster', 'background', 'cite', 'xlink:href', 'srcset', 'ping', 'longdesc', 'manifest', 'codebase', 'archive']);
/** The scheme a browser sees: it ignores leading spaces/controls and tabs/newlines inside. */
function dangerousUrl(value: string): boolean {
  // eslint-disable-next-line no-control-regex
  const squeezed = value.replace(/[\u0000-\u0020]/g, '').toLowerCase();
  return /^(javascript|data|vbscript):/.test(squeezed);
}

export interface HtmlReport {
  problems: string[];
  /** Text of each <script type="application/ld+json">. */
  jsonLd: string[];
  /** href of every <a>. */
  links: string[];
  /** Text of the first <h1>, decoded. */
  h1?: string;
}

export interface HtmlPolicy {
  /** A whole page made by calfeed's templates (its own <head>, page.js, JSON-LD) or a fragment of data (nothing allowed). */
  page: boolean;
  /** The site's URL: page.js may be loaded from it, absolute (404.html is served at any path). */
  siteUrl?: string;
}

/**
 * Parse HTML as a browser would tokenize it and report anything that could run script. In a page,
 * calfeed's own head is allowed precisely: <script src=".../page.js" defer> with no body (its
 * address relative, or absolute in 404.html, which is served at any path),
 * <script type="application/ld+json">, <link rel="stylesheet|canonical|alternate|icon"> (the icon
 * being the empty `data:,`) and the <meta> tags of the head.
 */
/** page.js as calfeed's pages load it: relative, or from the site's URL. */
function isOwnScript(src: string | undefined, policy: HtmlPolicy): boolean {
  return /^(\.\.\/)*page\.js$/.test(src ?? '') || (policy.siteUrl !== undefined && src === policy.siteUrl + 'page.js');
}

export function inspectHtml(html: string, policy: HtmlPolicy): HtmlReport {
  const report: HtmlReport = { problems: [], jsonLd: [], links: [] };
  let inBody = false;
  let openScript: { kind: 'ld' | 'own' | 'bad'; text: string } | undefined;
  let h1: string | undefined;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === 'body') inBody = true;
        if (name === 'h1' && report.h1 === undefined && h1 === undefined) h1 = '';
        for (const [attr, value] of Object.entries(attribs)) {
          if (/^on/i.test(attr)) report.problems.push(`<${name} ${attr}="${value}">: event handler`);
          if (URL_ATTRIBUTES.has(attr.toLowerCase()) && dangerousUrl(value)) {
            const ownIcon = policy.page && !inBody && name === 'link' && attribs.rel === 'icon' && value === 'data:,';
            if (!ownIcon) report.problems.push(`<${name} ${attr}="${value.slice(0, 60)}">: script or data URL`);
          }
        }
        if (name === 'a' && attribs.href !== undefined) report.links.push(attribs.href);
        if (name === 'script') {
          const keys = Object.keys(attribs).sort().join(',');
          if (policy.page && attribs.type === 'application/ld+json' && keys === 'type') openScript = { kind: 'ld', text: '' };
          else if (policy.page && !inBody && keys === 'defer,src' && isOwnScript(attribs.src, policy)) openScript = { kind: 'own', text: '' };
          else {
            openScript = { kind: 'bad', text: '' };
            report.problems.push(`<script ${JSON.stringify(attribs)}>: not one of calfeed's own scripts`);
          }
          return;
        }
        if (ACTIVE_ELEMENTS.has(name)) {
          const ownHead =
            policy.page &&
            !inBody &&
            ((name === 'link' && ['stylesheet', 'canonical', 'alternate', 'icon'].includes(attribs.rel ?? '')) ||
              (name === 'meta' && attribs['http-equiv'] === undefined));
          if (!ownHead) report.problems.push(`<${name}>: active element`);
        }
      },
      ontext(text) {
        if (openScript) openScript.text += text;
        if (h1 !== undefined) h1 += text;
      },
      onclosetag(name) {
        if (name === 'h1' && h1 !== undefined) {
          report.h1 = h1;
          h1 = undefined;
        }
        if (name === 'script' && openScript) {
          if (openScript.kind === 'ld') report.jsonLd.push(openScript.text);
          if (openScript.kind === 'own' && openScript.text.trim() !== '') report.problems.push('page.js <script> has inline text');
          openScript = undefined;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: false },
  );
  parser.write(html);
  parser.end();
  return report;
}

/** Every string in a parsed JSON or XML value, with its path (attributes included). */
export function strings(value: unknown, path = '$'): Array<{ path: string; text: string }> {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${path}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, `${path}.${k}`));
  return [];
}

/** C0/C1 control characters other than TAB, LF, CR, and the XML non-characters U+FFFE/U+FFFF. */
// eslint-disable-next-line no-control-regex
export const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]/;
