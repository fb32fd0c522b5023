// Turning a request URL into a path inside the served folder, refusing anything that could leave it.
// Node hands the raw URL over unnormalized ("/../", "%2e%2e", encoded slashes, NUL); no real link has these.

export type RequestPath =
  | {
      ok: true;
      /** Decoded path segments below the folder (no empty, '.' or '..' segments). */
      segments: string[];
      /** The decoded URL path, starting with '/', for _headers matching. */
      urlPath: string;
      /** Whether the URL path ends with '/' (a folder URL). */
      folder: boolean;
    }
  | { ok: false; reason: string };

/** Parse and check a request target such as `/calendars/x/index.html?y=1`. */
export function parseRequestPath(target: string): RequestPath {
  const raw = target.split(/[?#]/, 1)[0] ?? '';
  if (!raw.startsWith('/')) return { ok: false, reason: 'the path must start with /' };
  // Encoded separators and NUL would turn one URL segment into several file-system segments.
  if (/%(2f|5c|00)/i.test(raw) || raw.includes('\\')) return { ok: false, reason: 'encoded slash, backslash or NUL' };
  const segments: string[] = [];
  for (const part of raw.split('/').slice(1)) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(part);
    } catch {
      return { ok: false, reason: 'malformed percent-encoding' };
    }
    if (decoded === '.' || decoded === '..') return { ok: false, reason: 'dot segment' };
    if (/[\u0000/\\]/.test(decoded)) return { ok: false, reason: 'separator in a segment' };
    if (decoded !== '') segments.push(decoded);
  }
  const folder = raw.endsWith('/');
  return { ok: true, segments, urlPath: '/' + segments.join('/') + (folder && segments.length > 0 ? '/' : ''), folder };
}
