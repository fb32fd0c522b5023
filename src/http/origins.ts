// Which origins a request may go to: the portal's own, with the token; another only when the user
// named its host (--allow-redirect-host), never with the token. Followed blindly, a redirect
// elsewhere would publish another site's answer as the portal's.

import { CalfeedError, ConfigError } from '../errors.js';
import { HttpError, requestLabel, statusLine } from './errors.js';

export class OriginPolicy {
  /** Lower-case hosts, "name" (any port) or "name:port". */
  private readonly allowed: readonly string[];

  constructor(
    private readonly portal: URL,
    allowedHosts: readonly string[] = [],
  ) {
    this.allowed = allowedHosts.map((h) => h.toLowerCase());
  }

  /** Whether the URL is on the portal's origin (and so may carry the token). */
  isPortal(url: URL): boolean {
    return url.origin === this.portal.origin;
  }

  /** Throws unless `to` is on the portal's origin or an allowed host (an HttpError for a redirect). */
  check(to: URL, from: URL, status?: number): void {
    if (this.isPortal(to) || this.isAllowed(to)) return;
    const where = `another origin, ${to.origin} (the portal is ${this.portal.origin})`;
    const remedy =
      `calfeed only follows ${status === undefined ? 'links' : 'redirects'} within the portal's origin, so that another site's answer is never ` +
      `published as the portal's. If ${to.host} is expected, allow it with --allow-redirect-host ${to.host} (it never gets the token).`;
    if (status === undefined) {
      throw new CalfeedError('RESPONSE', `${requestLabel(to.href)}: the portal links to ${where}. ${remedy}`);
    }
    throw new HttpError(from.href, status, '', { message: `${requestLabel(from.href)}: ${statusLine(status)}, a redirect to ${where}. ${remedy}` });
  }

  private isAllowed(url: URL): boolean {
    const name = url.hostname.toLowerCase();
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return this.allowed.some((h) => h === name || h === `${name}:${port}`);
  }
}

/** The portal's base URL, checked, with the trailing slash that relative resolution needs. */
export function portalBase(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ConfigError(`--base-url "${baseUrl}" is not a URL. Give the portal's API address, e.g. https://portal.example.edu/api.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`--base-url "${baseUrl}" must start with http:// or https://.`);
  }
  // A trailing slash makes relative resolution keep the path prefix (/api + events -> /api/events).
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  url.search = '';
  url.hash = '';
  return url;
}
