/**
 * The soak's client process. Reads `{ client, operations, wait, concurrency }` as JSON on stdin,
 * runs the operations through a PartnerClient, prints one JSON line per settled operation and a
 * final `done` line, closes the client and returns. It never calls process.exit: whether the
 * process then ends on its own is one of the soak's findings.
 */
import { PartnerClient } from '../../src/index.js';
import type { ClientOptions, WaitOptions } from '../../src/index.js';
import type { Outcome } from './operations.js';
import { runOperations } from './operations.js';
import type { Operation } from './plan.js';

export interface ChildInput {
  client: ClientOptions;
  operations: Operation[];
  wait: WaitOptions;
  concurrency: number;
}

export type ChildLine =
  ({ type: 'outcome' } & Outcome) | { type: 'done'; unhandledRejections: number; warnings: Record<string, number>; elapsedMs: number };

let unhandledRejections = 0;
// Counted, not fatal: the run goes on so the count covers all of it.
process.on('unhandledRejection', () => {
  unhandledRejections += 1;
});
/** Process warnings by name (MaxListenersExceededWarning, TimeoutOverflowWarning …); Node still prints them. */
const warnings: Record<string, number> = {};
process.on('warning', (warning) => {
  warnings[warning.name] = (warnings[warning.name] ?? 0) + 1;
});

const print = (line: ChildLine): void => void process.stdout.write(`${JSON.stringify(line)}\n`);

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(): Promise<void> {
  const input = JSON.parse(await readStdin()) as ChildInput;
  const started = performance.now();
  const client = new PartnerClient(input.client);
  try {
    await runOperations(client, input.operations, { concurrency: input.concurrency, wait: input.wait }, (outcome) =>
      print({ type: 'outcome', ...outcome }),
    );
  } finally {
    await client.close();
  }
  // One more turn, so rejections left unhandled by the last settled calls are counted.
  await new Promise((resolve) => setImmediate(resolve));
  print({ type: 'done', unhandledRejections, warnings, elapsedMs: Math.round(performance.now() - started) });
}

main().catch((error: unknown) => {
  process.stderr.write(`soak child failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
