// Where the list is inside a list response, and where the record is inside a details response.
// Portals wrap lists in `{"data": [...]}`, `{"items": [...]}`, `{"result": {"records": [...]}}` and
// so on; the spec shows none of it, so we look in the usual places and say clearly what we found.

import { CalfeedError } from '../errors.js';
import { isObject, keyOf, normKey, resolvePath, type RawRecord } from './record.js';
import type { ListKind } from './types.js';

const KIND_NAMES: Record<ListKind, string[]> = {
  calendars: ['eventCalendars', 'calendars'],
  events: ['events', 'eventList'],
};
const GENERIC_NAMES = ['data', 'items', 'results', 'content', 'records', 'value', 'entries', 'rows', 'list', 'hits', 'elements'];
const RECORD_WRAPPERS = ['data', 'item', 'result', 'event', 'details', 'record', 'eventDetails', 'payload'];

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (isObject(value)) {
    const keys = Object.keys(value);
    return keys.length === 0 ? 'an empty object' : `an object with keys ${keys.slice(0, 12).map((k) => JSON.stringify(k)).join(', ')}${keys.length > 12 ? ', ...' : ''}`;
  }
  return `a ${typeof value} (${JSON.stringify(value).slice(0, 60)})`;
}

/** The array under one of `names` in an object, with its actual key. */
function arrayUnder(object: RawRecord, names: readonly string[]): { key: string; items: unknown[] } | undefined {
  for (const name of names) {
    const key = keyOf(object, name);
    if (key !== undefined && Array.isArray(object[key])) return { key, items: object[key] };
  }
  return undefined;
}

/**
 * Finds the list in a response body: a bare array, an array under a usual name (also one level
 * deeper), or at an explicit dotted path; else a RESPONSE error naming what was found.
 */
export function findList(body: unknown, kind: ListKind, explicitPath?: string): { items: unknown[]; path: string[] } {
  const configKey = `fields.lists.${kind}`;
  if (explicitPath !== undefined && explicitPath !== '' && explicitPath !== '.') {
    const found = resolvePath(body, explicitPath);
    if (found && Array.isArray(found.value)) return { items: found.value, path: found.segments.map(String) };
    throw new CalfeedError(
      'RESPONSE',
      `The ${kind} list is not at "${explicitPath}" (${configKey}): ${found ? `that holds ${describe(found.value)}` : 'no such path'}; the response is ${describe(body)}. Fix ${configKey} in calfeed.config.json (run calfeed inspect).`,
    );
  }
  if (Array.isArray(body)) return { items: body, path: [] };
  if (isObject(body)) {
    const names = [...KIND_NAMES[kind], ...GENERIC_NAMES];
    const direct = arrayUnder(body, names);
    if (direct) return { items: direct.items, path: [direct.key] };
    // One level deeper: {"data": {"items": [...]}}, {"_embedded": {"events": [...]}}; known wrapper names first.
    const containers = Object.keys(body).sort((a, b) => rank(a) - rank(b));
    for (const key of containers) {
      const inner = body[key];
      if (!isObject(inner)) continue;
      const nested = arrayUnder(inner, names);
      if (nested) return { items: nested.items, path: [key, nested.key] };
    }
    // A single array of records under an unusual name is still clearly the list.
    const arrays = Object.keys(body).filter((k) => Array.isArray(body[k]) && (body[k] as unknown[]).some(isObject));
    if (arrays.length === 1) return { items: body[arrays[0]!] as unknown[], path: [arrays[0]!] };
  }
  throw new CalfeedError(
    'RESPONSE',
    `Expected a list of ${kind} in the response, but found ${describe(body)}, with no array under ${[...KIND_NAMES[kind], ...GENERIC_NAMES].join('/')} (nor one level deeper). If the list is elsewhere, set ${configKey} in calfeed.config.json to its dotted path (run calfeed inspect).`,
  );
}

function rank(key: string): number {
  const index = [...GENERIC_NAMES, 'response', 'embedded', 'payload'].indexOf(normKey(key));
  return index === -1 ? 100 : index;
}

/** Replace the list at `path` inside `body` with `items`; returns a new value (bare array -> items). */
export function replaceList(body: unknown, path: string[], items: unknown[]): unknown {
  if (path.length === 0) return items;
  const [head, ...rest] = path as [string, ...string[]];
  if (Array.isArray(body)) {
    const copy = [...body];
    copy[Number(head)] = replaceList(body[Number(head)], rest, items);
    return copy;
  }
  const base = isObject(body) ? body : {};
  return { ...base, [head]: replaceList(base[head], rest, items) };
}

/** True when an object looks like a record itself rather than a wrapper around one. */
function looksLikeRecord(object: RawRecord): boolean {
  return ['id', 'eventId', 'eventCalendarId', 'uuid', 'title', 'name', 'summary'].some((name) => {
    const key = keyOf(object, name);
    return key !== undefined && !isObject(object[key]);
  });
}

/** Unwrap a details body: the record itself, or the single object under data/item/result/event/details. */
export function unwrapRecord(body: unknown): Record<string, unknown> {
  let current = body;
  for (let depth = 0; depth < 3; depth++) {
    if (Array.isArray(current) && current.length === 1 && isObject(current[0])) {
      current = current[0];
      continue;
    }
    if (!isObject(current) || looksLikeRecord(current)) break;
    const wrapper = RECORD_WRAPPERS.map((name) => keyOf(current as RawRecord, name)).find(
      (key) => key !== undefined && (isObject((current as RawRecord)[key]) || Array.isArray((current as RawRecord)[key])),
    );
    if (wrapper === undefined) break;
    current = current[wrapper];
  }
  if (isObject(current)) return current;
  throw new CalfeedError('RESPONSE', `Expected an event record in the details response, but found ${describe(body)}.`);
}
