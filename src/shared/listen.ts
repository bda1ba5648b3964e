/**
 * Starting a local HTTP server, as the sandbox and the voice-stream receiver both do. Imports
 * nothing at run time (the server is the caller's).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where a server listens: its port, and its host as a URL writes it (an IPv6 address in brackets). */
export interface Listening {
  port: number;
  urlHost: string;
}

/** Listens on `host`:`port` (0: a free port); rejects with the listen error (a port in use, an unknown host). */
export async function listen(server: Server, port: number, host: string): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return { port: address.port, urlHost: host.includes(':') ? `[${host}]` : host };
}
