/** `partner-sandbox --port 4010 --seed 42`: serves the sandbox until Ctrl-C. */
import { parseArgs } from 'node:util';
import { reachableUrls } from './cli-urls.js';
import { startSandbox } from './server.js';

const HELP = `Usage: partner-sandbox [options]

  --port <n>                 port on 127.0.0.1 (default 4010; 0 picks a free one)
  --host <addr>              address to listen on (default 127.0.0.1)
  --seed <n>                 data seed; same seed, same data (default 42)
  --sims <n>                 number of SIMs (default 300)
  --token-ttl <seconds>      access token lifetime (default 3600)
  --rate-limit-window <ms>   rate-limit window (default 60000)
  --no-rate-limit            turn rate limiting off
  --transaction-delay <ms>   time per async transaction step (default 300)
  --time-scale <x>           sandbox ms per real ms (default 1)
  --delivery-timeout <ms>    real time a webhook receiver gets to answer (default 10000)
  -h, --help                 show this help`;

function int(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`--${name} must be a number`);
  return value;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      seed: { type: 'string' },
      sims: { type: 'string' },
      'token-ttl': { type: 'string' },
      'rate-limit-window': { type: 'string' },
      'no-rate-limit': { type: 'boolean' },
      'transaction-delay': { type: 'string' },
      'time-scale': { type: 'string' },
      'delivery-timeout': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const sandbox = await startSandbox({
    port: int('port', values.port, 4010),
    host: values.host ?? '127.0.0.1',
    seed: int('seed', values.seed, 42),
    simCount: int('sims', values.sims, 300),
    tokenTtlSeconds: int('token-ttl', values['token-ttl'], 3600),
    rateLimitWindowMs: int('rate-limit-window', values['rate-limit-window'], 60_000),
    rateLimit: !values['no-rate-limit'],
    transactionDelayMs: int('transaction-delay', values['transaction-delay'], 300),
    timeScale: int('time-scale', values['time-scale'], 1),
    deliveryTimeoutMs: int('delivery-timeout', values['delivery-timeout'], 10_000),
  });
  const host = values.host ?? '127.0.0.1';
  const urls = await reachableUrls(host, sandbox.port, sandbox.url);
  const url = urls[0];
  if (url === undefined) {
    await sandbox.close();
    throw new Error(`the sandbox listens on ${host} port ${sandbox.port} but no loopback URL answers; pass --host with a concrete address`);
  }
  console.log(`Partner API sandbox listening on ${url}`);
  for (const other of urls.slice(1)) console.log(`  also on ${other}`);
  console.log('');
  console.log('Admin-tier credentials:');
  console.log(`  key:    ${sandbox.key}`);
  console.log(`  secret: ${sandbox.secret}`);
  console.log('Standard credentials (no SMS, no port-in):');
  console.log(`  key:    ${sandbox.standardKey}`);
  console.log(`  secret: ${sandbox.standardSecret}`);
  console.log('');
  console.log(`Inspector: ${url}/_sandbox/ (live requests, webhook deliveries, transactions, controls)`);
  console.log(`Control API: ${url}/_sandbox/* (fixtures, requests, stats, force, time, reset)`);
  console.log('Press Ctrl-C to stop.');

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
