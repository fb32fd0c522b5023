// The config file checked as a whole before any value is used: known keys only, no secrets, and
// `fields` and `paging` against the model, so a typo there fails the run instead of being ignored.
// Every problem is collected, so one run reports them all.

import { PAGING_MODES } from '../crawl/paging.js';
import { CALENDAR_FIELDS, EVENT_FIELDS, PAIR_FIELDS } from '../normalize/types.js';
import { nearest } from './nearest.js';
import { FILE_ONLY_KEYS, OPTIONS } from './options.js';

/** Checks one value; returns what is wrong with it ("expected ..., got ..."), or undefined. */
type Rule = (value: unknown) => string | undefined;
/** A section: its known keys, each with a rule or a nested section. */
interface Shape {
  readonly [key: string]: Rule | Shape;
}

const got = (value: unknown) => `got ${JSON.stringify(value)}`;
const rule = (expected: string, ok: (value: unknown) => boolean): Rule => (value) => (ok(value) ? undefined : `expected ${expected}, ${got(value)}`);

// An empty string is allowed: it is how `inspect` writes "not mapped, keep detecting".
const isPath = (value: unknown) => typeof value === 'string';
const path = rule('a dotted path string like "schedule.begins"', isPath);
const pathOrPair = rule(
  'a dotted path string like "schedule.begins", or a [date, time] pair like ["date", "startTime"]',
  (value) => isPath(value) || (Array.isArray(value) && value.length === 2 && value.every(isPath)),
);
const wholeNumber = (min: number) => rule(`a whole number of at least ${min}`, (value) => Number.isInteger(value) && (value as number) >= min);
const name = rule('a non-empty string', (value) => typeof value === 'string' && value.trim() !== '');
const oneOf = (choices: readonly string[]): Rule => (value) => {
  if (typeof value === 'string' && choices.includes(value)) return undefined;
  const hint = typeof value === 'string' ? nearest(value, choices) : undefined;
  return `expected one of ${choices.map((c) => `"${c}"`).join(', ')}, ${got(value)}${hint ? ` (did you mean "${hint}"?)` : ''}`;
};

const SECTIONS: Shape = {
  fields: {
    calendar: Object.fromEntries(CALENDAR_FIELDS.map((f) => [f, path])),
    event: Object.fromEntries(EVENT_FIELDS.map((f) => [f, PAIR_FIELDS.includes(f) ? pathOrPair : path])),
    lists: { calendars: path, events: path },
  },
  paging: {
    mode: oneOf(PAGING_MODES),
    pageParam: name,
    sizeParam: name,
    pageSize: wholeNumber(1),
    firstPage: wholeNumber(0),
    maxPages: wholeNumber(1),
  },
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks the parsed file, pushing one message per problem onto `problems`, and returns its keys;
 * the plain options' values are parsed later, with the other layers.
 */
export function checkFile(file: { path: string; data: unknown } | undefined, problems: string[]): Record<string, unknown> {
  if (!file) return {};
  const { data, path: where } = file;
  if (!isObject(data)) {
    problems.push(`${where}: expected a JSON object at the top level.`);
    return {};
  }
  // JSON has no comments: "$comment" (as in JSON Schema) holds them, any value; calfeed init writes one.
  const known = [...OPTIONS.filter((o) => !o.cliOnly).map((o) => o.key), ...FILE_ONLY_KEYS, '$schema', '$comment'];
  const found: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (key === 'token') {
      found.push(`"token" is not allowed in a config file, which tends to end up in git. Set env CALFEED_TOKEN or "tokenFile".`);
    } else if (!known.includes(key)) {
      found.push(unknownKey(key, '', known));
    } else if (key in SECTIONS) {
      checkSection(value, SECTIONS[key] as Shape, key, found);
    }
  }
  problems.push(...found.map((problem) => `${where}: ${problem}`));
  return data;
}

function checkSection(value: unknown, shape: Shape, keyPath: string, found: string[]): void {
  if (!isObject(value)) {
    found.push(`"${keyPath}" must be an object, ${got(value)}.`);
    return;
  }
  for (const [key, inner] of Object.entries(value)) {
    const check = shape[key];
    if (check === undefined) found.push(unknownKey(key, `${keyPath}.`, Object.keys(shape)));
    else if (typeof check === 'function') {
      const problem = check(inner);
      if (problem) found.push(`"${keyPath}.${key}": ${problem}.`);
    } else checkSection(inner, check, `${keyPath}.${key}`, found);
  }
}

function unknownKey(key: string, prefix: string, known: readonly string[]): string {
  const hint = nearest(key, known);
  return `unknown key "${prefix}${key}"${hint ? ` (did you mean "${prefix}${hint}"?)` : ''}.`;
}
