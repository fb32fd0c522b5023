// Listening on a port the user chose: a port that is taken or not allowed is their setting to
// change, not a bug in calfeed, so it is reported as a configuration error naming --port.

import type { Server } from 'node:net';
import { ConfigError } from './errors.js';

/** Listen on host:port; EADDRINUSE and EACCES become a ConfigError that names --port. */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(portError(error, port, host)));
    server.listen(port, host, () => resolve());
  });
}

function portError(error: NodeJS.ErrnoException, port: number, host: string): Error {
  if (error.code === 'EADDRINUSE') {
    return new ConfigError(`--port: ${host}:${port} is already in use. Pass another --port, or 0 for any free port.`, { cause: error });
  }
  if (error.code === 'EACCES') {
    return new ConfigError(`--port: this user may not listen on ${host}:${port} (ports below 1024 need privileges). Pass another --port, or 0 for any free port.`, { cause: error });
  }
  return error;
}
