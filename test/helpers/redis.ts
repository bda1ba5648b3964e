import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';

const INSTALL_HINT =
  'redis-server or redis-cli is not on PATH: the fleet tests run a real Redis. Install them with `apt-get install -y redis-server`.';

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
  for (const command of ['redis-server', 'redis-cli']) {
    const found = spawnSync(command, ['--version'], { encoding: 'utf8' });
    if (found.error || found.status !== 0) throw new Error(INSTALL_HINT);
  }
}

/** `count` distinct ports free on loopback: each is held until all are found, so none comes twice. */
async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))));
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  return ports;
}

async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port as number;
}

function launch(port: number, dir: string, extra: string[] = []): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'yes', ...extra],
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

/** A Redis Cluster of three masters with a replica each, on 127.0.0.1, without persistence. */
export interface RedisCluster {
  readonly ports: readonly number[];
  /** A Cluster client of the test's own, closed by `stop()`. */
  client(options?: ClusterOptions): Cluster;
  /** The port of the master serving the slot of `key` now. */
  masterOf(key: string): Promise<number>;
  /** The keys matching `pattern` on every live node (KEYS on each). */
  keys(pattern: string): Promise<string[]>;
  /** Kills one node with SIGKILL (a crash: no goodbye to the others). */
  crash(port: number): Promise<void>;
  /** Resolves once every live node reports `cluster_state:ok` and every slot has a live master (fails after 30 s). */
  healthy(): Promise<void>;
  /** Closes the test's clients, stops every node and removes the directory. */
  stop(): Promise<void>;
}

/**
 * A cluster node on `port`, its cluster bus on `busPort`: a free port of its own, not redis-server's
 * default of the port plus 10,000, which is out of range for a port above 55,535 and may be taken.
 */
function clusterNode(port: number, busPort: number, dir: string): Promise<ChildProcess> {
  mkdirSync(dir, { recursive: true });
  return launch(port, dir, [
    '--cluster-enabled',
    'yes',
    '--cluster-port',
    String(busPort),
    '--cluster-config-file',
    `nodes-${port}.conf`,
    '--cluster-node-timeout',
    '1000',
    // A replica takes over however long ago it last heard from its master: on a loaded machine
    // the data-age check ("disconnected from master for longer than allowed") can refuse forever.
    '--cluster-replica-validity-factor',
    '0',
  ]);
}

function redisCli(args: string[]): string {
  const run = spawnSync('redis-cli', args, { encoding: 'utf8', timeout: 30_000 });
  if (run.error) throw new Error(`${INSTALL_HINT} (${run.error.message})`);
  if (run.status !== 0) throw new Error(`redis-cli ${args.join(' ')} failed: ${run.stderr || run.stdout}`);
  return run.stdout;
}

/**
 * Six redis-server processes joined by `redis-cli --cluster create … --cluster-replicas 1`, with
 * a node timeout of one second so that a replica takes over a crashed master within seconds.
 * Fails, never skips, when redis-server or redis-cli is missing.
 */
export async function startRedisCluster(): Promise<RedisCluster> {
  assertInstalled();
  const root = mkdtempSync(path.join(tmpdir(), 'mps-redis-cluster-'));
  const nodes = new Map<number, ChildProcess>();
  const clients: Cluster[] = [];
  const admins: Redis[] = [];
  const output = new Map<number, string>();
  const stop = async (): Promise<void> => {
    for (const client of clients.splice(0)) client.disconnect();
    for (const admin of admins.splice(0)) admin.disconnect();
    await Promise.all([...nodes.values()].map(terminate));
    nodes.clear();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const free = await freePorts(12);
    const ports = free.slice(0, 6);
    await Promise.all(
      ports.map(async (port, index) => {
        const node = await clusterNode(port, free[6 + index] as number, path.join(root, String(port)));
        nodes.set(port, node);
        // Each node's log, for the message of a cluster that does not recover.
        node.stdout?.on('data', (chunk: Buffer) => output.set(port, ((output.get(port) ?? '') + chunk.toString()).slice(-20_000)));
      }),
    );
    redisCli(['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '1', '--cluster-yes']);
    const admin = (port: number): Redis => {
      const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
      client.on('error', () => {});
      admins.push(client);
      return client;
    };
    const live = (): number[] => ports.filter((port) => nodes.has(port));
    /** Slot ranges and their master ports, as a live node sees them (CLUSTER SLOTS). */
    const slots = async (): Promise<Array<[number, number, number]>> => {
      for (const port of live()) {
        const client = admin(port);
        try {
          await client.connect();
          const answer = await client.cluster('SLOTS');
          return answer.map(([from, to, master]): [number, number, number] => [from, to, master?.[1] ?? -1]);
        } catch {
          // This node is not answering yet: ask another.
        } finally {
          client.disconnect();
        }
      }
      throw new Error('no cluster node answers');
    };
    const cluster: RedisCluster = {
      ports,
      client(options = {}) {
        const client = new Cluster(
          live().map((port) => ({ host: '127.0.0.1', port })),
          options,
        );
        // A crash is staged on purpose: ioredis reports each failed reconnect as an 'error' event.
        client.on('error', () => {});
        clients.push(client);
        return client;
      },
      async masterOf(key) {
        const probe = admin(live()[0] as number);
        await probe.connect();
        const slot = Number(await probe.cluster('KEYSLOT', key));
        probe.disconnect();
        const range = (await slots()).find(([from, to]) => from <= slot && slot <= to);
        if (!range) throw new Error(`no master serves slot ${slot}`);
        return range[2];
      },
      async keys(pattern) {
        const found = await Promise.all(
          live().map(async (port) => {
            const client = admin(port);
            try {
              await client.connect();
              return await client.keys(pattern);
            } finally {
              client.disconnect();
            }
          }),
        );
        return [...new Set(found.flat())];
      },
      async crash(port) {
        const child = nodes.get(port);
        if (!child) return;
        nodes.delete(port);
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      },
      async healthy() {
        // Bounded, so that a cluster that never recovers fails the test with what its nodes say.
        const deadline = Date.now() + 30_000;
        for (;;) {
          if (Date.now() > deadline) {
            const seen = redisCli(['-p', String(live()[0]), 'cluster', 'nodes']);
            const logs = live().map((port) => {
              const lines = (output.get(port) ?? '').split('\n');
              return `${port}: ${[...lines.filter((line) => /failover|elect|vote/i.test(line)).slice(-6), ...lines.slice(-3)].join('\n  ')}`;
            });
            throw new Error(`the cluster did not recover within 30 s; CLUSTER NODES:\n${seen}\n${logs.join('\n')}`);
          }
          const states = await Promise.all(
            live().map(async (port) => {
              const client = admin(port);
              try {
                await client.connect();
                return /cluster_state:ok/.test(String(await client.cluster('INFO')));
              } catch {
                return false;
              } finally {
                client.disconnect();
              }
            }),
          );
          if (states.every(Boolean)) {
            const masters = new Set((await slots()).map(([, , master]) => master));
            if ([...masters].every((port) => nodes.has(port))) return;
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
      stop,
    };
    await cluster.healthy();
    return cluster;
  } catch (error) {
    await stop();
    throw error;
  }
}
