// What each output file is and how a server should label it. One table, read by the manifest,
// by _headers and by verify, so the three can never disagree about a file.

import { paths } from '../paths.js';

export type FileKind = 'mirror' | 'rss' | 'atom' | 'jsonfeed' | 'ical' | 'html' | 'asset' | 'manifest';

const JSON_TYPE = 'application/json; charset=utf-8';

// The mirror files have no extension (they copy the portal's URLs), so they are told apart by shape.
// A segment here is what src/paths.ts produces: never empty, never containing '/'.
const DETAILS_MIRROR = /^event-calendar\/[^/]+\/event\/[^/]+\/details$/;
const MIRROR = [new RegExp(`^${paths.calendarsMirror()}$`), /^event-calendar\/[^/]+\/events$/, DETAILS_MIRROR];

const BY_EXTENSION: Record<string, string> = {
  '.ics': 'text/calendar; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': JSON_TYPE,
  '.xml': 'application/xml; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.webmanifest': 'application/manifest+json',
};

function baseName(relPath: string): string {
  return relPath.slice(relPath.lastIndexOf('/') + 1);
}

function extension(relPath: string): string {
  const name = baseName(relPath);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot).toLowerCase() : '';
}

/** True for the byte-for-byte API mirror files (extensionless JSON). */
function isMirrorPath(relPath: string): boolean {
  return MIRROR.some((re) => re.test(relPath));
}

/** True for a per-event details mirror file (one per event). */
export function isDetailsMirrorPath(relPath: string): boolean {
  return DETAILS_MIRROR.test(relPath);
}

/** The kind of an output path (relative, POSIX separators). */
export function kindOf(relPath: string): FileKind {
  if (relPath === paths.manifest()) return 'manifest';
  if (isMirrorPath(relPath)) return 'mirror';
  const name = baseName(relPath);
  if (name === 'rss.xml') return 'rss';
  if (name === 'atom.xml') return 'atom';
  if (name === 'feed.json') return 'jsonfeed';
  const ext = extension(relPath);
  if (ext === '.ics') return 'ical';
  if (ext === '.html') return 'html';
  return 'asset';
}

/** Content type of an output path, charset included for text. */
export function contentTypeFor(relPath: string): string {
  switch (kindOf(relPath)) {
    case 'mirror':
    case 'manifest':
      return JSON_TYPE;
    case 'rss':
      return 'application/rss+xml; charset=utf-8';
    case 'atom':
      return 'application/atom+xml; charset=utf-8';
    case 'jsonfeed':
      return 'application/feed+json; charset=utf-8';
    default:
      break;
  }
  // _headers is consumed by Netlify/Cloudflare; hosts that serve it anyway should show it as text.
  if (relPath === paths.headers()) return 'text/plain; charset=utf-8';
  return BY_EXTENSION[extension(relPath)] ?? 'application/octet-stream';
}

/** True when a file of this path must parse as JSON. */
export function isJsonPath(relPath: string): boolean {
  const kind = kindOf(relPath);
  return kind === 'mirror' || kind === 'manifest' || kind === 'jsonfeed' || extension(relPath) === '.json';
}

/** True when a file of this path must be well-formed XML. */
export function isXmlPath(relPath: string): boolean {
  return extension(relPath) === '.xml';
}
