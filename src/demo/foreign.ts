// A second small server on another port: "another origin" for the redirect faults. It records whether
// a client carried the organization's token across the redirect (issue 7: it must not).

import { createServer, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

export interface ForeignRecorder {
  origin: string;
  requests(): number;
  authSeen(): boolean;
  /** Forget what was seen (the portal's resetStats). */
  reset(): void;
  close(): Promise<void>;
}

/** True when a request carries an Authorization header, or any token in a header value or the URL. */
export function carriesCredential(req: IncomingMessage, tokens: string[]): boolean {
  if (req.headers.authorization !== undefined) return true;
  const haystacks = [req.url ?? '', ...Object.values(req.headers).flat().filter((v): v is string => typeof v === 'string')];
  return haystacks.some((text) => tokens.some((t) => text.includes(t)));
}

/**
 * Start the recorder on `host`, port 0. `answer(path)` gives the JSON body to serve for a path,
 * so a client that follows the redirect without the token still gets usable data.
 */
export async function startForeignRecorder(host: string, tokens: string[], answer: (path: string) => string | undefined): Promise<ForeignRecorder> {
  let requests = 0;
  let authSeen = false;
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    requests += 1;
    if (carriesCredential(req, tokens)) authSeen = true;
    const body = answer((req.url ?? '/').split('?')[0] ?? '/');
    if (body === undefined) {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end('{"error":"not_found"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('foreign recorder has no TCP address');
  return {
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    requests: () => requests,
    authSeen: () => authSeen,
    reset: () => {
      requests = 0;
      authSeen = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
