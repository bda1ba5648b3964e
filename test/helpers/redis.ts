import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';

const INSTALL_HINT = 'redis-server is not on PATH: the fleet tests run a real Redis. Install it with `apt-get install -y redis-server`.';

/** A real redis-server on 127.0.0.1, with no persistence, in a directory of its own. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops the server process only (an outage): its clients stay, and try to reconnect. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Closes the test's clients, stops the server and removes its directory. */
  stop(): Promise<void>;
  /** A client of the test's own, closed by `stop()`. */
  client(options?: RedisOptions): Redis;
}

/** Fails, never skips, when redis-server is missing. */
function assertInstalled(): void {
  const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (found.error || found.status !== 0) throw new Error(INSTALL_HINT);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function launch(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'yes'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.once('error', (error) => reject(new Error(`${INSTALL_HINT} (${error.message})`)));
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code} before it was ready: ${output.slice(-400)}`)));
  });
}

function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 2_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export async function startRedis(): Promise<RedisServer> {
  assertInstalled();
  const dir = mkdtempSync(path.join(tmpdir(), 'mps-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined = await launch(port, dir);
  const clients: Redis[] = [];
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child ??= await launch(port, dir);
    },
    async kill() {
      if (child) await terminate(child);
      child = undefined;
    },
    async stop() {
      for (const client of clients.splice(0)) client.disconnect();
      if (child) await terminate(child);
      child = undefined;
      rmSync(dir, { recursive: true, force: true });
    },
    client(options = {}) {
      const client = new Redis(port, '127.0.0.1', options);
      // Outages are staged on purpose: ioredis reports each failed reconnect as an 'error' event.
      client.on('error', () => {});
      clients.push(client);
      return client;
    },
  };
}
