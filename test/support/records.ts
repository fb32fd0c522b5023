// Reading HistoryRecords back in tests; a build reads them by id only (idOf, recordAt).

import type { EventRecord, HistoryRecords } from '../../src/state/records.js';

/** A fresh copy of the record under `key`; undefined when absent. */
export function recordOf(records: HistoryRecords, key: string): EventRecord | undefined {
  const id = records.idOf(key);
  return id < 0 ? undefined : records.recordAt(id);
}

/** Every [key, record], in insertion order. */
export function recordEntries(records: HistoryRecords): Array<[string, EventRecord]> {
  return Array.from({ length: records.size }, (_, id): [string, EventRecord] => [records.keyAt(id), records.recordAt(id)]);
}
