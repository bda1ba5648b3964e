/**
 * Figure 3: `for await (const sim of client.sims.list({ pageSize: 100 }))` over every SIM of the
 * bench server's slow listener (each page answered after a few ms, like a real API), the consumer
 * doing a little work per SIM, against a hand-written sequential loop of raw undici page requests
 * doing the same work. Prefetching lets the next page travel while the consumer works. Heap growth
 * is sampled once per page against the heap after a full gc().
 */
import { request } from 'undici';
import { BENCH_KEY, BENCH_SECRET, BENCH_TOKEN } from '../lib/sims.js';
import { loadClient, UNREACHED_RATE_LIMIT } from '../lib/client.js';
import type { FigureConfig } from '../lib/figure.js';
import { type Row, skippedRow } from '../lib/report.js';
import { collectGarbage, median, rotate } from '../lib/stats.js';

const PAGE_SIZE = 100;
const MB = 2 ** 20;

let checksum = 0;

/** The consumer's per-SIM work: hashing a few fields `rounds` times (FNV-1a), a stand-in for real mapping code. */
function consume(sim: Record<string, unknown>, rounds: number): void {
  const text = `${String(sim.iccid)}|${String(sim.phoneNumber)}|${String(sim.status)}`;
  let hash = 0x811c9dc5;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  }
  checksum = (checksum + hash) | 0;
}

/** Rounds of hashing that make one SIM's work take about `targetMicros`. */
function calibrate(targetMicros: number): number {
  const sample = { iccid: '8901410300000000042', phoneNumber: '+14150000042', status: 'ACTIVE' };
  let rounds = 16;
  for (;;) {
    const start = performance.now();
    for (let i = 0; i < 2_000; i++) consume(sample, rounds);
    const micros = ((performance.now() - start) * 1000) / 2_000;
    if (micros >= targetMicros * 0.2 || rounds > 1e6) return Math.max(1, Math.round((rounds * targetMicros) / micros));
    rounds *= 4;
  }
}

interface Pass {
  wallMs: number;
  peakHeapGrowthMb: number;
  items: number;
}

async function measurePass(walk: (onItem: (sim: Record<string, unknown>) => void) => Promise<void>, rounds: number): Promise<Pass> {
  collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  let peak = heapBefore;
  let items = 0;
  const start = performance.now();
  await walk((sim) => {
    consume(sim, rounds);
    if (++items % PAGE_SIZE === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
  });
  const wallMs = performance.now() - start;
  return { wallMs, peakHeapGrowthMb: (peak - heapBefore) / MB, items };
}

export async function measure(config: FigureConfig): Promise<Row[]> {
  const total = config.paginationTotal;
  const perPageWorkMs = config.pageLatencyMs;
  const rounds = calibrate((perPageWorkMs * 1000) / PAGE_SIZE);
  const repeats = config.quick ? 1 : 3;
  const headers = { authorization: `Bearer ${BENCH_TOKEN}`, accept: 'application/json' };

  const walks: Record<string, (onItem: (sim: Record<string, unknown>) => void) => Promise<void>> = {
    sequential: async (onItem) => {
      for (let page = 1; ; page++) {
        const { body } = await request(`${config.pagedUrl}/api/v1.1/sims?page=${page}&pageSize=${PAGE_SIZE}`, { headers });
        const parsed = JSON.parse(await body.text()) as { data: Record<string, unknown>[]; meta: { totalPages: number } };
        for (const sim of parsed.data) onItem(sim);
        if (page >= parsed.meta.totalPages) break;
      }
    },
  };

  const loaded = await loadClient();
  let problem = loaded.ok ? undefined : loaded.reason;
  let close = async (): Promise<void> => {};
  if (loaded.ok) {
    const client = new loaded.value({ baseUrl: config.pagedUrl, key: BENCH_KEY, secret: BENCH_SECRET, rateLimit: UNREACHED_RATE_LIMIT });
    close = () => client.close();
    try {
      const page = await client.sims.list({ pageSize: PAGE_SIZE });
      if (page.data.length !== PAGE_SIZE) throw new Error(`first page has ${page.data.length} SIMs`);
      walks.client = async (onItem) => {
        for await (const sim of client.sims.list({ pageSize: PAGE_SIZE })) onItem(sim);
      };
    } catch (error) {
      problem = `sims.list pagination fails (${(error as Error).name}: ${(error as Error).message.split('\n')[0]})`;
    }
  }

  const names = Object.keys(walks);
  const passes: Record<string, Pass[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let repeat = 0; repeat < repeats; repeat++) {
    for (const name of rotate(names, repeat)) {
      const pass = await measurePass(walks[name] as Parameters<typeof measurePass>[0], rounds);
      if (pass.items !== total) throw new Error(`${name} walked ${pass.items} SIMs instead of ${total}`);
      passes[name]?.push(pass);
    }
  }
  await close();

  const sequentialMs = median((passes.sequential ?? []).map((pass) => pass.wallMs));
  const sequentialHeap = median((passes.sequential ?? []).map((pass) => pass.peakHeapGrowthMb));
  const figure = `3. for await over ${total.toLocaleString('en-US')} SIMs (pageSize 100)`;
  const setting = `server answers each page after ${config.pageLatencyMs} ms; consumer works ~${perPageWorkMs} ms per page (${rounds} hash rounds per SIM)`;
  if (!passes.client?.length) {
    const reason = problem ?? 'client not measured';
    return [
      skippedRow('pagination.time', `${figure}, wall time`, '≤ 0.8', reason, {
        value: sequentialMs,
        unit: 'ms',
        label: 'sequential raw undici loop',
      }),
      skippedRow('pagination.heap', `${figure}, peak heap growth`, '< 32 MB', reason, {
        value: sequentialHeap,
        unit: 'MB',
        label: 'sequential raw undici loop',
      }),
    ];
  }
  const clientMs = median(passes.client.map((pass) => pass.wallMs));
  const clientHeap = Math.max(...passes.client.map((pass) => pass.peakHeapGrowthMb));
  return [
    {
      id: 'pagination.time',
      figure: `${figure}, wall time`,
      value: clientMs,
      baseline: sequentialMs,
      unit: 'ms',
      baselineLabel: 'sequential raw undici loop',
      ratio: clientMs / sequentialMs,
      goal: '≤ 0.8',
      met: clientMs / sequentialMs <= 0.8,
      note: setting,
    },
    {
      id: 'pagination.heap',
      figure: `${figure}, peak heap growth`,
      value: clientHeap,
      baseline: sequentialHeap,
      unit: 'MB',
      baselineLabel: 'sequential raw undici loop',
      ratio: clientHeap / sequentialHeap,
      goal: '< 32 MB',
      met: clientHeap < 32,
      note: 'worst of the repeats for the client; heapUsed sampled once per page against the heap after gc()',
    },
  ];
}
