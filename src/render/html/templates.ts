// Loading and compiling templates, once, before any page is rendered: the one part of the HTML
// renderer that touches the disk. A --templates folder overlays files of the same relative name,
// and its catalogs (locales/{lang}.json) overlay the built-in ones key by key.

import { createHash, randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import Handlebars from 'handlebars';
import { CalfeedError, ConfigError } from '../../errors.js';
import { stripControl } from '../text.js';
import { Catalogs, catalogLang, parseCatalog, type CatalogSource as Source, type Message, type PageText } from './messages.js';
import { checkUserNames, templateUses } from './template-uses.js';
import { allDays, type DayList } from './view.js';
import { SEARCH_MESSAGES } from './search.js';

/** The package's own templates/ folder (the same relative place from src/ and from dist/). */
export const BUILTIN_TEMPLATES = fileURLToPath(new URL('../../../templates/', import.meta.url));

/** Pages every renderer needs; a user folder may add partials but not new pages. */
export const PAGE_NAMES = ['index', 'calendar', 'past', 'widget', 'event', 'not-found', 'category', 'categories'] as const;
export type PageName = (typeof PAGE_NAMES)[number];
/** The pages with a day list. */
export type DaysPageName = 'calendar' | 'past' | 'category';

// strict: a misspelt field in a (user) template fails the build instead of rendering blank.
// Prototype access stays at Handlebars' closed default: templates only see own properties.
const COMPILE_OPTIONS: CompileOptions = { strict: true, preventIndent: true };

/** The messages widget.js shows (it is given them in every language with a catalog). */
export const WIDGET_MESSAGES = ['status.cancelled', 'calendar.noUpcoming', 'widget.error', 'widget.seeAll'] as const;
/** The feeds' words (src/render/syndication/): item titles and bodies, a feed's description. */
const FEED_MESSAGES = ['feed.description', 'feed.cancelledTitle', 'event.cancelled', 'feed.when', 'feed.where', 'feed.eventPage', 'feed.addToCalendar', 'feed.onPortal'];
/** Message keys the renderer's code uses besides the templates: view.ts, widget.js, page.js's search, the feeds. */
const CODE_MESSAGES = ['past.title', 'categories.title', ...WIDGET_MESSAGES, ...SEARCH_MESSAGES, ...FEED_MESSAGES];

export interface TemplateSet {
  /** Render a page template with a plain view model, its {{t}} text from `text`. */
  render(name: PageName, view: object, text: PageText): string;
  /**
   * render()'s text of a page with a day list, in pieces, the list (partials/day-list) a part at a
   * time; in one piece when the page or the list is the user's, or a user's template names `days`
   * or `@../` (only the built-in ones are known to look at the days in no other way).
   */
  renderDays(name: DaysPageName, view: object, days: DayList, size: number, text: PageText): Iterable<string>;
  /** Static assets (style.css, widget.js, ...), by file name. */
  assets: Record<string, string>;
  /** The message catalogs in effect, built-in and the user's. */
  catalogs: Catalogs;
  /** Hash of every template, asset and catalog source in effect, so a changed one re-renders pages. */
  fingerprint: string;
}

const TEMPLATE_FILES = ['layouts/**/*.hbs', 'partials/**/*.hbs', 'pages/**/*.hbs', 'assets/*'];
const CATALOG_FILES = ['locales/*.json'];

async function collect(dir: string, into: Map<string, Source>, patterns: string[] = TEMPLATE_FILES): Promise<void> {
  const entries = await fg(patterns, { cwd: dir }); // fast-glob's defaults: files only, no dotfiles
  // Sorted so that overlay order, and so the result, never depends on directory order.
  for (const rel of entries.sort()) {
    const file = join(dir, rel);
    into.set(rel, { file, text: await readFile(file, 'utf8') });
  }
}

function lineOf(error: unknown): number | undefined {
  if (error && typeof error === 'object' && typeof (error as { lineNumber?: unknown }).lineNumber === 'number') {
    return (error as { lineNumber: number }).lineNumber;
  }
  const match = /line (\d+)/.exec(error instanceof Error ? error.message : String(error));
  return match ? Number(match[1]) : undefined;
}

function compileError(src: Source, error: unknown): CalfeedError {
  const line = lineOf(error);
  const detail = (error instanceof Error ? error.message : String(error)).split('\n')[0];
  return new CalfeedError(
    'BUILD',
    `Template ${src.file}${line === undefined ? '' : ` line ${line}`} does not compile: ${detail}. ` +
      'Fix it, or remove it from the --templates folder to use the built-in one.',
    { cause: error },
  );
}

function compile(hb: typeof Handlebars, src: Source): HandlebarsTemplateDelegate {
  try {
    // Compiled now, so errors surface at load time, and once: compile() would compile it again on
    // first use. precompile() gives the template as JavaScript source, which template() runs from.
    const spec = new Function(`return ${hb.precompile(src.text, COMPILE_OPTIONS)}`)() as TemplateSpecification;
    return hb.template(spec);
  } catch (error) {
    throw compileError(src, error);
  }
}

/** The template and catalog files a build uses, read but not compiled, and their fingerprint. */
export interface TemplateSources {
  fingerprint: string;
  sources: Map<string, Source>;
  catalogSources: { builtin: Map<string, Source>; user: Map<string, Source> };
  userDir: string | undefined;
  builtinNames: Set<string>;
  userNames: string[];
}

/** Read the built-in templates overlaid by userDir, and fingerprint them: what a build's inputs need. */
export async function readTemplates(userDir?: string): Promise<TemplateSources> {
  const sources = new Map<string, Source>();
  const catalogSources = { builtin: new Map<string, Source>(), user: new Map<string, Source>() };
  await collect(BUILTIN_TEMPLATES, sources);
  await collect(BUILTIN_TEMPLATES, catalogSources.builtin, CATALOG_FILES);
  const builtinNames = new Set(sources.keys());
  const userNames: string[] = [];
  if (userDir !== undefined) {
    const dir = resolve(userDir);
    const info = await stat(dir).catch(() => undefined);
    if (!info?.isDirectory()) throw new ConfigError(`--templates: "${dir}" is not a folder. Give a folder of .hbs files laid out like templates/ (layouts/, partials/, pages/).`);
    const own = new Map<string, Source>();
    await collect(dir, own);
    for (const [rel, src] of own) sources.set(rel, src);
    userNames.push(...own.keys());
    await collect(dir, catalogSources.user, CATALOG_FILES);
  }
  const hash = createHash('sha256');
  for (const [rel, src] of [...sources].sort(([a], [b]) => (a < b ? -1 : 1))) hash.update(`${rel}\0${src.text}\0`);
  for (const [origin, found] of Object.entries(catalogSources)) for (const [rel, src] of found) hash.update(`${origin}:${rel}\0${src.text}\0`);
  return { fingerprint: hash.digest('base64url'), sources, catalogSources, userDir, builtinNames, userNames };
}

/** Compile templates read by readTemplates, check the user's names and catalogs, and return the page renderer. */
export function compileTemplates(read: TemplateSources): TemplateSet {
  const { sources, catalogSources, userDir, builtinNames, userNames } = read;
  const hb = Handlebars.create();
  hb.registerHelper('t', messageHelper);
  const { pages, assets, uses } = compileAll(hb, sources);
  for (const name of PAGE_NAMES) {
    if (!pages.has(name)) throw new CalfeedError('BUILD', `Template pages/${name}.hbs is missing from ${BUILTIN_TEMPLATES}; reinstall calfeed.`);
  }
  checkUserNames(userNames, builtinNames, new Set(uses.partials), userDir === undefined ? '' : resolve(userDir));
  const catalogs = loadCatalogs(catalogSources, uses.keys);

  // The day list, when renderDays may cut the pages that show it into pieces.
  const builtin = (rel: string): boolean => sources.get(rel)?.file === join(BUILTIN_TEMPLATES, rel);
  const dayList = cuttableDayList(hb, sources, builtin);
  const mark = `calfeed-days-${randomUUID()}`;

  const set: TemplateSet = {
    assets,
    catalogs,
    fingerprint: read.fingerprint,
    render(name, view, text) {
      const page = pages.get(name)!;
      try {
        // Control characters from portal text are HTML parse errors (NUL becomes U+FFFD); none is
        // meaningful on a page, and JSON-LD keeps them as \u escapes, so strip the whole page once.
        return stripControl(page.template(view, { data: { calfeedText: text } }));
      } catch (error) {
        throw renderError(page.src, error);
      }
    },
    renderDays(name, view, days, size, text) {
      const cut = dayList !== undefined && builtin(`pages/${name}.hbs`) ? { dayList, mark } : undefined;
      const whole = (): string => set.render(name, { ...view, days: allDays(days) }, text);
      return daysInPieces({ page: pages.get(name)!, cut, whole, text }, view, days, size);
    },
  };
  return set;
}

type Compiled = { src: Source; template: HandlebarsTemplateDelegate };

/** Every template compiled and registered (partials, layouts), the pages by name, the assets, and what they use. */
function compileAll(hb: typeof Handlebars, sources: ReadonlyMap<string, Source>) {
  const pages = new Map<string, Compiled>();
  const assets: Record<string, string> = {};
  const uses = { keys: new Map<string, string>(), partials: [] as string[] };
  for (const [rel, src] of sources) {
    if (rel.startsWith('assets/')) {
      assets[rel.slice('assets/'.length)] = src.text;
      continue;
    }
    const name = rel.replace(/\.hbs$/, '');
    const template = compile(hb, src);
    const used = templateUses(src.text);
    for (const { key, line } of used.keys) if (!uses.keys.has(key)) uses.keys.set(key, `${src.file} line ${line}`);
    uses.partials.push(...used.partials);
    if (name.startsWith('partials/')) hb.registerPartial(name.slice('partials/'.length), template);
    else if (name.startsWith('layouts/')) hb.registerPartial(name, template);
    else pages.set(name.slice('pages/'.length), { src, template });
  }
  for (const key of CODE_MESSAGES) if (!uses.keys.has(key)) uses.keys.set(key, 'calfeed itself');
  return { pages, assets, uses };
}

/** The catalogs, built-in and the user's, each checked to give every message the templates and calfeed use. */
function loadCatalogs(found: { builtin: ReadonlyMap<string, Source>; user: ReadonlyMap<string, Source> }, used: ReadonlyMap<string, string>): Catalogs {
  const userFiles = new Map<string, { file: string; keys: Iterable<string> }>();
  const read = (sources: ReadonlyMap<string, Source>, user: boolean): Map<string, Map<string, Message>> => {
    const byLang = new Map<string, Map<string, Message>>();
    for (const [rel, src] of sources) {
      const name = rel.slice('locales/'.length, -'.json'.length);
      const lang = catalogLang(name);
      if (lang === undefined) throw new ConfigError(`Message catalog ${src.file}: "${name}" is not a language tag. Name a catalog after its language, e.g. locales/lt.json or locales/pt-BR.json.`);
      const messages = parseCatalog(src, lang);
      byLang.set(lang, messages);
      if (user) userFiles.set(lang, { file: src.file, keys: messages.keys() });
    }
    return byLang;
  };
  const catalogs = new Catalogs(read(found.builtin, false), read(found.user, true));
  catalogs.check(used, userFiles);
  return catalogs;
}

/** {{t "key" name=value}}: the message in the page's language (given as @calfeedText by render). */
function messageHelper(this: unknown, ...args: unknown[]): string {
  const options = args.pop() as Handlebars.HelperOptions;
  const [key] = args;
  if (typeof key !== 'string') throw new Error('{{t}} needs a message key first, e.g. {{t "calendar.upcoming"}}');
  const text = (options.data as { calfeedText?: PageText } | undefined)?.calfeedText;
  if (!text) throw new Error('{{t}} has no catalog here');
  return text.t(key, options.hash as Record<string, unknown>);
}

/**
 * The built-in day list partial, when the pages showing it may be rendered in pieces: unless a
 * template of the user's looks at the days or at a day's place among them (@../), or replaces it.
 */
function cuttableDayList(hb: typeof Handlebars, sources: ReadonlyMap<string, Source>, builtin: (rel: string) => boolean): HandlebarsTemplateDelegate | undefined {
  const ownDays = [...sources].some(([rel, src]) => !builtin(rel) && /\bdays\b|@\.\.\//.test(src.text));
  return builtin('partials/day-list.hbs') && !ownDays ? (hb.partials['day-list'] as HandlebarsTemplateDelegate) : undefined;
}

interface DaysPage {
  page: { src: Source; template: HandlebarsTemplateDelegate };
  /** The day list partial and the mark put in its place; undefined: the page is rendered whole. */
  cut: { dayList: HandlebarsTemplateDelegate; mark: string } | undefined;
  whole: () => string;
  text: PageText;
}

/** A page with a day list, in pieces: what comes before the list, the list a part at a time, what comes after. */
function* daysInPieces({ page, cut, whole, text }: DaysPage, view: object, days: DayList, size: number): Generator<string> {
  const data = { calfeedText: text };
  let around: string[] = [];
  try {
    // The page with a mark where the day list goes: what comes before and after it.
    if (cut) around = page.template({ ...view, days: { length: days.length } }, { partials: { 'day-list': () => cut.mark }, data }).split(cut.mark);
  } catch (error) {
    throw renderError(page.src, error);
  }
  if (!cut || around.length !== 2) {
    yield whole();
    return;
  }
  // Each piece is stripped on its own: a cut falls between two days, in the template's own text.
  yield stripControl(around[0]!);
  for (const part of days.parts(size)) {
    try {
      yield stripControl(cut.dayList({ ...view, days: part }, { data }));
    } catch (error) {
      throw renderError(page.src, error);
    }
  }
  yield stripControl(around[1]!);
}

function renderError(src: Source, error: unknown): CalfeedError {
  const detail = error instanceof Error ? error.message : String(error);
  return new CalfeedError(
    'BUILD',
    `Template ${src.file} (or a partial it uses) failed to render: ${detail}. ` + 'Templates can use only the fields docs/templates.md (in calfeed\'s repository) lists for each page and partial.',
    { cause: error },
  );
}
