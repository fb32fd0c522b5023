// Message catalogs: every word of the page chrome in one language, from templates/locales/{lang}.json,
// overlaid key by key by --templates. A site uses the first of its --locale list with a catalog,
// else English, and its pages' `lang` is that catalog's, so the attribute matches the text.

import { ConfigError } from '../../errors.js';
import { nearest } from '../../config/nearest.js';

/** A message: plain text with {name} placeholders, or one text per plural category (CLDR; `other` required). */
export type Message = string | Readonly<Partial<Record<Intl.LDMLPluralRule, string>>>;

/** Values a message's placeholders take; `count` also picks the plural form. */
export type MessageParams = Readonly<Record<string, unknown>>;

/** The page text of one language. */
export interface PageText {
  /** The catalog's language tag: `lang` of every page and of the widget's output. */
  readonly lang: string;
  /** The message under key with its placeholders filled; throws for an unknown key or a missing value. */
  t(key: string, params?: MessageParams): string;
  /** Every message, raw (for page.js and widget.js, which fill them in the browser). */
  readonly messages: ReadonlyMap<string, Message>;
}

/** A catalog file as read: where it came from (for errors) and its text. */
export interface CatalogSource {
  file: string;
  text: string;
}

const CATEGORIES: readonly string[] = ['zero', 'one', 'two', 'few', 'many', 'other'];
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The canonical tag of a catalog named `{tag}.json`, or undefined when the name is not a language tag. */
export function catalogLang(name: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(name)[0];
  } catch {
    return undefined;
  }
}

/** A catalog file's messages, checked: an object of strings or plural objects whose forms are strings. */
export function parseCatalog(src: CatalogSource, lang: string): Map<string, Message> {
  let json: unknown;
  try {
    json = JSON.parse(src.text);
  } catch (error) {
    throw new ConfigError(`Message catalog ${src.file} is not valid JSON: ${(error as Error).message}.`, { cause: error });
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new ConfigError(`Message catalog ${src.file} must be a JSON object of "key": "text" pairs.`);
  const categories = new Intl.PluralRules(lang).resolvedOptions().pluralCategories as readonly string[];
  const messages = new Map<string, Message>();
  for (const [key, value] of Object.entries(json as Record<string, unknown>)) {
    if (typeof value === 'string') {
      messages.set(key, value);
      continue;
    }
    const forms = value && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value as Record<string, unknown>) : undefined;
    const bad = forms === undefined ? 'a string or an object of plural forms' : badForms(forms, categories);
    if (bad) throw new ConfigError(`Message catalog ${src.file}: "${key}" must be ${bad}.`);
    messages.set(key, Object.freeze(Object.fromEntries(forms!)) as Message);
  }
  return messages;
}

function badForms(forms: Array<[string, unknown]>, categories: readonly string[]): string | undefined {
  const names = forms.map(([name]) => name);
  const unknown = names.find((name) => !CATEGORIES.includes(name));
  if (unknown !== undefined) return `plural forms named ${CATEGORIES.join(', ')} (not "${unknown}")`;
  if (forms.some(([, text]) => typeof text !== 'string')) return 'plural forms that are strings';
  const missing = categories.filter((c) => !names.includes(c));
  if (missing.length > 0) return `given in every plural form of its language (${categories.join(', ')}; missing ${missing.join(', ')})`;
  return undefined;
}

/** Built-in catalogs overlaid by the user's, by language. */
export class Catalogs {
  private readonly merged = new Map<string, Map<string, Message>>();
  // By --locale list; a site has one, tests a few.
  private readonly picked = new Map<string, PageText>();

  constructor(
    /** The built-in catalogs by language (English among them: the reference key set). */
    builtin: ReadonlyMap<string, Map<string, Message>>,
    /** The user's catalogs by language. */
    user: ReadonlyMap<string, Map<string, Message>>,
  ) {
    for (const [lang, messages] of builtin) this.merged.set(lang, new Map(messages));
    for (const [lang, messages] of user) {
      const into = this.merged.get(lang) ?? new Map<string, Message>();
      for (const [key, message] of messages) into.set(key, message);
      this.merged.set(lang, into);
    }
    if (!this.merged.has('en')) throw new ConfigError('The built-in message catalog locales/en.json is missing; reinstall calfeed.');
  }

  /** The language of the first locale with a catalog (exactly, or by its language subtag), else English. */
  langFor(locales: readonly string[]): string {
    for (const locale of locales) {
      const tag = catalogLang(locale);
      if (tag === undefined) continue;
      if (this.merged.has(tag)) return tag;
      const base = tag.split('-')[0]!;
      if (this.merged.has(base)) return base;
    }
    return 'en';
  }

  /** The page text for a --locale list (remembered: a site asks once per page). */
  pick(locales: readonly string[]): PageText {
    const list = locales.join(',');
    let text = this.picked.get(list);
    if (!text) {
      const lang = this.langFor(locales);
      text = [...this.picked.values()].find((known) => known.lang === lang) ?? pageText(lang, this.merged.get(lang)!);
      this.picked.set(list, text);
    }
    return text;
  }

  /** Every language's messages (for widget.js, which picks by the embedding page's language). */
  all(): ReadonlyMap<string, ReadonlyMap<string, Message>> {
    return this.merged;
  }

  /**
   * Throws unless every catalog gives every key in `used` (key -> where it is used), and every key
   * of the user's catalogs is one calfeed or a template uses (a misspelt key would be ignored).
   */
  check(used: ReadonlyMap<string, string>, userFiles: ReadonlyMap<string, { file: string; keys: Iterable<string> }>): void {
    const known = [...new Set([...this.merged.get('en')!.keys(), ...used.keys()])];
    const given = [...new Set([...this.merged.values()].flatMap((m) => [...m.keys()]))];
    for (const [key, where] of used) {
      if (!given.includes(key)) throw new ConfigError(`${where} uses the message "${key}", which no catalog has.${didYouMean(key, given)} Add it to locales/en.json (and every other catalog) in the --templates folder.`);
    }
    for (const [lang, messages] of this.merged) {
      const missing = [...used.keys()].filter((key) => !messages.has(key));
      if (missing.length > 0) {
        const file = userFiles.get(lang)?.file ?? `locales/${lang}.json`;
        throw new ConfigError(`Message catalog ${file} lacks ${missing.map((k) => `"${k}"`).join(', ')} (used by ${used.get(missing[0]!)}). Give every message in every catalog, so a page's text is all in its language.`);
      }
    }
    for (const { file, keys } of userFiles.values()) {
      for (const key of keys) {
        if (!known.includes(key)) throw new ConfigError(`Message catalog ${file}: "${key}" is not a message calfeed or a template uses.${didYouMean(key, known)}`);
      }
    }
  }
}

function didYouMean(key: string, known: readonly string[]): string {
  const near = nearest(key, known);
  return near ? ` Did you mean "${near}"?` : '';
}

function pageText(lang: string, messages: ReadonlyMap<string, Message>): PageText {
  const plural = new Intl.PluralRules(lang);
  const number = new Intl.NumberFormat(lang);
  return {
    lang,
    messages,
    t(key, params = {}) {
      const message = messages.get(key);
      if (message === undefined) throw new ConfigError(`No message "${key}" in the ${lang} catalog.${didYouMean(key, [...messages.keys()])}`);
      const count = params['count'];
      const text = typeof message === 'string' ? message : (message[typeof count === 'number' ? plural.select(count) : 'other'] ?? message.other ?? '');
      return text.replace(PLACEHOLDER, (_, name: string) => {
        const value = params[name];
        if (value === undefined || value === null) throw new ConfigError(`The message "${key}" (${lang}) needs a value for {${name}}.`);
        return typeof value === 'number' ? number.format(value) : String(value);
      });
    },
  };
}
