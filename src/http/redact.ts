// The token must never reach a log, an error message or a file. Everything the client says about a
// request goes through here, including bodies: a portal may echo the token back in an error page.

import { escapeControl } from '../safe-text.js';
import { maskCutTail, redactSecret } from '../secrets.js';

/** Replaces the token, in every form src/secrets.ts knows (encoded, base64...), with '***'. */
export function redact(text: string, token: string | undefined): string {
  return token ? redactSecret(text, token) : text;
}

/** The first bytes of a body for a message: decoded leniently, token-free, quoted and escaped. */
export function bodySnippet(body: Buffer, token: string | undefined, maxBytes = 200): string {
  // Redact before cutting, so the cut never falls inside the token; an error body is itself cut
  // (exchange.ts), so a token it ends inside of is masked too.
  const whole = body.toString('utf8').replace(/\uFFFD+$/, '');
  const safe = Buffer.from(token ? maskCutTail(redact(whole, token), token) : whole, 'utf8');
  const head = safe.subarray(0, maxBytes).toString('utf8').replace(/\uFFFD+$/, '');
  const more = safe.length > maxBytes ? '…' : '';
  // JSON.stringify escapes quotes, newlines and C0 controls, so the snippet stays one log line;
  // escapeControl adds the C1 controls (a raw CSI) and line separators it leaves.
  return escapeControl(JSON.stringify(head)) + more;
}
