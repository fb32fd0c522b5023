// Turning one raw value into a model value: text (with languages), URLs, booleans, locations,
// organizers, categories, status. Pure and forgiving: a value of the wrong shape gives undefined.
// HTML is kept as given; renderers sanitize it.

import type { EventAddressParts, EventLocation, EventOrganizer, EventStatus } from '../model.js';
import { isLangMap, pickLang } from './i18n.js';
import { isObject, keyOf, type RawRecord } from './record.js';

/** Text from a string, a number or a language map; trimmed; undefined when empty. */
export function textOf(value: unknown, locales: readonly string[]): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (isLangMap(value)) return pickLang(value, locales)?.value.trim();
  return undefined;
}

/** True for a value textOf() can read. */
export function isText(value: unknown): boolean {
  return textOf(value, []) !== undefined;
}

/** The string form of an id: strings as given (not empty), integers and finite numbers stringified. */
export function idOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint') return String(value);
  return undefined;
}

/** A boolean from true/false, 1/0, "true"/"yes"/"1" and their opposites; else undefined. */
export function boolOf(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === 0) return value === 1;
  if (typeof value !== 'string') return undefined;
  const text = value.trim().toLowerCase();
  if (['true', 'yes', 'y', '1', 'on'].includes(text)) return true;
  if (['false', 'no', 'n', '0', 'off', ''].includes(text)) return false;
  return undefined;
}

/** An absolute http(s) URL, or undefined. Other schemes (javascript:, data:) are never links. */
export function httpUrlOf(value: unknown, locales: readonly string[]): string | undefined {
  const raw = isObject(value) && !isLangMap(value) ? firstOf(value, ['url', 'href', 'src', 'link']) : value;
  const text = textOf(raw, locales);
  if (text === undefined) return undefined;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? text : undefined;
  } catch {
    return undefined;
  }
}

function firstOf(record: RawRecord, names: string[]): unknown {
  for (const name of names) {
    const key = keyOf(record, name);
    if (key !== undefined && record[key] !== null && record[key] !== undefined) return record[key];
  }
  return undefined;
}

const STREET_PARTS = ['street', 'streetAddress', 'address1', 'addressLine1', 'line1', 'address2', 'addressLine2', 'line2', 'building'];
const LOCALITY_PARTS = ['city', 'locality', 'town', 'municipality'];
const POSTAL_PARTS = ['postalCode', 'postcode', 'zip', 'zipCode'];
const REGION_PARTS = ['region', 'state', 'province', 'county'];
const COUNTRY_PARTS = ['country', 'countryName'];

/** An address: its text, and its parts when the portal gave an object of street/city/postal/country parts. */
export function addressOf(value: unknown, locales: readonly string[]): { text?: string; parts?: EventAddressParts } {
  if (!isObject(value) || isLangMap(value)) return { text: textOf(value, locales) };
  const pick = (names: string[]): string[] =>
    names.flatMap((name) => {
      const key = keyOf(value, name);
      const text = key === undefined ? undefined : textOf(value[key], locales);
      return text === undefined ? [] : [text];
    });
  const street = pick(STREET_PARTS);
  const [postal, localities, regions, countries] = [pick(POSTAL_PARTS), pick(LOCALITY_PARTS), pick(REGION_PARTS), pick(COUNTRY_PARTS)];
  const locality = [...postal, ...localities].join(' ');
  const lines = [...street, ...(locality ? [locality] : []), ...regions, ...countries];
  if (lines.length === 0) return { text: textOf(firstOf(value, ['full', 'formatted', 'formattedAddress']), locales) };
  const parts: EventAddressParts = {};
  if (street.length > 0) parts.streetAddress = street.join(', ');
  if (postal[0] !== undefined) parts.postalCode = postal[0];
  if (localities[0] !== undefined) parts.addressLocality = localities[0];
  if (regions[0] !== undefined) parts.addressRegion = regions[0];
  if (countries[0] !== undefined) parts.addressCountry = countries[0];
  return { text: lines.join(', '), parts };
}

const NAME_KEYS = ['name', 'title', 'label', 'displayName', 'venueName', 'room'];

/** A location from a string, a language map, or an object with name/title and address (nested venue too). */
export function locationOf(value: unknown, locales: readonly string[]): EventLocation | undefined {
  if (Array.isArray(value)) return value.length > 0 ? locationOf(value[0], locales) : undefined;
  if (!isObject(value) || isLangMap(value)) {
    const text = textOf(value, locales);
    return text === undefined ? undefined : { name: text, text };
  }
  const venue = firstOf(value, ['venue', 'place']);
  const inner = isObject(venue) && !isLangMap(venue) ? locationOf(venue, locales) : undefined;
  const name = textOf(firstOf(value, NAME_KEYS), locales) ?? inner?.name;
  const addressKey = keyOf(value, 'address');
  const given = addressKey !== undefined ? addressOf(value[addressKey], locales) : undefined;
  const found = given?.text !== undefined ? given : addressOf(value, locales);
  const { text: address, parts: addressParts } = found.text !== undefined ? found : { text: inner?.address, parts: inner?.addressParts };
  const lines = [name, address].filter((p): p is string => p !== undefined && p !== '');
  if (lines.length === 0) return undefined;
  const location: EventLocation = { text: lines.join(', ') };
  if (name !== undefined) location.name = name;
  if (address !== undefined && address !== '') location.address = address;
  if (addressParts !== undefined) location.addressParts = addressParts;
  return location;
}

const EMAIL = /^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$/;

function emailOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const bare = text.replace(/^mailto:/i, '').trim();
  return EMAIL.test(bare) ? bare : undefined;
}

/** An organizer from "Name <mail>", an e-mail, a name, or an object (the e-mail found by its shape). */
export function organizerOf(value: unknown, locales: readonly string[]): EventOrganizer | undefined {
  if (Array.isArray(value)) return value.length > 0 ? organizerOf(value[0], locales) : undefined;
  let name: string | undefined;
  let email: string | undefined;
  if (isObject(value) && !isLangMap(value)) {
    name = textOf(firstOf(value, ['name', 'title', 'displayName', 'fullName', 'label']), locales);
    email = emailOf(textOf(firstOf(value, ['email', 'mail', 'emailAddress', 'eMail']), locales));
    for (const v of Object.values(value)) email ??= typeof v === 'string' ? emailOf(v) : undefined;
  } else {
    const text = textOf(value, locales);
    if (text === undefined) return undefined;
    const angle = /^(.*?)\s*<([^<>]+)>$/.exec(text);
    email = emailOf(angle ? angle[2] : text);
    name = angle ? angle[1]!.replace(/^"|"$/g, '').trim() || undefined : email ? undefined : text;
  }
  if (name === undefined && email === undefined) return undefined;
  const organizer: EventOrganizer = {};
  if (name !== undefined) organizer.name = name;
  if (email !== undefined) organizer.email = email;
  return organizer;
}

/** Categories from an array of strings or of {name|title|label} objects, or a comma-separated string. */
export function categoriesOf(value: unknown, locales: readonly string[]): string[] {
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  const out: string[] = [];
  for (const item of items) {
    const text = isObject(item) && !isLangMap(item) ? textOf(firstOf(item, ['name', 'title', 'label', 'value']), locales) : textOf(item, locales);
    if (text !== undefined && !out.includes(text)) out.push(text);
  }
  return out;
}

/** Status from a status string: cancelled/canceled, tentative/postponed, else confirmed. */
export function statusOf(value: unknown): EventStatus | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = value.toLowerCase();
  if (/cancel/.test(text)) return 'cancelled';
  if (/tentative|postponed|provisional/.test(text)) return 'tentative';
  return 'confirmed';
}
