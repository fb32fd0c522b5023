// Finding a secret in text in every form it comes back in: raw, percent-encoded (either case, in
// whole or in part, as URL parsers and portals leave it), form-encoded, JSON-escaped (`\/`, as PHP
// writes it), base64 and base64url (Basic auth, signed blobs). The logger and the HTTP client share
// this one matcher, so what one redacts the other does too.

export const MASK = '***';

// A build has one or two secrets: keep each one's pattern rather than rebuild it for every line.
const patterns = new Map<string, RegExp>();

/** Replaces every form of `secret` in text with '***'. */
export function redactSecret(text: string, secret: string): string {
  if (!secret) return text;
  const pattern = patterns.get(secret) ?? compile(secret);
  return text.replace(pattern, MASK);
}

/** Masks a start of the secret (3+ characters) that text ends with: a cut may fall inside the secret. */
export function maskCutTail(text: string, secret: string): string {
  if (!secret) return text;
  const pct = encodeURIComponent(secret);
  for (const form of new Set([secret, pct, lowerHex(pct), ...base64Cores(secret)])) {
    for (let k = Math.min(form.length - 1, text.length); k >= 3; k--) {
      if (text.endsWith(form.slice(0, k))) return text.slice(0, text.length - k) + MASK;
    }
  }
  return text;
}

function compile(secret: string): RegExp {
  // Character by character: itself or its UTF-8 bytes percent-encoded, so mixed and lower-case
  // encodings match too; a space may be '+', a slash '\/'.
  const chars = [...secret].map((c) => {
    const alternatives = [escapeRegExp(c), [...Buffer.from(c, 'utf8')].map(anyCaseHex).join('')];
    if (c === ' ') alternatives.push('\\+');
    if (c === '/') alternatives.push('\\\\/');
    return `(?:${alternatives.join('|')})`;
  });
  const pattern = new RegExp([chars.join(''), ...base64Cores(secret).map(escapeRegExp)].join('|'), 'g');
  patterns.set(secret, pattern);
  return pattern;
}

/**
 * The base64 and base64url characters that depend on the secret alone, at each of the three
 * alignments it can have inside a longer encoded value (the characters at its edges also carry
 * bits of its neighbours, so they are left out). Too short a core would match at random: none then.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const core = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
    if (core.length < 6) continue;
    cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...new Set(cores)];
}

function anyCaseHex(byte: number): string {
  return '%' + byte.toString(16).padStart(2, '0').replace(/[a-f]/g, (h) => `[${h}${h.toUpperCase()}]`);
}

function lowerHex(text: string): string {
  return text.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase());
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
