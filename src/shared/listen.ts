/**
 * Starting a local HTTP server, as the sandbox and the voice-stream receiver both do. Imports
 * nothing at run time (the server is the caller's).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Where a server listens: its port, its host as a URL writes it (an IPv6 address in brackets), and
 * the address the system bound (a host name resolved, `0.0.0.0` or `::` for a wildcard).
 */
export interface Listening {
  port: number;
  urlHost: string;
  address: string;
}

/**
 * Connections the kernel may hold for the server before it accepts them: Node's default is 511,
 * and a burst of simultaneous connections beyond it, while the event loop is busy, is answered
 * with resets. The kernel caps it at its own limit (net.core.somaxconn).
 */
const BACKLOG = 4096;

/** Listens on `host`:`port` (0: a free port); rejects with the listen error (a port in use, an unknown host). */
export async function listen(server: Server, port: number, host: string): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, BACKLOG, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return { port: address.port, urlHost: host.includes(':') ? `[${host}]` : host, address: address.address };
}
