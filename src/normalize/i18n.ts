// Multilingual values: `{"en": "Talk", "lt": "Paskaita"}` objects and `titleEn` / `title_lt` sibling
// fields. Language codes are ISO 639-1, optionally with a region (`en-US`, `en_us`, `EnUs`).
// `id` is left out on purpose: `locationId` or `{"id": "r1"}` are far more often ids than Indonesian.

import { isObject, normKey, type RawRecord } from './record.js';

const ISO_639_1 = new Set(
  (
    'aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en eo ' +
    'es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia ie ig ii ik io is it iu ja jv ka kg ki ' +
    'kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no ' +
    'nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te ' +
    'tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu'
  ).split(' '),
);

/** Normalizes a language key ("en_US", "EN-us") to "en-us", or undefined when it is not one. */
export function langCode(key: string): string | undefined {
  const match = /^([a-z]{2})(?:[-_]([a-z]{2}|[0-9]{3}))?$/i.exec(key);
  if (!match || !ISO_639_1.has(match[1]!.toLowerCase())) return undefined;
  return match[2] ? `${match[1]!.toLowerCase()}-${match[2].toLowerCase()}` : match[1]!.toLowerCase();
}

/** True for an object whose keys are all language codes and whose values are text (or empty). */
export function isLangMap(value: unknown): value is RawRecord {
  if (!isObject(value)) return false;
  const entries = Object.entries(value);
  if (entries.length === 0) return false;
  return entries.every(([key, v]) => langCode(key) !== undefined && (typeof v === 'string' || v === null));
}

/** Picks the value for the first of `locales` present, then English, then the first non-empty one. */
export function pickLang(map: RawRecord, locales: readonly string[]): { value: string; lang: string } | undefined {
  const available: Array<{ lang: string; value: string }> = [];
  for (const [key, value] of Object.entries(map)) {
    const lang = langCode(key);
    if (lang && typeof value === 'string' && value.trim() !== '') available.push({ lang, value });
  }
  for (const wanted of [...locales, 'en']) {
    const code = wanted.toLowerCase().replace('_', '-');
    const primary = code.split('-')[0];
    const exact = available.find((a) => a.lang === code);
    const byPrimary = exact ?? available.find((a) => a.lang.split('-')[0] === primary);
    if (byPrimary) return byPrimary;
  }
  return available[0];
}

/**
 * The language suffix of `key` after a base field name (`titleEn` -> en, `title_lt` -> lt,
 * `title-en-US` -> en-us), or undefined. A camelCase suffix must look like `En` or `EnUs`, so that
 * `descriptionHtml` is not read as Haitian. `wanted` is normKey(base).
 */
function siblingLang(key: string, wanted: string): string | undefined {
  const folded = normKey(key);
  if (folded.length === wanted.length || !folded.startsWith(wanted)) return undefined;
  for (let cut = 1; cut < key.length; cut++) {
    if (normKey(key.slice(0, cut)) !== wanted) continue;
    const rest = key.slice(cut);
    const separated = /^[-_]([a-z]{2})(?:[-_]([a-z]{2}))?$/i.exec(rest);
    const camel = /^([A-Z][a-z]|[A-Z]{2})([A-Z][a-z]|[A-Z]{2})?$/.exec(rest);
    const match = separated ?? camel;
    if (!match) return undefined;
    return langCode(match[2] ? `${match[1]}-${match[2]}` : match[1]!);
  }
  return undefined;
}

/** Gathers `base` + language siblings of a record into a language map, with the keys used. */
export function siblingLangMap(record: RawRecord, base: string): { map: RawRecord; keys: string[] } | undefined {
  // Asked for every candidate name of a field the record lacks: nothing is allocated until a key passes.
  const wanted = normKey(base);
  let map: RawRecord | undefined;
  let keys: string[] | undefined;
  for (const key of Object.keys(record)) {
    const lang = siblingLang(key, wanted);
    if (lang === undefined) continue;
    const value = record[key];
    if (typeof value !== 'string' && value !== null) continue;
    (map ??= {})[lang] = value;
    (keys ??= []).push(key);
  }
  return keys !== undefined ? { map: map!, keys } : undefined;
}
