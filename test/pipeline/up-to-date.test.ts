// checkUpToDate's judgements that need no portal: the record alone rules the build out.
import { describe, expect, it } from 'vitest';
import { checkUpToDate } from '../../src/pipeline/up-to-date.js';
import type { PortalClient } from '../../src/http/index.js';
import { MAX_RECORDED_WARNINGS, type LastBuild } from '../../src/state/last-build.js';

const record = (warnings: string[]): LastBuild => ({
  inputs: 'same',
  builtAt: 1000,
  stableUntil: null,
  detailsDueAt: null,
  failedDetails: [],
  manifest: 'sha',
  lists: [],
  counts: { calendars: 1, events: 1, unreadable: 0, eventFiles: 2, calendarFiles: 7, files: 12 },
  warnings,
  siteWarnings: [],
});
// Never asked: each case is decided before any request.
const client = new Proxy({}, { get: () => { throw new Error('no request expected'); } }) as PortalClient;

describe('checkUpToDate', () => {
  it('regression: more warnings than a rebuild repeats means a build (a rebuild gave only the first 200)', async () => {
    const many = Array.from({ length: MAX_RECORDED_WARNINGS + 1 }, (_, i) => `warning ${i}`);
    const result = await checkUpToDate({ record: record(many), inputs: 'same', now: 2000, outDir: '/nonexistent', client });
    expect(result).toEqual({ upToDate: false, why: `the last build gave more than ${MAX_RECORDED_WARNINGS} warnings, more than a rebuild repeats` });
  });

  it('other settings, or a clock earlier than the last build, mean a build', async () => {
    expect(await checkUpToDate({ record: record([]), inputs: 'other', now: 2000, outDir: '/nonexistent', client })).toMatchObject({ upToDate: false });
    expect(await checkUpToDate({ record: record([]), inputs: 'same', now: 999, outDir: '/nonexistent', client })).toMatchObject({ upToDate: false });
  });
});
