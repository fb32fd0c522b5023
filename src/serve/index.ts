// `calfeed serve`: preview a built folder locally with the headers its `_headers` file declares, so
// what a CDN will do (content types of the extensionless mirror files, CORS on the feeds) can be
// seen before publishing. For previews only: no caching, no compression, no range requests.

import { readFile, realpath, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, sep } from 'node:path';
import { ConfigError } from '../errors.js';
import { paths } from '../paths.js';
import { contentTypeFor } from '../publish/content-types.js';
import { headersFor, parseHeadersFile } from './headers.js';
import { listen } from '../listen.js';
import { parseRequestPath } from './request-path.js';

export interface PreviewServer {
  /** Base URL, ending with '/'. */
  url: string;
  close(): Promise<void>;
}

const NOT_FOUND_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found</title><link rel="icon" href="data:,"></head>' +
  '<body><main><h1>Not found</h1><p>No file at this address. <a href="/">Back to the start page</a></p></main></body></html>\n';

function send(res: ServerResponse, head: boolean, status: number, headers: Record<string, string>, body: string | Buffer): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { ...headers, 'Content-Length': String(bytes.length) });
  res.end(head ? undefined : bytes);
}

async function fileAt(path: string): Promise<'file' | 'dir' | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return undefined;
  return info.isDirectory() ? 'dir' : info.isFile() ? 'file' : undefined;
}

async function handle(root: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const head = req.method === 'HEAD';
  if (req.method !== 'GET' && !head) {
    send(res, false, 405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }, 'Method not allowed\n');
    return;
  }
  const parsed = parseRequestPath(req.url ?? '/');
  if (!parsed.ok) {
    send(res, head, 400, { 'Content-Type': 'text/plain; charset=utf-8' }, `Bad request path: ${parsed.reason}\n`);
    return;
  }
  const notFound = async (): Promise<void> => {
    const custom = await readFile(join(root, '404.html')).catch(() => undefined);
    send(res, head, 404, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }, custom ?? NOT_FOUND_PAGE);
  };
  // Hosts never serve _headers or dot files (the staging folder, editor leftovers).
  if (parsed.segments.some((s) => s.startsWith('.')) || parsed.segments.join('/') === paths.headers()) return notFound();

  let rel = parsed.segments.join('/');
  let file = join(root, ...parsed.segments);
  const kind = await fileAt(file);
  if (kind === 'dir') {
    if (!parsed.folder && rel !== '') {
      // Relative links in a folder's index.html only resolve from the folder URL with its slash.
      const query = (req.url ?? '').slice((req.url ?? '').split('?', 1)[0]!.length);
      send(res, head, 301, { Location: encodeURI(parsed.urlPath + '/') + query, 'Content-Type': 'text/plain; charset=utf-8' }, 'Moved\n');
      return;
    }
    rel = rel === '' ? 'index.html' : `${rel}/index.html`;
    file = join(file, 'index.html');
    if ((await fileAt(file)) !== 'file') return notFound();
  } else if (kind !== 'file') {
    return notFound();
  }
  // A symlink inside the folder must not lead outside it.
  const real = await realpath(file);
  if (real !== root && !real.startsWith(root + sep)) return notFound();

  const headers: Record<string, string> = {};
  const defaults: Array<[string, string]> = [
    ['Content-Type', contentTypeFor(rel)],
    ['Cache-Control', 'no-cache'],
  ];
  // _headers is read on every request, so a rebuild shows up without restarting the preview.
  const rules = parseHeadersFile(await readFile(join(root, paths.headers()), 'utf8').catch(() => ''));
  const declared = headersFor(rules, parsed.urlPath);
  for (const [name, value] of defaults) {
    if (!declared.removed.has(name.toLowerCase()) && !declared.headers.has(name.toLowerCase())) headers[name] = value;
  }
  for (const [name, value] of declared.headers.values()) headers[name] = value;
  send(res, head, 200, headers, await readFile(real));
}

/** Serves a built folder for preview with its `_headers`, index.html for folders and a 404 page. */
export async function startPreviewServer(opts: { dir: string; port?: number; host?: string }): Promise<PreviewServer> {
  const host = opts.host ?? '127.0.0.1';
  const root = await realpath(opts.dir).catch(() => undefined);
  if (!root || (await fileAt(root)) !== 'dir') {
    throw new ConfigError(`--dir: "${opts.dir}" is not a folder. Run "calfeed build" first, or pass --dir with the folder it wrote.`);
  }
  const server = createServer((req, res) => {
    // Resolved per request: when --dir is the symbolic link a build flips, it follows to the current output.
    realpath(opts.dir).then((current) => handle(current, req, res)).catch((error: unknown) => {
      if (res.headersSent) return res.destroy();
      send(res, false, 500, { 'Content-Type': 'text/plain; charset=utf-8' }, `Preview server error: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  });
  await listen(server, opts.port ?? 8080, host);
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive connections (browsers hold them open) would otherwise delay close() for seconds.
        server.closeAllConnections();
      }),
  };
}
