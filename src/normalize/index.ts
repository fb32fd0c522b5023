// The normalizer's public API: raw portal JSON (already parsed) -> the model in src/model.ts.
// Pure code: no clock, no network, no disk.

export { findList, replaceList, unwrapRecord } from './envelope.js';
export { explain } from './explain.js';
export { normalizeCalendars, normalizeEvent, rawId } from './normalize.js';
export type { Explanation, FieldPath, FieldsConfig, ListKind, NormalizeOptions, Warning } from './types.js';
