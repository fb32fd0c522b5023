// Issue 7 acceptance: the real CLI builds from the demo portal's `hostile` mode (ids that climb out
// of folders or hit reserved names, markup that tries to run script, control characters, a 100 KB
// title, details that redirect to another origin) and every output is checked with real parsers.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import ICAL from 'ical.js';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoPortal } from '../../src/demo/server.js';
import { REDIRECTING_EVENT } from '../../src/demo/hostile.js';
import { findList, rawId } from '../../src/normalize/index.js';
import { assignSegments, paths } from '../../src/paths.js';
import { runCli, type CliResult } from '../support/cli.js';
import { CONTROL_CHARS, filesContaining, inspectHtml, listEntries, strings, unsafeEntries, type Entry } from '../support/untrusted.js';

const SITE = 'https://events.example.edu/feeds/';
const BUILTIN_ASSETS = new URL('../../templates/assets/', import.meta.url);

let portal: DemoPortal;
let token: string;

interface Run {
  name: string;
  work: string;
  /** --out, nested so that a "../../x" escape would still land inside the work dir, where we look. */
  out: string;
  cache: string;
  before: Entry[];
  result: CliResult;
  foreignRequests: number;
  foreignAuthSeen: boolean;
  /** Requests the portal could not route to one of the three API paths. */
  strayRequests: number;
}
const runs: Run[] = [];
let secretsDir: string;

async function build(name: string, auth: { env?: Record<string, string>; tokenFile?: string }): Promise<Run> {
  const work = await mkdtemp(join(tmpdir(), `calfeed-hostile-${name}-`));
  const out = join(work, 'nest', 'deeper', 'site');
  const cache = join(work, 'cache');
  const before = await listEntries(work);
  portal.resetStats();
  const args = ['build', '--base-url', portal.url, '--out', out, '--site-url', SITE, '--cache-dir', cache, '--time-zone', portal.timeZone, '--json'];
  if (auth.tokenFile) args.push('--token-file', auth.tokenFile);
  const result = await runCli(args, { env: auth.env ?? {}, cwd: work });
  const stats = portal.stats();
  return { name, work, out, cache, before, result, foreignRequests: stats.foreignRequests, foreignAuthSeen: stats.foreignAuthSeen, strayRequests: stats.byKind.other };
}

beforeAll(async () => {
  portal = await startDemoPortal({ faults: 'hostile' });
  token = portal.tokens.university;
  secretsDir = await mkdtemp(join(tmpdir(), 'calfeed-hostile-secret-'));
  const tokenFile = join(secretsDir, 'token');
  await writeFile(tokenFile, token + '\n', { mode: 0o600 });
  runs.push(await build('env', { env: { CALFEED_TOKEN: token } }));
  runs.push(await build('token-file', { tokenFile }));
}, 120_000);

afterAll(async () => {
  await portal?.close();
  for (const run of runs) await rm(run.work, { recursive: true, force: true });
  if (secretsDir) await rm(secretsDir, { recursive: true, force: true });
});

const main = (): Run => runs[0]!;
async function outFiles(run: Run, ext?: string): Promise<string[]> {
  return (await listEntries(run.out)).filter((e) => e.kind === 'file' && (ext === undefined || e.path.endsWith(ext))).map((e) => e.path);
}
const read = (run: Run, file: string): Promise<string> => readFile(join(run.out, file), 'utf8');
/** The category folders of a build (the hostile portal's categories among them). */
async function categoryFolders(run: Run): Promise<string[]> {
  return (await listEntries(run.out)).filter((e) => e.kind === 'dir' && /^categories\/[^/]+$/.test(e.path)).map((e) => e.path);
}
/** Valid UTF-8 without U+FFFD, the character Node writes for a lone surrogate (the demo's titles carry one). */
async function wellFormedUtf8(run: Run, file: string): Promise<boolean> {
  try {
    return !new TextDecoder('utf-8', { fatal: true }).decode(await readFile(join(run.out, file))).includes('\uFFFD');
  } catch {
    return false;
  }
}

describe.each(['env', 'token-file'])('a hostile build with the token from %s', (name) => {
  const run = (): Run => runs.find((r) => r.name === name)!;

  it('succeeds, warns about what it dropped, and reports the failed details in the summary', () => {
    const { result } = run();
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.ok).toBe(true);
    expect(summary.calendars).toBe(9);
    expect(result.stderr).toMatch(/title is 102399 characters long; truncated to 100000 \(--max-field-length\)/);
    expect(result.stderr).toMatch(/javascript:.*not an absolute http\(s\) URL; ignored/);
    // The portal is loopback: no plain-http warning.
    expect(result.stderr).not.toMatch(/plain http/);
  });

  it('requests only the three API paths: an id of "." or ".." is not sent where a URL parser would collapse it', () => {
    const { strayRequests, result } = run();
    expect(strayRequests).toBe(0);
    expect(result.stderr).toMatch(/event "\.\.": .*cannot be requested/);
  });

  it('writes nothing outside --out and the cache dir, and only safe names inside --out', async () => {
    const { work, before } = run();
    expect(before).toEqual([]);
    const after = await listEntries(work);
    const outside = after.filter(
      (e) => !['nest', 'nest/deeper', 'nest/deeper/site', 'cache'].includes(e.path) && !e.path.startsWith('nest/deeper/site/') && !e.path.startsWith('cache/'),
    );
    expect(outside).toEqual([]);
    expect(after.filter((e) => e.kind !== 'dir' && e.kind !== 'file')).toEqual([]);
    const inOut = await listEntries(run().out);
    expect(unsafeEntries(inOut)).toEqual([]);
    // The top level is calfeed's layout, nothing a climbing id made up (etc/, passwd...).
    const top = new Set(inOut.filter((e) => !e.path.includes('/')).map((e) => e.path));
    expect([...top].sort()).toEqual(
      ['404.html', '_headers', 'atom.xml', 'calendar.ics', 'calendars', 'categories', 'event-calendar', 'event-calendars', 'feed.json', 'index.html', 'manifest.json', 'page.js', 'robots.txt', 'rss.xml', 'search.json', 'sitemap.xml', 'style.css', 'widget.js'].sort(),
    );
  });

  it('leaks the token nowhere: output, cache, stdout, stderr, --json summary', async () => {
    const { result, out, cache } = run();
    expect(await filesContaining(out, token)).toEqual([]);
    expect(await filesContaining(cache, token)).toEqual([]);
    expect(result.stdout).not.toContain(token);
    expect(result.stderr).not.toContain(token);
    expect(JSON.stringify(JSON.parse(result.stdout))).not.toContain(token);
  });

  it('refuses the details redirect to another origin, naming both origins and the flag, and publishes the event from its list entry', () => {
    const { foreignRequests, foreignAuthSeen, result } = run();
    expect(foreignRequests).toBe(0);
    expect(foreignAuthSeen).toBe(false);
    expect(result.stderr).toMatch(
      /302 Found, a redirect to another origin, http:\/\/127\.0\.0\.1:\d+ \(the portal is http:\/\/127\.0\.0\.1:\d+\)\..*--allow-redirect-host 127\.0\.0\.1:\d+/,
    );
    expect(result.stderr).toMatch(/redirect-me.*publishing it from its list entry|details failed.*redirect-me|redirect-me.*details failed/);
  });
});

describe('ids from the API', () => {
  it('map to the documented safe segments, one folder per id, case twins and reserved names encoded', async () => {
    const manifest = JSON.parse(await read(main(), 'manifest.json'));
    const bySlug = new Map<string, string>((manifest.calendars as Array<{ id: string; slug: string }>).map((c) => [c.id, c.slug]));
    const expected = assignSegments(bySlug.keys());
    for (const [id, slug] of bySlug) expect(slug, id).toBe(expected.get(id));
    expect(bySlug.get('../../etc/passwd')).toMatch(/^_[a-z2-7]+$/);
    expect(bySlug.get('CON')).toMatch(/^_/);
    expect(bySlug.get('Hostile')).not.toBe(bySlug.get('hostile'));
    expect(bySlug.get('Hostile')!.toLowerCase()).not.toBe(bySlug.get('hostile')!.toLowerCase());
  });

  it('mirror the three API paths under their segments, byte for byte, and nothing else under event-calendar/', async () => {
    const get = async (path: string): Promise<Buffer> => {
      const res = await request(`${portal.url}/${path}`, { headers: { authorization: `Bearer ${token}` } });
      const body = Buffer.from(await res.body.arrayBuffer());
      expect(res.statusCode, path).toBe(200);
      return body;
    };
    const expected = new Map<string, string>([[paths.calendarsMirror(), 'event-calendars']]);
    const calIds = findList(JSON.parse((await get('event-calendars')).toString()), 'calendars').items.map((c) => rawId(c, 'calendar')!);
    const calSegs = assignSegments(calIds);
    for (const cal of calIds) {
      const api = `event-calendar/${encodeURIComponent(cal)}/events`;
      expected.set(paths.eventsMirror(calSegs.get(cal)!), api);
      const evIds = findList(JSON.parse((await get(api)).toString()), 'events').items.map((e) => rawId(e, 'event')!);
      const evSegs = assignSegments(evIds);
      for (const ev of evIds) {
        // "." and ".." cannot travel as a URL path segment (every URL parser collapses them), so they have no details mirror.
        if (ev === '.' || ev === '..') continue;
        expected.set(paths.detailsMirror(calSegs.get(cal)!, evSegs.get(ev)!), `event-calendar/${encodeURIComponent(cal)}/event/${encodeURIComponent(ev)}/details`);
      }
    }
    const mirrors = (await outFiles(main())).filter((f) => f === 'event-calendars' || f.startsWith('event-calendar/'));
    const [redirCal, redirEv] = REDIRECTING_EVENT;
    // The details that redirect to another origin are refused: no mirror of another site's answer.
    expected.delete(paths.detailsMirror(calSegs.get(redirCal)!, assignSegments([redirEv]).get(redirEv)!));
    expect(mirrors.sort()).toEqual([...expected.keys()].sort());
    for (const [mirror, api] of expected) {
      expect((await readFile(join(main().out, mirror))).equals(await get(api)), mirror).toBe(true);
    }
  });
});

describe('markup from the API', () => {
  it('no page runs script from the data: only calfeed\'s own scripts, no handlers, no javascript:/data: URLs, no active elements', async () => {
    const pages = await outFiles(main(), '.html');
    expect(pages.length).toBeGreaterThan(100);
    let okLinks = 0;
    for (const file of pages) {
      const html = await read(main(), file);
      const report = inspectHtml(html, { page: true, siteUrl: SITE });
      expect(report.problems, file).toEqual([]);
      expect(CONTROL_CHARS.test(html), `${file} contains a control character`).toBe(false);
      okLinks += report.links.filter((l) => l === 'https://ok.example/').length;
      for (const link of report.links) expect(link, file).toMatch(/^(https?:|mailto:|webcal:|\.\.?\/|[A-Za-z0-9_#])/);
    }
    // The one safe link in every hostile description survives the allowlist.
    expect(okLinks).toBeGreaterThanOrEqual(14);
    // The widget and page scripts are calfeed's own files, byte for byte: no data is baked into
    // them. widget.js gets its messages (catalog text, not portal data) in place of its mark.
    expect(await read(main(), 'page.js')).toBe(await readFile(new URL('page.js', BUILTIN_ASSETS), 'utf8'));
    const widget = await read(main(), 'widget.js');
    const messages = /var TEXT = (\{.*?\}) \|\| /.exec(widget)![1]!;
    expect(Object.keys(JSON.parse(messages).messages.en).sort()).toEqual(['calendar.noUpcoming', 'status.cancelled', 'widget.error', 'widget.seeAll']);
    expect(widget.replace(messages, '/*calfeed:messages*/null')).toBe(await readFile(new URL('widget.js', BUILTIN_ASSETS), 'utf8'));
  });

  it('event pages carry the hostile title as data: JSON-LD parses, holds it verbatim, and the <h1> shows it as text', async () => {
    const events = (await outFiles(main(), '.html')).filter((f) => f.includes('/events/'));
    const names = new Map<string, string>();
    for (const file of events) {
      const report = inspectHtml(await read(main(), file), { page: true });
      expect(report.jsonLd.length, file).toBe(1);
      const schema = JSON.parse(report.jsonLd[0]!);
      expect(schema['@type'], file).toBe('Event');
      expect(schema.url, file).toBe(SITE + file);
      names.set(schema.name, report.h1 ?? '');
    }
    for (const title of ['<script>alert(1)</script>', '</script><script>alert(document.cookie)</script>', '"><img src=x onerror=alert(1)>', 'CDATA breaker ]]> and ]]]]><![CDATA[>', "Quotes ' \" & < > in a title"]) {
      expect(names.has(title), title).toBe(true);
      expect(names.get(title)).toBe(title);
    }
    // Outside JSON-LD no page holds the raw breakout text.
    for (const file of events) expect(await read(main(), file), file).not.toContain('</script><script>alert');
  });

  it('feeds: every .xml is well-formed, with no control characters and no script in any HTML it carries', async () => {
    const xmlFiles = await outFiles(main(), '.xml');
    // The combined, each calendar's and each category's RSS and Atom, and sitemap.xml.
    const categories = (await categoryFolders(main())).length;
    expect(categories).toBeGreaterThan(3);
    expect(xmlFiles.length).toBe(2 + 2 * 9 + 2 * categories + 1);
    const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', cdataPropName: false, processEntities: true, htmlEntities: false });
    for (const file of xmlFiles) {
      const text = await read(main(), file);
      expect(XMLValidator.validate(text), file).toBe(true);
      expect(CONTROL_CHARS.test(text), `${file} contains a control character`).toBe(false);
      expect(await wellFormedUtf8(main(), file), `${file}: invalid UTF-8 or a replaced lone surrogate`).toBe(true);
      // RSS cannot mark text as text and readers render titles and descriptions as HTML: every RSS string
      // is checked as HTML. Atom marks its HTML text constructs (type="html", parsed as
      // an object with #text); the ones without a type are text by spec.
      const atom = file.endsWith('atom.xml');
      for (const { path, text: value } of strings(parser.parse(text))) {
        const html = !atom || /\.#text$/.test(path);
        if (html) expect(inspectHtml(value, { page: false }).problems, `${file} ${path}`).toEqual([]);
        expect(value, `${file} ${path}`).not.toMatch(/^\s*(javascript|data|vbscript):/i);
      }
    }
    const hostileRss = await read(main(), paths.calendar(assignSegments(['../../etc/passwd']).get('../../etc/passwd')!, 'rss.xml'));
    expect(hostileRss).toContain('href="https://ok.example/"');
  });

  it('JSON Feed: content_html is clean and every URL is http(s)', async () => {
    const jsonFiles = await outFiles(main(), 'feed.json');
    expect(jsonFiles.length).toBe(1 + 9 + (await categoryFolders(main())).length);
    for (const file of jsonFiles) {
      const feed = JSON.parse(await read(main(), file));
      for (const { path, text } of strings(feed)) {
        if (/\.content_html$/.test(path)) expect(inspectHtml(text, { page: false }).problems, `${file} ${path}`).toEqual([]);
        if (/\.(url|external_url|image|banner_image|home_page_url|feed_url|icon|favicon)$/.test(path)) expect(text, `${file} ${path}`).toMatch(/^https:\/\//);
        expect(text, `${file} ${path}`).not.toMatch(/^\s*(javascript|data|vbscript):/i);
      }
    }
  });

  it('iCalendar: every .ics parses with ical.js, has no control characters and no injected properties', async () => {
    const icsFiles = await outFiles(main(), '.ics');
    expect(icsFiles.length).toBeGreaterThan(70);
    const titles = new Set<string>();
    for (const file of icsFiles) {
      const text = await read(main(), file);
      expect(CONTROL_CHARS.test(text), `${file} contains a control character`).toBe(false);
      expect(await wellFormedUtf8(main(), file), `${file}: invalid UTF-8 or a replaced lone surrogate`).toBe(true);
      const cal = new ICAL.Component(ICAL.parse(text));
      for (const vevent of cal.getAllSubcomponents('vevent')) {
        const names = vevent.getAllProperties().map((p) => p.name);
        expect(names, file).not.toContain('x-injected');
        expect(names, file).not.toContain('bcc');
        const url = vevent.getFirstPropertyValue('url');
        if (url !== null) expect(String(url), file).toMatch(/^https?:\/\//);
        titles.add(String(vevent.getFirstPropertyValue('summary')));
      }
    }
    // Escaped, not interpreted: the separators come back as text.
    expect(titles).toContain('iCal escapes: semi; comma, back\\slash new line');
    expect(titles).toContain('<script>alert(1)</script>');
  });
});
