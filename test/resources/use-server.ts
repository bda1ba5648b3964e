import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { PartnerClient } from '../../src/index.js';
import { type ResourcesServer, startResourcesServer } from '../helpers/resources-server.js';

/** One loopback server and client for the file, its request log emptied before every test. */
export function useResourcesServer(): () => { server: ResourcesServer; client: PartnerClient } {
  let server: ResourcesServer | undefined;
  let client: PartnerClient | undefined;
  beforeAll(async () => {
    server = await startResourcesServer();
    client = server.client();
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    if (server) server.requests.length = 0;
  });
  return () => {
    if (!server || !client) throw new Error('useResourcesServer() is only usable inside a test');
    return { server, client };
  };
}
