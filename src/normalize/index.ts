// The normalizer's public API: raw portal JSON (already parsed) -> the model in src/model.ts.
// Pure code: no clock, no network, no disk. The crawler uses findList/replaceList/unwrapRecord/rawId,
// the build uses normalizeCalendars/eventSlugs/normalizeEvent, `calfeed inspect` uses explain.

export { findList, replaceList, unwrapRecord } from './envelope.js';
export { explain } from './explain.js';
export { eventSlugs, normalizeCalendars, normalizeEvent, rawId } from './normalize.js';
export { mergeRecords } from './record.js';
export { isValidZone } from './time.js';
export type {
  CalendarField,
  EventField,
  Explanation,
  FieldPath,
  FieldsConfig,
  ListKind,
  NormalizeOptions,
  Warning,
} from './types.js';
