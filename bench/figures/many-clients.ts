/**
 * Figure 6: a platform holding one client per business account. Heap per idle PartnerClient
 * (constructed, never called), measured as the heap delta after gc() over many clients, against
 * the least a hand-rolled per-account holder keeps (credentials and its own undici Agent). Also:
 * constructing them schedules nothing (no new active handle or timer), and close() after a first
 * call leaves nothing behind.
 */
import { Agent } from 'undici';
import { BENCH_KEY, BENCH_SECRET } from '../lib/sims.js';
import { loadClient, UNREACHED_RATE_LIMIT } from '../lib/client.js';
import type { FigureConfig } from '../lib/figure.js';
import { type Row, skippedRow } from '../lib/report.js';
import { collectGarbage, median } from '../lib/stats.js';

const KB = 1024;

function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Active resources present now and not in `before` (a multiset difference). */
function newResources(before: readonly string[]): string[] {
  const after = process.getActiveResourcesInfo();
  for (const type of before) {
    const index = after.indexOf(type);
    if (index !== -1) after.splice(index, 1);
  }
  return after;
}

async function heapPerItem(count: number, make: (index: number) => unknown): Promise<{ bytesEach: number; held: unknown[] }> {
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  const held = Array.from({ length: count }, (_, index) => make(index));
  await tick();
  collectGarbage();
  return { bytesEach: (process.memoryUsage().heapUsed - before) / count, held };
}

export async function measure(config: FigureConfig): Promise<Row[]> {
  const count = config.quick ? 50 : 1_000;
  const repeats = config.quick ? 1 : 3;
  if (!(globalThis as { gc?: unknown }).gc) throw new Error('run with --expose-gc');

  const handRolled = (index: number): unknown => ({ baseUrl: config.apiUrl, key: `key-${index}`, secret: `secret-${index}`, agent: new Agent() });
  await (handRolled(-1) as { agent: Agent }).agent.close();
  const baselineBytes: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const { bytesEach, held } = await heapPerItem(count, handRolled);
    baselineBytes.push(bytesEach);
    await Promise.all(held.map((holder) => (holder as { agent: Agent }).agent.close()));
  }
  const baseline = median(baselineBytes) / KB;
  const label = '{ credentials, new undici.Agent() }';
  const figure = `6. heap per idle client (${count.toLocaleString('en-US')} clients)`;

  const loaded = await loadClient();
  if (!loaded.ok) {
    return [
      skippedRow('many-clients.heap', figure, '< 50 KB', loaded.reason, { value: baseline, unit: 'KB', label }),
      skippedRow('many-clients.scheduled', `6. handles/timers after constructing ${count} clients`, '0', loaded.reason),
    ];
  }
  const PartnerClient = loaded.value;
  const options = (index: number) => ({
    baseUrl: config.apiUrl,
    key: `${BENCH_KEY}-${index}`,
    secret: `${BENCH_SECRET}-${index}`,
    rateLimit: UNREACHED_RATE_LIMIT,
  });
  // One client first, so module-level state built on first construction is not charged to the many.
  await new PartnerClient(options(-1)).close();

  const clientBytes: number[] = [];
  let scheduled: string[] = [];
  for (let i = 0; i < repeats; i++) {
    await tick();
    const before = process.getActiveResourcesInfo();
    const { bytesEach, held } = await heapPerItem(count, (index) => new PartnerClient(options(index)));
    clientBytes.push(bytesEach);
    if (i === 0) scheduled = newResources(before);
    await Promise.all(held.map((client) => (client as InstanceType<typeof PartnerClient>).close()));
  }
  const perClient = median(clientBytes) / KB;

  // After a first call the client may hold sockets and timers; close() must release them all.
  await tick();
  const beforeCall = process.getActiveResourcesInfo();
  const client = new PartnerClient({ baseUrl: config.apiUrl, key: BENCH_KEY, secret: BENCH_SECRET, rateLimit: UNREACHED_RATE_LIMIT });
  let callProblem: string | undefined;
  try {
    await client.sims.list({ pageSize: 20 });
  } catch (error) {
    callProblem = `first call fails (${(error as Error).name}: ${(error as Error).message.split('\n')[0]})`;
  }
  const whileOpen = newResources(beforeCall);
  await client.close();
  await tick();
  const leftover = newResources(beforeCall);

  const rows: Row[] = [
    {
      id: 'many-clients.heap',
      figure,
      value: perClient,
      baseline,
      unit: 'KB',
      baselineLabel: label,
      ratio: perClient / baseline,
      goal: '< 50 KB',
      met: perClient < 50,
    },
    {
      id: 'many-clients.scheduled',
      figure: `6. handles/timers after constructing ${count} clients`,
      value: scheduled.length,
      baseline: null,
      unit: '',
      baselineLabel: '',
      ratio: null,
      goal: '0',
      met: scheduled.length === 0,
      ...(scheduled.length > 0 ? { note: `new after construction: ${scheduled.join(', ')}` } : {}),
    },
  ];
  if (callProblem) rows.push(skippedRow('many-clients.close', '6. handles/timers left after first call + close()', '0', callProblem));
  else {
    rows.push({
      id: 'many-clients.close',
      figure: '6. handles/timers left after first call + close()',
      value: leftover.length,
      baseline: null,
      unit: '',
      baselineLabel: '',
      ratio: null,
      goal: '0',
      met: leftover.length === 0,
      note: `while open after one call: ${whileOpen.join(', ') || 'nothing'}${leftover.length ? `; left after close(): ${leftover.join(', ')}` : ''}`,
    });
  }
  return rows;
}
