// URLs the portal hands back (next links, Locations) may carry the token anywhere. calfeed keeps,
// prints and keys its cache with the masked URL; the original is kept in memory only, to be sent
// back as it was to the portal's own origin.

import { MASK } from '../secrets.js';
import { redact } from './redact.js';

/** Bound on the originals kept: a hostile portal could hand out a new tokened link per page. */
const MAX_REMEMBERED = 10_000;

export class TokenUrls {
  private readonly originals = new Map<string, string>();
  constructor(private readonly token: string | undefined) {}

  /** The URL with every form of the token masked (remembering the original for wireFor()). */
  mask(url: URL): URL {
    if (!this.token) return url;
    const safe = redact(url.href, this.token);
    if (safe === url.href) return url;
    if (this.originals.size < MAX_REMEMBERED) this.originals.set(safe, url.href);
    return new URL(safe);
  }

  /** What to send to the portal's origin for a masked URL: the original, when this run saw it. */
  wireFor(url: URL): URL {
    const original = this.originals.get(url.href);
    return original === undefined ? url : new URL(original);
  }

  /** False for a masked URL this run has no original for (one read back from the cache): asking for it would ask for "***". */
  replayable(url: URL): boolean {
    return !url.href.includes(MASK) || this.originals.has(url.href);
  }
}
