// Reading a `_headers` file the way Netlify and Cloudflare Pages do, so `calfeed serve` shows the
// headers the CDN will send: `*` matches anything (slashes too), `:name` one segment; every matching
// rule applies, values of a header set twice joined with ", "; Cloudflare's `! Name` removes one.

export interface HeadersRule {
  pattern: string;
  regex: RegExp;
  set: Array<[name: string, value: string]>;
  detach: string[];
}

function patternRegex(pattern: string): RegExp {
  // An absolute URL pattern (Cloudflare) matches on its path; host and scheme are the CDN's business.
  const path = pattern.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '') || '/';
  let source = '';
  for (const part of path.split(/(\*|:[A-Za-z_][A-Za-z0-9_]*)/)) {
    if (part === '*') source += '.*';
    else if (part.startsWith(':') && part.length > 1) source += '[^/]+';
    else source += part.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** Parse the text of a `_headers` file into rules (malformed lines are ignored, as the hosts do). */
export function parseHeadersFile(text: string): HeadersRule[] {
  const rules: HeadersRule[] = [];
  let current: HeadersRule | undefined;
  for (const raw of text.split(/\r?\n/)) {
    if (raw.trim() === '' || raw.trim().startsWith('#')) continue;
    if (!/^\s/.test(raw)) {
      const pattern = raw.trim();
      current = { pattern, regex: patternRegex(pattern), set: [], detach: [] };
      rules.push(current);
      continue;
    }
    if (!current) continue;
    const line = raw.trim();
    if (line.startsWith('!')) {
      current.detach.push(line.slice(1).trim().toLowerCase());
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    // A header name is an HTTP token; anything else would make Node throw while responding.
    if (/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) current.set.push([name, value]);
  }
  return rules;
}

/**
 * Headers for a request path (URL-decoded, starting with '/'), as a map from lower-case name to
 * [display name, value]. Names in `removed` were detached with `!` and must also drop defaults.
 */
export function headersFor(rules: HeadersRule[], urlPath: string): { headers: Map<string, [string, string]>; removed: Set<string> } {
  const headers = new Map<string, [string, string]>();
  const removed = new Set<string>();
  for (const rule of rules) {
    if (!rule.regex.test(urlPath)) continue;
    for (const [name, value] of rule.set) {
      const key = name.toLowerCase();
      const prev = headers.get(key);
      headers.set(key, prev ? [prev[0], `${prev[1]}, ${value}`] : [name, value]);
      removed.delete(key);
    }
    for (const key of rule.detach) {
      headers.delete(key);
      removed.add(key);
    }
  }
  return { headers, removed };
}
