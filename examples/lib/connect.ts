/**
 * Connects the examples to an API: the one in PARTNER_API_BASE_URL (with PARTNER_API_KEY and
 * PARTNER_API_SECRET) when set, otherwise a sandbox started in this process for the run.
 */
import { PartnerClient } from '../../src/index.js';
import { startSandbox } from '../../src/sandbox/index.js';

export interface Connection {
  client: PartnerClient;
  /** Where the calls go, for the printout. */
  baseUrl: string;
  /** True when this run started its own sandbox. */
  sandbox: boolean;
  close(): Promise<void>;
}

export async function connect(): Promise<Connection> {
  const baseUrl = process.env['PARTNER_API_BASE_URL'];
  if (baseUrl) {
    const client = new PartnerClient();
    return { client, baseUrl, sandbox: false, close: () => client.close() };
  }
  const sandbox = await startSandbox({ port: 0 });
  const client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret });
  return {
    client,
    baseUrl: sandbox.url,
    sandbox: true,
    async close() {
      await client.close();
      await sandbox.close();
    },
  };
}

/** Runs an example with a connection, closes it whatever happens, and sets the exit code. */
export async function run(example: (connection: Connection) => Promise<void>): Promise<void> {
  const connection = await connect();
  try {
    await example(connection);
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  } finally {
    await connection.close();
  }
}

/** A signing secret or token shown only by its first and last characters. */
export function mask(secret: string): string {
  return secret.length <= 12 ? '•'.repeat(secret.length) : `${secret.slice(0, 8)}${'•'.repeat(8)}${secret.slice(-4)}`;
}
