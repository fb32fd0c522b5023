import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadRendered, saveRendered, type RenderedGroup } from '../../src/state/rendered.js';

const HASH = 'ab'.repeat(32);

describe('record of rendered calendar files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'calfeed-rendered-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes one group a line and reads it back as it was', async () => {
    const state = new Map<string, RenderedGroup>([
      ['calendar science', { input: 'k1', until: Date.UTC(2026, 10, 26, 22), files: { 'calendars/science/rss.xml': HASH, 'calendars/science/index.html': 'cd'.repeat(32) } }],
      // Ids are the portal's: any text, quotes and line separators included.
      ['calendar "x"\u2028', { input: 'k2', until: null, files: {} }],
    ]);
    await saveRendered(dir, state);
    const text = await readFile(path.join(dir, 'rendered.json'), 'utf8');
    expect(text.split('\n')).toHaveLength(2 + 3);
    const loaded = await loadRendered(dir);
    expect(loaded.note).toBeUndefined();
    expect([...loaded.state].map(([k, v]) => [k, v.input, { ...v.files }])).toEqual([...state].map(([k, v]) => [k, v.input, v.files]));
  });

  it('reads a missing, truncated, foreign or malformed file as no record, and says so', async () => {
    const file = path.join(dir, 'rendered.json');
    expect(await loadRendered(dir)).toEqual({ state: new Map(), note: expect.stringMatching(/no record/), missing: true });
    const bad = [
      '{"version":2,"groups":{\n"index":{"input":"k","until":null,"files":{}}',
      '{"version":1,"groups":{}}',
      '{"version":2,"groups":[]}',
      `{"version":2,"groups":{"index":{"input":7,"until":null,"files":{}}}}`,
      `{"version":2,"groups":{"index":{"input":"k","files":{}}}}`,
      `{"version":2,"groups":{"index":{"input":"k","until":"soon","files":{}}}}`,
      `{"version":2,"groups":{"index":{"input":"k","until":null,"files":{"index.html":"${HASH.toUpperCase()}"}}}}`,
      `{"version":2,"groups":{"index":{"input":"k","until":null,"files":["index.html"]}}}`,
    ];
    for (const text of bad) {
      await writeFile(file, text);
      expect(await loadRendered(dir), text).toEqual({ state: new Map(), note: expect.stringMatching(/corrupt/) });
    }
  });
});
