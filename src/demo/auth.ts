// Who is asking: the token, sent the way the portal is configured to expect it, names an organization.

import type { IncomingMessage } from 'node:http';
import type { Organization } from './routes.js';

export type DemoAuth = { mode: 'header'; header: string; scheme: string } | { mode: 'query'; param: string };

/** Fixed demo tokens: distinctive strings, so tests can search output and logs for them. */
export const DEMO_TOKENS = { university: 'demo-university-token-5f3a9c0e', faculty: 'demo-faculty-token-81be2d47' } as const;

const ORGANIZATIONS: Record<string, Organization> = { [DEMO_TOKENS.university]: 'university', [DEMO_TOKENS.faculty]: 'faculty' };

/** The raw credential as sent (header value or query parameter), or undefined. */
export function rawCredential(auth: DemoAuth, req: IncomingMessage, query: URLSearchParams): string | undefined {
  if (auth.mode === 'query') return query.get(auth.param) ?? undefined;
  const value = req.headers[auth.header.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** The organization a raw credential belongs to, or undefined when missing or wrong. */
export function organizationOf(auth: DemoAuth, raw: string | undefined): Organization | undefined {
  if (raw === undefined) return undefined;
  if (auth.mode === 'header' && auth.scheme !== '') {
    const [scheme, token, ...rest] = raw.trim().split(/\s+/);
    if (rest.length > 0 || scheme?.toLowerCase() !== auth.scheme.toLowerCase() || token === undefined) return undefined;
    return ORGANIZATIONS[token];
  }
  return ORGANIZATIONS[raw.trim()];
}

/** The 401 message: says how the token must be sent. */
export function unauthorizedMessage(auth: DemoAuth): string {
  const how =
    auth.mode === 'query' ? `the '${auth.param}' query parameter` : `the ${auth.header} header${auth.scheme ? ` as '${auth.scheme} <token>'` : ''}`;
  return `A valid token is required in ${how}.`;
}
