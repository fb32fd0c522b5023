// Reading raw JSON records: key matching that ignores case and separators, dotted paths with array
// indexes, and merging a list entry with its details. Portals spell the same field as `startDate`,
// `start_date` or `Start-Date`, so every lookup goes through normKey().

export type RawRecord = Record<string, unknown>;

/** True for a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is RawRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Folding keys is the normalizer's hot path: folded names are memoized (bounded: keys are untrusted
// data), and each record gets an index from folded key to actual key, built once.
const folded = new Map<string, string>();
const FOLDED_MAX = 10_000;
const indexes = new WeakMap<RawRecord, Map<string, string>>();

/** A key folded for matching: lowercase, without `_`, `-` or spaces. */
export function normKey(key: string): string {
  let result = folded.get(key);
  if (result === undefined) {
    result = key.toLowerCase().replace(/[-_\s]/g, '');
    if (folded.size >= FOLDED_MAX) folded.clear();
    folded.set(key, result);
  }
  return result;
}

/** Folded key -> actual key of a record (the first spelling wins), cached per record object. */
export function keyIndex(record: RawRecord): Map<string, string> {
  let index = indexes.get(record);
  if (index === undefined) {
    index = new Map();
    for (const key of Object.keys(record)) {
      const norm = normKey(key);
      if (!index.has(norm)) index.set(norm, key);
    }
    indexes.set(record, index);
  }
  return index;
}

/** The actual key of `record` matching `name`: exact first, then case/separator-insensitive. */
export function keyOf(record: RawRecord, name: string): string | undefined {
  if (Object.hasOwn(record, name)) return name;
  return keyIndex(record).get(normKey(name));
}

/** Splits "a.b[0].c" (or "a.b.0.c") into segments; array indexes become numbers. */
export function parsePath(path: string): Array<string | number> {
  const segments: Array<string | number> = [];
  for (const part of path.split('.')) {
    const match = /^([^[\]]*)((?:\[\d+\])*)$/.exec(part);
    if (!match) {
      segments.push(part);
      continue;
    }
    if (match[1]) segments.push(match[1]);
    for (const index of (match[2] ?? '').matchAll(/\[(\d+)\]/g)) segments.push(Number(index[1]));
  }
  return segments.filter((s) => s !== '');
}

/** Formats segments back into a dotted path with [i] indexes. */
export function formatPath(segments: ReadonlyArray<string | number>): string {
  let out = '';
  for (const seg of segments) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out;
}

/** Follows a dotted path: the value and the segments as spelled in the data; undefined when absent. */
export function resolvePath(root: unknown, path: string): { value: unknown; segments: Array<string | number> } | undefined {
  let current = root;
  const actual: Array<string | number> = [];
  for (const seg of parsePath(path)) {
    if (Array.isArray(current)) {
      const index = typeof seg === 'number' ? seg : /^\d+$/.test(seg) ? Number(seg) : NaN;
      if (!(index < current.length)) return undefined;
      current = current[index];
      actual.push(index);
    } else if (isObject(current)) {
      const key = keyOf(current, String(seg));
      if (key === undefined) return undefined;
      current = current[key];
      actual.push(key);
    } else {
      return undefined;
    }
  }
  return { value: current, segments: actual };
}

/**
 * A list entry merged with its details: details win, and a details key replaces the entry's key of
 * the same folded name (so `start_date` in the entry and `startDate` in details do not both survive).
 */
export function mergeRecords(entry: RawRecord, details: RawRecord | undefined): RawRecord {
  if (!details) return { ...entry };
  // The details' key index answers both "does details spell this field somehow" and "which key".
  const index = keyIndex(details);
  const merged: RawRecord = {};
  // Entry keys details also has but leaves null: the entry's value goes back in after details'.
  let nulled: string[] | undefined;
  for (const key of Object.keys(entry)) {
    const folded = normKey(key);
    if (!index.has(folded)) {
      merged[key] = entry[key];
      continue;
    }
    const detailKey = Object.hasOwn(details, key) ? key : index.get(folded)!;
    if (details[detailKey] === null || details[detailKey] === undefined) (nulled ??= []).push(key);
  }
  for (const key of Object.keys(details)) {
    const value = details[key];
    if (value !== undefined && value !== null) merged[key] = value;
  }
  // A null in details must not erase what the list entry knew (portals often null out list-only fields).
  if (nulled) for (const key of nulled) merged[key] = entry[key];
  return merged;
}
