import { PartnerClient } from '../../src/index.js';
import type { ClientOptions } from '../../src/index.js';
import type { TestServer } from './server.js';

/** Credentials long and distinctive enough that a leak anywhere is found by a plain substring scan. */
export const KEY = 'pk_test_key_4c1d9e7a2b';
export const SECRET = 'sk_test_secret_8f2e6b0d93';

/** A client of `server` with test credentials; options override. */
export function clientFor(server: TestServer, options: ClientOptions = {}): PartnerClient {
  return new PartnerClient({ baseUrl: server.url, key: KEY, secret: SECRET, ...options });
}

export function elapsedSince(start: number): number {
  return performance.now() - start;
}
