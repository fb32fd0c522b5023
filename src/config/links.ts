// Header and footer links: "LABEL=URL" from a repeated flag or env (a JSON array, or one a line),
// or an array of { "label", "url" } or "LABEL=URL" in the config file. A URL is an http(s) address
// or a path on the site, never a scheme a browser would run or hand on (javascript:, data:, mailto:).

import { ConfigError } from '../errors.js';
import type { SiteLink } from '../model.js';

/** The links a flag, env or file value holds (see above); throws a ConfigError naming `source`. */
export function parseLinks(raw: unknown, source: string): SiteLink[] {
  const links = linksOf(raw);
  if (typeof links === 'string') throw new ConfigError(`${source}: ${links}`);
  return links;
}

function linksOf(raw: unknown): SiteLink[] | string {
  let items: unknown[] = Array.isArray(raw) ? raw : [raw];
  if (typeof raw === 'string') {
    const text = raw.trim();
    if (text.startsWith('[')) {
      try {
        items = JSON.parse(text) as unknown[];
      } catch {
        return 'expected a JSON array of {"label": …, "url": …}, which this is not (check its quotes and commas).';
      }
      if (!Array.isArray(items)) return 'expected a JSON array of {"label": …, "url": …}.';
    } else {
      items = text.split(/\r?\n/).filter((line) => line.trim() !== '');
    }
  }
  const links: SiteLink[] = [];
  for (const item of items) {
    const link = linkOf(item);
    if (typeof link === 'string') return link;
    links.push(link);
  }
  return links;
}

function linkOf(item: unknown): SiteLink | string {
  let label: unknown;
  let url: unknown;
  if (typeof item === 'string') {
    const at = item.indexOf('=');
    if (at < 0) return `expected LABEL=URL (e.g. "About=/about/"), got ${JSON.stringify(item)}.`;
    [label, url] = [item.slice(0, at), item.slice(at + 1)];
  } else if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
    ({ label, url } = item as Record<string, unknown>);
    const extra = Object.keys(item).find((key) => key !== 'label' && key !== 'url');
    if (extra !== undefined) return `a link has "label" and "url" only, not ${JSON.stringify(extra)}.`;
  } else {
    return `expected a link as {"label": …, "url": …} or "LABEL=URL", got ${JSON.stringify(item)}.`;
  }
  if (typeof label !== 'string' || label.trim() === '' || /[\u0000-\u001f\u007f]/.test(label)) {
    return `a link needs a label of text on one line, got ${JSON.stringify(label)}.`;
  }
  if (typeof url !== 'string') return `the link "${label.trim()}" needs a "url", got ${JSON.stringify(url)}.`;
  const problem = linkUrlProblem(url.trim());
  return problem ? `the link "${label.trim()}": ${problem}` : { label: label.trim(), url: url.trim() };
}

/** Why `url` is not an http(s) address or a path on the site, or undefined when it is one. */
export function linkUrlProblem(url: string): string | undefined {
  const refuse = `${JSON.stringify(url)} is neither an http(s) URL nor a path on the site (about/, /contact/).`;
  if (url === '' || /[\s\\\u0000-\u001f\u007f]/.test(url)) return refuse;
  // A scheme: only http(s), and a whole URL.
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return refuse;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return refuse;
    return parsed.username || parsed.password ? `${JSON.stringify(url)} has credentials in it; link without them.` : undefined;
  }
  // "//host/..." is another host by another name.
  return url.startsWith('//') ? refuse : undefined;
}
