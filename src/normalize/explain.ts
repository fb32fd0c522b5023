// What detection makes of sample records, for `calfeed inspect`: the same resolution the build
// runs (src/normalize/resolve.ts), reported field by field, plus a `fields` block to edit.

import { unwrapRecord } from './envelope.js';
import type { Hit } from './fields.js';
import { normKey, type RawRecord } from './record.js';
import { resolveCalendar, resolveEvent, type FieldReport, type Problem } from './resolve.js';
import { describeReading, parseTime } from './time.js';
import { CALENDAR_FIELDS, EVENT_FIELDS, type Explanation, type FieldPath, type FieldsConfig, type NormalizeOptions } from './types.js';
import type { TimeUse } from './when.js';

/** Short samples keep the inspect output readable. */
function sampleOf(value: unknown): unknown {
  if (typeof value === 'string' && value.length > 120) return `${value.slice(0, 117)}...`;
  if (Array.isArray(value)) return value.map(sampleOf);
  return value;
}

type SampleField = { path: string | string[]; sample: unknown; note?: string };
type Seen = SampleField & { count: number };

/** Per field, the path found in most records (with the first sample and note for it). */
function tally(perRecord: Array<Map<string, SampleField>>, field: string): { best?: Seen; found: number } {
  const byPath = new Map<string, Seen>();
  let found = 0;
  for (const record of perRecord) {
    const use = record.get(field);
    if (!use) continue;
    found++;
    const key = JSON.stringify(use.path);
    const seen = byPath.get(key);
    if (seen) seen.count++;
    else byPath.set(key, { ...use, count: 1 });
  }
  const best = [...byPath.values()].sort((a, b) => b.count - a.count)[0];
  return best ? { best, found } : { found };
}

/** Raw fields whose values read as times, to suggest where an undetected start may be. */
function timeLikeFields(record: RawRecord, zone: string, skip: Set<string>, out: Map<string, unknown>, prefix = '', depth = 0): void {
  for (const [key, value] of Object.entries(record)) {
    if (depth === 0 && skip.has(normKey(key))) continue;
    const path = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && depth < 2) {
      timeLikeFields(value as RawRecord, zone, skip, out, path, depth + 1);
    } else if (typeof value === 'string' && !out.has(path) && ['instant', 'date'].includes(parseTime(value, zone)?.kind ?? '')) {
      out.set(path, value);
    }
  }
}

/** What detection made of sample records: fields and their raw paths, unused fields, time readings, warnings, and a `fields` block. */
export function explain(kind: 'calendar' | 'event', records: unknown[], opts: NormalizeOptions): Explanation {
  const warnings: string[] = [];
  const usable: RawRecord[] = [];
  records.forEach((record, index) => {
    try {
      usable.push(unwrapRecord(record));
    } catch (error) {
      warnings.push(`sample #${index + 1}: ${(error as Error).message}`);
    }
  });
  if (usable.length === 0) warnings.push(`no ${kind} records to inspect`);

  const { perRecord, times, problems, used, ids } = resolveSamples(kind, usable, opts);

  const fieldNames: readonly string[] = kind === 'calendar' ? CALENDAR_FIELDS : EVENT_FIELDS;
  const fields: Explanation['fields'] = [];
  const block: Record<string, FieldPath> = {};
  for (const field of fieldNames) {
    const { best, found } = tally(perRecord, field);
    const notes = [best?.note, found > 0 && found < usable.length ? `found in ${found} of ${usable.length} records` : undefined].filter(Boolean);
    fields.push({ field, path: best?.path ?? null, ...(best && { sample: best.sample }), ...(notes.length > 0 && { note: notes.join('; ') }) });
    block[field] = best ? (Array.isArray(best.path) ? [best.path[0]!, best.path[1]!] : best.path) : '';
  }

  const timeRows = timeReadings(fields, times, opts.timeZone);

  const usedNorm = new Set([...used].map(normKey));
  warnings.push(...missingWarnings(kind, usable, perRecord, usedNorm, opts));
  const counts = new Map<string, number>();
  for (const id of ids) if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1);
  const dupes = [...counts].filter(([, n]) => n > 1).map(([id]) => JSON.stringify(id));
  if (dupes.length > 0) warnings.push(`ids not unique: ${dupes.join(', ')} appear more than once (only the first of each is published); check fields.${kind}.id`);
  const distinct = [...new Set(problems.filter((p) => !['NO_TITLE', 'NO_START'].includes(p.code)).map((p) => p.message))];
  warnings.push(...distinct.slice(0, 10));

  const unused: string[] = [];
  for (const record of usable) for (const key of Object.keys(record)) if (!usedNorm.has(normKey(key)) && !unused.includes(key)) unused.push(key);

  const fieldsBlock: FieldsConfig = kind === 'calendar' ? { calendar: block } : { event: block };
  return { fields, unused, times: timeRows, warnings, fieldsBlock };
}

/** Each sample record resolved: its fields by name, its time readings, problems and id, and every raw key used. */
function resolveSamples(kind: 'calendar' | 'event', usable: RawRecord[], opts: NormalizeOptions) {
  const perRecord: Array<Map<string, SampleField>> = [];
  const times: TimeUse[][] = [];
  const problems: Problem[] = [];
  const used = new Set<string>();
  const ids: Array<string | undefined> = [];
  for (const record of usable) {
    const resolved = kind === 'calendar' ? resolveCalendar(record, opts) : resolveEvent(record, opts, opts.timeZone);
    const map = new Map<string, SampleField>();
    const add = (field: string, hit: Hit | undefined) => {
      if (!hit) return;
      map.set(field, { path: hit.path, sample: sampleOf(hit.value), ...(hit.note !== undefined && { note: hit.note }) });
      hit.keys.forEach((k) => used.add(k));
    };
    resolved.reports.forEach((r: FieldReport) => add(r.field, r.hit));
    if ('times' in resolved) {
      times.push(resolved.times);
      for (const use of resolved.times) {
        map.set(use.field, { path: use.path, sample: sampleOf(use.sample), note: use.reading });
        use.keys.forEach((k) => used.add(k));
      }
    }
    perRecord.push(map);
    problems.push(...resolved.problems);
    ids.push(resolved.id);
  }
  return { perRecord, times, problems, used, ids };
}

/** Time rows: each distinct way start/end were read (the main path first), then the updated/created stamps. */
function timeReadings(fields: Explanation['fields'], times: TimeUse[][], zone: string): Explanation['times'] {
  const timeRows: Explanation['times'] = [];
  for (const field of ['start', 'end'] as const) {
    const main = JSON.stringify(fields.find((f) => f.field === field)?.path);
    const uses = times.flat().filter((t) => t.field === field);
    const seen = new Set<string>();
    for (const use of [...uses.filter((t) => JSON.stringify(t.path) === main), ...uses]) {
      const key = JSON.stringify([use.path, use.reading]);
      if (seen.has(key)) continue;
      seen.add(key);
      timeRows.push({ field, path: use.path, reading: use.reading, sample: sampleOf(use.sample) });
    }
  }
  for (const field of ['updated', 'created']) {
    const row = fields.find((f) => f.field === field);
    const parsed = row?.path ? parseTime(row.sample, zone) : undefined;
    if (row?.path && parsed) timeRows.push({ field, path: row.path, reading: describeReading(parsed, zone), sample: row.sample });
  }
  return timeRows;
}

function missingWarnings(
  kind: 'calendar' | 'event',
  usable: RawRecord[],
  perRecord: Array<Map<string, unknown>>,
  used: Set<string>,
  opts: NormalizeOptions,
): string[] {
  if (usable.length === 0) return [];
  const out: string[] = [];
  const missing = (field: string) => perRecord.filter((m) => !m.has(field)).length;
  const label = (n: number) => (n === usable.length ? 'in any record' : `in ${n} of ${usable.length} records`);
  const required = kind === 'calendar' ? ['id', 'title'] : ['id', 'title', 'start'];
  for (const field of required) {
    const n = missing(field);
    if (n === 0) continue;
    let hint = `set fields.${kind}.${field} in calfeed.config.json to its dotted path`;
    if (field === 'start') {
      const found = new Map<string, unknown>();
      for (const record of usable) timeLikeFields(record, opts.timeZone, used, found);
      const suggestions = [...found].slice(0, 6).map(([path, value]) => `${path} (${JSON.stringify(value)})`);
      if (suggestions.length > 0) hint += `; unused fields that look like times: ${suggestions.join(', ')}`;
      hint += ' (events without a start are skipped)';
    }
    if (field === 'id') hint += ` (${kind}s without an id are skipped)`;
    if (field === 'title') hint += ' (untitled records are published as "(untitled)")';
    out.push(`no ${field} found ${label(n)}: ${hint}`);
  }
  return out;
}
