// A real HTTP server on 127.0.0.1, port 0, with one route per behaviour. It records every request
// and the most requests it ever had in flight; close() drops open sockets so nothing outlives a test.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  /** Path and query, as received. */
  url: string;
  headers: IncomingMessage['headers'];
}

export type Handler = (req: IncomingMessage, res: ServerResponse, hit: number) => unknown;

export interface TestServer {
  /** http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  requests: Recorded[];
  /** Requests to one path (query ignored). */
  hits(path: string): Recorded[];
  maxInFlight: number;
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

/** Starts a server; routes match on the path without the query string, else `fallback` answers. */
export async function startServer(routes: Record<string, Handler> = {}, fallback?: Handler): Promise<TestServer> {
  const table = new Map(Object.entries(routes));
  const counts = new Map<string, number>();
  let inFlight = 0;
  const state: TestServer = {
    url: '',
    requests: [],
    maxInFlight: 0,
    hits: (path) => state.requests.filter((r) => r.url.split('?')[0] === path),
    route: (path, handler) => void table.set(path, handler),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    state.requests.push({ url: req.url ?? '/', headers: req.headers });
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    let done = false;
    const finish = (): void => {
      if (!done) inFlight--;
      done = true;
    };
    res.on('close', finish);
    const hit = (counts.get(path) ?? 0) + 1;
    counts.set(path, hit);
    const handler = table.get(path) ?? fallback;
    if (!handler) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such route"}');
      return;
    }
    Promise.resolve(handler(req, res, hit)).catch((error: unknown) => {
      res.destroy(error as Error);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

/** Sends a JSON body. */
export function json(res: ServerResponse, body: unknown, status = 200, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
}

/** Resolves after ms (server-side delays only; tests never assert on time). */
export function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
