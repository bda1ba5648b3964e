/**
 * Figure 2: microseconds per call of everything above the wire (auth, limiter, retry wrapper,
 * envelope, schema), with a transport that answers at once in-process: the client's `fetch`
 * option gets a function answering with a prebuilt `Response`; the baseline calls the same
 * function directly and parses the JSON. (An undici MockAgent as `dispatcher` was tried for the
 * default path: its own cost, several times ours and unsteady, hid the difference. The default
 * path's overhead shows in figure 1's CPU time per call instead.) Both are CPU-bound and
 * sequential, so the figure is CPU time per call (process.cpuUsage), which stays meaningful on a
 * machine other processes are loading; wall time is noted beside it.
 */
import { BENCH_KEY, BENCH_SECRET, BENCH_TOKEN, simPageBody, tokenBody } from '../lib/sims.js';
import { loadClient, UNREACHED_RATE_LIMIT } from '../lib/client.js';
import type { FigureConfig } from '../lib/figure.js';
import { type Row, skippedRow } from '../lib/report.js';
import { median, rotate, timeSequential } from '../lib/stats.js';

const BASE_URL = 'http://127.0.0.1:9';

export async function measure(config: FigureConfig): Promise<Row[]> {
  const pageBody = simPageBody(1, 20, 100_000);
  const pageHeaders = {
    'content-type': 'application/json; charset=utf-8',
    'x-ratelimit-limit': '1000000000',
    'x-ratelimit-remaining': '999999999',
    'x-ratelimit-reset': '60',
  };
  const token = tokenBody();

  // The in-process "wire": a new Response per call (a body can be read once), nothing else.
  const instantFetch = async (input: string | URL | Request, _init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.endsWith('/api/v1.1/auth/token')) {
      return new Response(token, { status: 200, headers: { 'content-type': 'application/json' } });
    }
    return new Response(pageBody, { status: 200, headers: pageHeaders });
  };

  const url = `${BASE_URL}/api/v1.1/sims?pageSize=20`;
  const headers = { authorization: `Bearer ${BENCH_TOKEN}` };
  return [
    await measurePair(config, {
      id: 'overhead.fetch',
      figure: '2. per-call CPU, fetch option answering in-process (µs/call)',
      baselineLabel: 'same fetch + res.json()',
      direct: async () => ((await (await instantFetch(url, { headers })).json()) as { data: unknown[] }).data.length,
      clientOptions: { fetch: instantFetch },
    }),
  ];
}

interface Pair {
  id: string;
  figure: string;
  baselineLabel: string;
  /** The baseline call; returns how many SIMs it read. */
  direct: () => Promise<number>;
  clientOptions: { fetch?: typeof globalThis.fetch };
}

async function measurePair(config: FigureConfig, pair: Pair): Promise<Row> {
  const calls = config.quick ? 1_000 : 20_000;
  const warmup = config.quick ? 500 : 5_000;
  const rounds = config.quick ? 3 : 5;
  let sink = 0;
  const variants: Record<string, () => Promise<unknown>> = {
    direct: async () => {
      sink += await pair.direct();
    },
  };

  const loaded = await loadClient();
  let problem = loaded.ok ? undefined : loaded.reason;
  let close = async (): Promise<void> => {};
  if (loaded.ok) {
    const client = new loaded.value({
      baseUrl: BASE_URL,
      key: BENCH_KEY,
      secret: BENCH_SECRET,
      ...pair.clientOptions,
      rateLimit: UNREACHED_RATE_LIMIT,
    });
    close = () => client.close();
    try {
      await client.sims.list({ pageSize: 20 });
      variants.client = async () => {
        sink += (await client.sims.list({ pageSize: 20 })).data.length;
      };
    } catch (error) {
      problem = `sims.list fails (${(error as Error).name}: ${(error as Error).message.split('\n')[0]})`;
    }
  }

  const names = Object.keys(variants);
  for (const name of names) await timeSequential(variants[name] as () => Promise<unknown>, warmup);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  const wall: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const name of rotate(names, round)) {
      const measured = await timeSequential(variants[name] as () => Promise<unknown>, calls);
      samples[name]?.push(measured.cpuMicrosPerCall);
      wall[name]?.push(measured.wallMicrosPerCall);
    }
  }
  await close();
  if (sink === 0) throw new Error('no SIM was read');

  const direct = median(samples.direct ?? []);
  const baselineCell = { value: direct, unit: 'µs', label: pair.baselineLabel };
  if (!samples.client) return skippedRow(pair.id, pair.figure, 'report', problem ?? 'client not measured', baselineCell);
  const client = median(samples.client);
  return {
    id: pair.id,
    figure: pair.figure,
    value: client,
    baseline: direct,
    unit: 'µs',
    baselineLabel: pair.baselineLabel,
    ratio: client / direct,
    goal: 'report',
    met: null,
    note:
      `above-the-wire overhead ${(client - direct).toFixed(1)} µs of CPU per call (auth, limiter, retry, envelope, schema of 20 SIMs); ` +
      `wall time per call ${median(wall.client ?? []).toFixed(1)} µs vs ${median(wall.direct ?? []).toFixed(1)} µs`,
  };
}
