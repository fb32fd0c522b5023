import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/errors.js';
import { listen } from '../src/listen.js';

let taken: Server;
let port: number;

beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  port = (taken.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

describe('listen', () => {
  it('reports a port in use as a configuration error naming --port and the way out', async () => {
    const error = await listen(createServer(), port, '127.0.0.1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(`--port: 127.0.0.1:${port} is already in use. Pass another --port, or 0 for any free port.`);
  });

  it('reports a port the user may not take (EACCES from the system) the same way', async () => {
    const server = createServer();
    // The system's answer for a privileged port, as a user that is not root gets it.
    server.listen = function (this: Server) {
      process.nextTick(() => this.emit('error', Object.assign(new Error('listen EACCES: permission denied 127.0.0.1:80'), { code: 'EACCES' })));
      return this;
    } as Server['listen'];
    const error = await listen(server, 80, '127.0.0.1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^--port: this user may not listen on 127\.0\.0\.1:80 .* Pass another --port/);
  });

  it('listens when the port is free', async () => {
    const server = createServer();
    await listen(server, 0, '127.0.0.1');
    expect((server.address() as { port: number }).port).toBeGreaterThan(0);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
