// Issue 8 acceptance: `calfeed inspect` against each demo dialect over real HTTP, as text and --json.
// What it must say: the list envelope, each model field with the raw path and a sample, unused raw
// fields, how times are read, warnings, and a `fields` block ready to paste into calfeed.config.json.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPortal, type DemoDialect, type DemoPortal } from '../../src/demo/server.js';
import type { Inspection } from '../../src/inspect/inspect.js';
import { runCli, type CliResult } from '../support/cli.js';

const NOW = Date.now();
const DIALECTS: DemoDialect[] = ['default', 'envelope', 'multilingual', 'custom'];

let work: string;
const portals = new Map<DemoDialect, DemoPortal>();
const text = new Map<DemoDialect, CliResult>();
const json = new Map<DemoDialect, Inspection>();
const jsonCode = new Map<DemoDialect, number | null>();

function inspect(dialect: DemoDialect, extra: string[] = []): Promise<CliResult> {
  const portal = portals.get(dialect)!;
  return runCli(['inspect', '--base-url', portal.url, ...extra], { env: { CALFEED_TOKEN: portal.tokens.university }, cwd: work });
}

type Expl = Inspection['calendars']['explanation'];
const pathOf = (x: Expl | undefined, field: string): unknown => x?.fields.find((f) => f.field === field)?.path;
const rowOf = (x: Expl | undefined, field: string) => x?.fields.find((f) => f.field === field);

/** The `fields` block printed at the end of the text report, parsed as a user would paste it. */
function printedBlock(stdout: string): { fields: { calendar: Record<string, unknown>; event: Record<string, unknown> } } {
  const start = stdout.indexOf('\n', stdout.indexOf('Paste and edit this block in calfeed.config.json'));
  expect(start).toBeGreaterThan(0);
  return JSON.parse(stdout.slice(start + 1));
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'calfeed-inspect-'));
  for (const dialect of DIALECTS) portals.set(dialect, await startDemoPortal({ now: NOW, dialect }));
  // No --time-zone: each demo calendar names its zone, and inspect must read times in it, as the build does.
  await Promise.all(
    DIALECTS.map(async (dialect) => {
      const [t, j] = await Promise.all([inspect(dialect), inspect(dialect, ['--json'])]);
      // The custom dialect's start is found in no record: inspect fails (checked below).
      if (dialect !== 'custom') {
        expect(t.code, t.stderr).toBe(0);
        expect(j.code, j.stderr).toBe(0);
      }
      text.set(dialect, t);
      json.set(dialect, JSON.parse(j.stdout) as Inspection);
      jsonCode.set(dialect, j.code);
    }),
  );
});

afterAll(async () => {
  for (const portal of portals.values()) await portal.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('calfeed inspect', () => {
  it('prints the same findings as text and as --json, and never the token', () => {
    for (const dialect of DIALECTS) {
      const t = text.get(dialect)!;
      const j = json.get(dialect)!;
      expect(t.stdout + t.stderr).not.toContain(portals.get(dialect)!.tokens.university);
      expect(t.stdout).toContain(`GET ${j.calendars.url}`);
      expect(t.stdout).toContain(`GET ${j.events!.url}`);
      expect(t.stdout).toContain(`GET ${j.details!.url}`);
      expect(printedBlock(t.stdout)).toEqual({ fields: j.fields });
      for (const w of [...j.calendars.explanation.warnings, ...j.events!.explanation.warnings]) expect(t.stdout).toContain(`warning: ${w}`);
    }
  });

  it('default: bare arrays, camelCase paths with samples, offsets read per record, details-only fields unused', () => {
    const j = json.get('default')!;
    expect(j.calendars).toMatchObject({ envelope: 'bare array', count: 5 });
    expect(j.events).toMatchObject({ envelope: 'bare array', calendarId: 'science', count: 13 });
    expect(j.events!.nextPage).toBeUndefined();
    expect(rowOf(j.calendars.explanation, 'id')).toMatchObject({ path: 'eventCalendarId', sample: 'science' });
    const ev = j.events!.explanation;
    expect(rowOf(ev, 'id')).toMatchObject({ path: 'eventId', sample: 1001 });
    expect(rowOf(ev, 'title')).toMatchObject({ path: 'title', sample: 'Open Lecture: Quantum Computing for Everyone' });
    expect(pathOf(ev, 'start')).toBe('startDateTime');
    expect(pathOf(ev, 'updated')).toBe('updatedAt');
    // One sample event has no location: the report says how many records carry it.
    expect(rowOf(ev, 'location')).toMatchObject({ path: 'location', note: 'found in 12 of 13 records' });
    // Timed events with an offset, all-day events from a date field: both readings are listed.
    const starts = ev.times.filter((t) => t.field === 'start');
    expect(starts.some((t) => t.path === 'startDateTime' && /^ISO 8601 with offset \+0[23]:00$/.test(t.reading))).toBe(true);
    expect(starts.some((t) => t.path === 'startDate' && /all-day/.test(t.reading))).toBe(true);
    expect(ev.times.find((t) => t.field === 'updated')?.reading).toBe('ISO 8601 in UTC (Z)');
    expect(ev.warnings).toEqual([]);
    const details = j.details!.explanation;
    expect(pathOf(details, 'description')).toBe('description');
    expect(pathOf(details, 'categories')).toBe('categories');
    expect(details.unused).toEqual(expect.arrayContaining(['capacity', 'registrationRequired', 'language']));
    const t = text.get('default')!.stdout;
    expect(t).toMatch(/^ {2}bare array, 13 events$/m);
    expect(t).toMatch(/^ {4}start +<- startDateTime +"\d{4}-\d\d-\d\dT17:00:00\+0[23]:00"/m);
    expect(t).toMatch(/^ {4}start +"\d{4}-\d\d-\d\d" read as date only: an all-day event$/m);
    expect(t).toMatch(/^ {2}unused raw fields: .*capacity, registrationRequired, language/m);
  });

  it('envelope: the "data" envelope, snake_case and venue paths, epoch seconds, and the paging it will follow', () => {
    const j = json.get('envelope')!;
    expect(j.calendars).toMatchObject({ envelope: 'object, list under "data"', count: 5 });
    expect(j.events).toMatchObject({ envelope: 'object, list under "data"', count: 5 });
    expect(j.events!.nextPage).toBe(`${portals.get('envelope')!.url}/event-calendar/science/events?page=2`);
    expect(pathOf(j.calendars.explanation, 'id')).toBe('event_calendar_id');
    expect(pathOf(j.calendars.explanation, 'timeZone')).toBe('time_zone');
    const ev = j.events!.explanation;
    expect(pathOf(ev, 'id')).toBe('event_id');
    expect(pathOf(ev, 'start')).toBe('start_date_time');
    expect(pathOf(ev, 'allDay')).toBe('is_all_day');
    expect(pathOf(ev, 'cancelled')).toBe('is_cancelled');
    expect(rowOf(ev, 'location')).toMatchObject({ path: 'venue', sample: { name: 'Science Auditorium A1', address: 'Saulėtekio al. 9, 10222 Vilnius' } });
    expect(ev.times.find((t) => t.field === 'start')).toMatchObject({ path: 'start_date_time', reading: 'ISO 8601 in UTC (Z)' });
    expect(ev.times.find((t) => t.field === 'updated')).toMatchObject({ path: 'updated_at', reading: 'epoch seconds' });
    const details = j.details!.explanation;
    expect(pathOf(details, 'categories')).toBe('tags');
    expect(pathOf(details, 'organizer')).toBe('contact');
    expect(details.unused).toEqual(['capacity', 'registration_required', 'language']);
    expect(j.fields).toMatchObject({ event: { id: 'event_id', start: 'start_date_time', location: 'venue', categories: 'tags', status: '' } });
    expect(text.get('envelope')!.stdout).toMatch(/object, list under "data", 5 events on the first page; paged: next page \S+\?page=2 \(the build follows every page\)/);
  });

  it('multilingual: language maps and siblings, a split date + time start read as wall time in the calendar zone', () => {
    const j = json.get('multilingual')!;
    expect(j.calendars.envelope).toBe('object, list under "eventCalendars"');
    expect(j.events!.envelope).toBe('object, list under "items"');
    expect(rowOf(j.calendars.explanation, 'title')).toMatchObject({ note: 'language siblings: titleEn, titleLt', sample: { en: 'Faculty of Science', lt: 'Gamtos mokslų fakultetas' } });
    const ev = j.events!.explanation;
    expect(rowOf(ev, 'title')?.sample).toEqual({ en: 'Open Lecture: Quantum Computing for Everyone', lt: 'Atvira paskaita: kvantinė kompiuterija visiems' });
    expect(pathOf(ev, 'start')).toEqual(['startDate', 'startTime']);
    expect(pathOf(ev, 'end')).toEqual(['endDate', 'endTime']);
    expect(ev.times.find((t) => t.field === 'start')?.reading).toBe('date + time of day: wall time in Europe/Vilnius');
    expect(j.fields).toMatchObject({ event: { start: ['startDate', 'startTime'], end: ['endDate', 'endTime'], organizer: 'organiser', status: '' } });
    expect(text.get('multilingual')!.stdout).toMatch(/^ {4}start +<- startDate \+ startTime +\["\d{4}-\d\d-\d\d","17:00"\] +\(date \+ time of day: wall time in Europe\/Vilnius\)$/m);
  });

  it('custom: warns that no start was found, points at kickoff.at, and prints a block with an empty start', () => {
    const j = json.get('custom')!;
    const ev = j.events!.explanation;
    expect(pathOf(ev, 'start')).toBeNull();
    expect(ev.unused).toContain('kickoff');
    const warning = ev.warnings.find((w) => w.startsWith('no start found in any record'));
    expect(warning).toMatch(/set fields\.event\.start in calfeed\.config\.json/);
    expect(warning).toMatch(/kickoff\.at \("\d{4}-\d\d-\d\dT17:00:00\+0[23]:00"\)/);
    expect(warning).toMatch(/events without a start are skipped/);
    expect(j.details!.explanation.warnings.some((w) => w.startsWith('no start found'))).toBe(true);
    expect(j.fields).toMatchObject({ event: { start: '', id: 'eventId', title: 'title' } });
    const t = text.get('custom')!.stdout;
    expect(t).toMatch(/^ {4}start +<- \(not found\)/m);
    expect(t).toMatch(/^ {2}warning: no start found in any record: .*kickoff\.at/m);
    expect(printedBlock(t).fields.event.start).toBe('');
    // The default dialect of the same data has no such warning: the warning is about the data, not noise.
    expect(json.get('default')!.events!.explanation.warnings).toEqual([]);
  });

  // Issue 20: inspect exited 0 and --json had no `ok` when no record had a start (every event would be skipped).
  it('exits 1 and says ok: false when a required field is found in no record', () => {
    const j = json.get('custom')!;
    expect(j).toMatchObject({ ok: false, missing: ['fields.event.start'] });
    const t = text.get('custom')!;
    expect([t.code, jsonCode.get('custom')]).toEqual([1, 1]);
    expect(t.stderr).toMatch(/^error: no start found in any event record: the build would skip every event\. Map fields\.event\.start in calfeed\.config\.json, then run calfeed inspect again\.$/m);
    // The report is still printed in full: it is how to find the field to map.
    expect(t.stdout).toMatch(/Paste and edit this block/);
    for (const dialect of ['default', 'envelope', 'multilingual'] as const) {
      expect(json.get(dialect), dialect).toMatchObject({ ok: true, missing: [] });
      expect(text.get(dialect)!.stderr, dialect).not.toMatch(/^error:/m);
    }
  });

  it('a fields mapping from the config file is what inspect reports next time', async () => {
    const portal = portals.get('custom')!;
    const dir = await mkdtemp(join(work, 'mapped-'));
    await writeFile(join(dir, 'calfeed.config.json'), JSON.stringify({ fields: { event: { start: 'kickoff.at' } } }));
    const r = await runCli(['inspect', '--base-url', portal.url, '--json'], { env: { CALFEED_TOKEN: portal.tokens.university }, cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as Inspection;
    expect(j.ok).toBe(true);
    expect(pathOf(j.events!.explanation, 'start')).toBe('kickoff.at');
    expect(j.events!.explanation.warnings).toEqual([]);
    expect(j.events!.explanation.unused).not.toContain('kickoff');
  });

  it('without --base-url, inspects the embedded demo portal and says so on stderr', async () => {
    const r = await runCli(['inspect'], { cwd: work });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/No --base-url configured: inspecting the embedded demo portal at http:\/\/127\.0\.0\.1:\d+/);
    expect(r.stdout).toMatch(/^Inspecting demo portal http:\/\/127\.0\.0\.1:\d+\/api$/m);
    expect(r.stdout).toMatch(/bare array, \d+ events/);
  });
});
