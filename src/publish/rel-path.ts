// The last line of defence against writing outside the output folder. src/paths.ts already makes
// ids safe; this check makes sure no caller (or future bug) can hand the writer anything else.

import { CalfeedError } from '../errors.js';

// Control characters are legal in POSIX names but break CDNs, shells and manifests.
// eslint-disable-next-line no-control-regex
const UNSAFE_CHAR = /[\u0000-\u001f\u007f\\:]/;
const MAX_PATH = 1000;

/** Throws unless relPath is a relative POSIX path of safe, non-empty segments (no '.', '..', '\\', NUL). */
export function assertSafeRelPath(relPath: string): void {
  const problem = pathProblem(relPath);
  if (problem !== undefined) {
    throw new CalfeedError(
      'BUILD',
      `Refusing to write output path ${JSON.stringify(relPath.slice(0, 200))}: ${problem}. ` +
        'Output paths must come from src/paths.ts; this is a bug in calfeed, please report it.',
    );
  }
}

/** Whether relPath passes assertSafeRelPath (for paths read back from calfeed's own files). */
export function isSafeRelPath(relPath: string): boolean {
  return pathProblem(relPath) === undefined;
}

function pathProblem(relPath: string): string | undefined {
  if (typeof relPath !== 'string' || relPath.length === 0) return 'it is empty';
  if (relPath.length > MAX_PATH) return `it is longer than ${MAX_PATH} characters`;
  if (relPath.startsWith('/')) return 'it is absolute';
  if (UNSAFE_CHAR.test(relPath)) return 'it contains a backslash, colon, NUL or control character';
  // Segment by segment without split(): every output file passes here.
  for (let start = 0; start <= relPath.length; ) {
    let end = relPath.indexOf('/', start);
    if (end < 0) end = relPath.length;
    const length = end - start;
    if (length === 0) return 'it has an empty segment';
    if (length <= 2 && relPath.charCodeAt(start) === 46 && relPath.charCodeAt(end - 1) === 46) return `it has a '${relPath.slice(start, end)}' segment`;
    if (length > 255) return 'a segment is longer than 255 characters';
    start = end + 1;
  }
  return undefined;
}
