/** `partner-sandbox --port 4010 --seed 42`: serves the sandbox until Ctrl-C. */
import { isLoopbackHost } from './bind.js';
import { HELP, parseCommand, UsageError } from './cli-args.js';
import { reachableUrls } from './cli-urls.js';
import { startSandbox } from './server.js';

/** Exit status of a command line the sandbox cannot start from, as usual for usage errors. */
const USAGE_EXIT = 2;

async function main(): Promise<void> {
  const command = parseCommand(process.argv.slice(2));
  if (command.help) {
    console.log(HELP);
    return;
  }
  const { options } = command;
  const sandbox = await startSandbox(options);
  const host = options.host ?? '127.0.0.1';
  const urls = await reachableUrls(host, sandbox.port, sandbox.url);
  const url = urls[0];
  if (url === undefined) {
    await sandbox.close();
    throw new Error(`the sandbox listens on ${host} port ${sandbox.port} but no loopback URL answers; pass --host with a concrete address`);
  }
  // Ready to stop before the banner says so: a supervisor may send SIGINT as soon as it reads
  // "Press Ctrl-C", before the lines after the last write would have run.
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
  console.log(`Partner API sandbox listening on ${url}`);
  for (const other of urls.slice(1)) console.log(`  also on ${other}`);
  if (!isLoopbackHost(host)) {
    // startSandbox's SandboxExposedWarning names every URL; the banner says it too, for a
    // terminal that runs with NODE_NO_WARNINGS.
    console.log(`  WARNING: --expose: listening on ${host}, beyond this machine's loopback; the control API has no authentication`);
  }
  console.log('');
  console.log('Admin-tier credentials:');
  console.log(`  key:    ${sandbox.key}`);
  console.log(`  secret: ${sandbox.secret}`);
  console.log('Standard credentials (no SMS, no port-in):');
  console.log(`  key:    ${sandbox.standardKey}`);
  console.log(`  secret: ${sandbox.standardSecret}`);
  console.log('');
  // Pasted into a POSIX shell, these are what a client built with no options reads.
  console.log('In a shell, for a client with no options:');
  console.log(`  export PARTNER_API_BASE_URL=${url}`);
  console.log(`  export PARTNER_API_KEY=${sandbox.key}`);
  console.log(`  export PARTNER_API_SECRET=${sandbox.secret}`);
  console.log('');
  console.log(`Inspector: ${url}/_sandbox/ (live requests, webhook deliveries, transactions, controls)`);
  console.log(`Control API: ${url}/_sandbox/* (fixtures, requests, stats, force, time, reset)`);
  console.log('Press Ctrl-C to stop.');
}

// One line on stderr, never a stack trace: a usage error exits 2, anything else (a port in use) 1.
main().catch((error: unknown) => {
  const usage = error instanceof UsageError;
  // Each run of whitespace that breaks the line becomes one space; matching whole runs keeps this
  // linear (`/\s*\n\s*/` would rescan a long run without a newline from each of its characters).
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, (run) => (run.includes('\n') ? ' ' : run));
  console.error(`partner-sandbox: ${message}${usage ? ' (see partner-sandbox --help)' : ''}`);
  process.exit(usage ? USAGE_EXIT : 1);
});
