import { afterEach, beforeEach } from 'vitest';
import { PartnerClient } from '../../src/index.js';
import type { ClientOptions } from '../../src/index.js';
import { startTestServer, type TestServer } from './server.js';

/** Credentials long and distinctive enough that a leak anywhere is found by a plain substring scan. */
export const KEY = 'pk_test_key_4c1d9e7a2b';
export const SECRET = 'sk_test_secret_8f2e6b0d93';

/** A client of `server` with test credentials; options override. */
export function clientFor(server: TestServer, options: ClientOptions = {}): PartnerClient {
  return new PartnerClient({ baseUrl: server.url, key: KEY, secret: SECRET, ...options });
}

/**
 * Whether `promise` settles within the current turn of the event loop (its microtasks and one
 * setImmediate): proof that it did not wait for any timer or socket, however loaded the machine.
 */
export async function settlesAtOnce(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

export function elapsedSince(start: number): number {
  return performance.now() - start;
}

export interface TestContext {
  /** This test's loopback server: started before the test, closed after it. */
  readonly server: TestServer;
  /** This test's client of `server` with the file's options, built on first use. */
  readonly client: PartnerClient;
  /** Closes `client` and builds it again with `options` over the file's. */
  connect(options?: ClientOptions): Promise<PartnerClient>;
  /** Closes `closable` after the test, like `client`. */
  track<T extends { close(): Promise<void> }>(closable: T): T;
}

/**
 * A fresh loopback server, and a client of it, for every test of the calling file; both are
 * closed after each test, so no socket or timer leaks from one test into the next.
 */
export function useTestServer(defaults: ClientOptions = {}): TestContext {
  let server: TestServer | undefined;
  let client: PartnerClient | undefined;
  const tracked: Array<{ close(): Promise<void> }> = [];

  beforeEach(async () => {
    server = await startTestServer();
  });

  afterEach(async () => {
    const closing = [client, ...tracked.splice(0)];
    client = undefined;
    // A client is destroyed: a call a test left hanging must not hold the teardown for close()'s timeout.
    for (const closable of closing) await (closable instanceof PartnerClient ? closable.destroy() : closable?.close());
    await server?.close();
    server = undefined;
  });

  const running = (): TestServer => {
    if (!server) throw new Error('useTestServer: the server exists only while a test runs');
    return server;
  };

  return {
    get server() {
      return running();
    },
    get client() {
      client ??= clientFor(running(), defaults);
      return client;
    },
    async connect(options = {}) {
      await client?.destroy();
      client = clientFor(running(), { ...defaults, ...options });
      return client;
    },
    track(closable) {
      tracked.push(closable);
      return closable;
    },
  };
}
