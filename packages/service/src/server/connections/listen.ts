import type { Server } from 'node:net';
import { ConfigError } from '../config/config.js';

/**
 * Binds `server` to `host:port`. A bind that fails is the operator's to fix (a
 * busy port, a host that is not this machine's), so it rejects with a one-line
 * ConfigError naming the host or port, never an unhandled 'error' event.
 */
export function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(listenError(error, host, port));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

function listenError(error: NodeJS.ErrnoException, host: string, port: number): ConfigError {
  switch (error.code) {
    case 'EADDRINUSE':
      return new ConfigError(`port ${port} on ${host} is in use`);
    case 'EACCES':
      return new ConfigError(`port ${port} on ${host}: permission denied (EACCES; ports below 1024 need privileges)`);
    case 'EADDRNOTAVAIL':
      return new ConfigError(`host ${JSON.stringify(host)}: not an address of this machine (EADDRNOTAVAIL)`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConfigError(`host ${JSON.stringify(host)}: no such host name or address (${error.code})`);
    default:
      return new ConfigError(`cannot listen on host ${JSON.stringify(host)} port ${port}: ${error.message}`);
  }
}
