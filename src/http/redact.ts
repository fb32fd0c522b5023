// The token must never reach a log, an error message or a file. Everything the client says about a
// request goes through here, including bodies: a portal may echo the token back in an error page.

const MASK = '***';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Replaces the token (raw, URL-encoded, and form-encoded) in text with '***'. */
export function redact(text: string, token: string | undefined): string {
  if (!token) return text;
  const forms = new Set([token, encodeURIComponent(token), new URLSearchParams({ t: token }).toString().slice(2)]);
  // Longest first, so a form that contains another is replaced whole.
  const pattern = [...forms].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|');
  return text.replace(new RegExp(pattern, 'g'), MASK);
}

/** The first bytes of a body for a message: decoded leniently, token-free, quoted and escaped. */
export function bodySnippet(body: Buffer, token: string | undefined, maxBytes = 200): string {
  const head = body.subarray(0, maxBytes).toString('utf8').replace(/\uFFFD+$/, '');
  const more = body.length > maxBytes ? '…' : '';
  // JSON.stringify escapes quotes, newlines and control characters, so the snippet stays one log line.
  return JSON.stringify(redact(head, token)) + more;
}
