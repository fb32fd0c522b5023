import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HistoryTracker, emptyHistory, type EventRecord } from '../../src/state/history.js';
import { loadHistory, saveHistory } from '../../src/state/store.js';
import { sampleEvent } from '../fixtures/sample.js';

function historyOf(count: number) {
  const tracker = new HistoryTracker(emptyHistory(), Date.UTC(2026, 2, 1), 30 * 86_400_000);
  const live = [];
  for (let i = 0; i < count; i++) {
    const { event } = tracker.observe(sampleEvent({ id: `e${i}`, slug: `e${i}`, title: `Talk ${i} "quoted" \u2028 Ąžuolas` }));
    live.push({ event, rendered: i === 1 ? 'fingerprint-1' : undefined });
  }
  tracker.finish();
  const state = emptyHistory();
  for (const [key, json] of tracker.records(live)) state.events.set(JSON.parse(key) as string, JSON.parse(json) as EventRecord);
  return state;
}

describe('history store', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'calfeed-history-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes one event a line, still one JSON document, and reads it back as it was', async () => {
    const state = historyOf(3);
    await saveHistory(dir, state);
    const text = await readFile(path.join(dir, 'history.json'), 'utf8');
    expect(text.split('\n')).toHaveLength(3 + 3);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(state)));
    const loaded = await loadHistory(dir);
    expect(loaded.note).toBeUndefined();
    expect(JSON.parse(JSON.stringify(loaded.state))).toEqual(JSON.parse(JSON.stringify(state)));
    expect(loaded.state.events.get('["science","e1"]')).toMatchObject({ rendered: 'fingerprint-1', title: 'Talk 1 "quoted" \u2028 Ąžuolas' });
  });

  it('still reads a history.json written whole on one line (earlier calfeed)', async () => {
    const state = historyOf(2);
    await writeFile(path.join(dir, 'history.json'), JSON.stringify(state));
    const loaded = await loadHistory(dir);
    expect(loaded.note).toBeUndefined();
    expect([...loaded.state.events.keys()]).toEqual([...state.events.keys()]);
  });

  it('starts afresh, saying why, when a line is damaged', async () => {
    await saveHistory(dir, historyOf(3));
    const file = path.join(dir, 'history.json');
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines[2] = lines[2]!.slice(0, 20);
    await writeFile(file, lines.join('\n'));
    const loaded = await loadHistory(dir);
    expect(loaded.state).toEqual(emptyHistory());
    expect(loaded.note).toMatch(/corrupt/);
  });

  it('ignores a history from another version', async () => {
    await writeFile(path.join(dir, 'history.json'), '{"version":999,"events":{\n}}\n');
    const loaded = await loadHistory(dir);
    expect(loaded.state).toEqual(emptyHistory());
    expect(loaded.note).toMatch(/another version/);
  });
});
