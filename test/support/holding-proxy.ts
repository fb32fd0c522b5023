// A proxy on 127.0.0.1 in front of a portal that, once a few details requests have passed, holds
// the rest until the test releases them: a build through it is surely still running (and holding
// its lock) for as long as the test needs, however slowly the machine starts other processes.

import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldingProxy {
  /** The portal's base URL through the proxy. */
  url: string;
  /** How many requests are held now. */
  held(): number;
  /** Forward the held requests and every later one. */
  release(): void;
  close(): Promise<void>;
}

export async function holdingProxy(portalUrl: string, passDetails = 2): Promise<HoldingProxy> {
  const target = new URL(portalUrl);
  let waiting: Array<() => void> | undefined = [];
  let details = 0;
  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const upstream = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  };
  const server = createServer((req, res) => {
    if (waiting && /\/details(\?|$)/.test(req.url ?? '') && ++details > passDetails) waiting.push(() => forward(req, res));
    else forward(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    held: () => waiting?.length ?? 0,
    release() {
      const held = waiting ?? [];
      waiting = undefined;
      for (const go of held) go();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
