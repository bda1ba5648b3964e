/**
 * Figure 2: microseconds per call of everything above the wire (auth, limiter, retry wrapper,
 * envelope, schema). The client's `fetch` option gets a function that answers at once with a
 * prebuilt body; the baseline calls the same function directly and parses the JSON. Both are
 * CPU-bound and sequential, so the figure is CPU time per call (process.cpuUsage), which stays
 * meaningful on a machine other processes are loading; wall time per call is noted beside it.
 */
import { BENCH_KEY, BENCH_SECRET, BENCH_TOKEN, simPageBody, tokenBody } from '../lib/sims.js';
import { loadClient, UNREACHED_RATE_LIMIT } from '../lib/client.js';
import type { FigureConfig } from '../lib/figure.js';
import { type Row, skippedRow } from '../lib/report.js';
import { cpuMicrosSequential, median, rotate, timeSequential } from '../lib/stats.js';

const BASE_URL = 'http://127.0.0.1:9';

export async function measure(config: FigureConfig): Promise<Row[]> {
  const calls = config.quick ? 1_000 : 20_000;
  const warmup = config.quick ? 500 : 5_000;
  const rounds = config.quick ? 1 : 3;
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

  let sink = 0;
  const url = `${BASE_URL}/api/v1.1/sims?pageSize=20`;
  const init = { headers: { authorization: `Bearer ${BENCH_TOKEN}` } };
  const variants: Record<string, () => Promise<unknown>> = {
    direct: async () => {
      const res = await instantFetch(url, init);
      sink += ((await res.json()) as { data: unknown[] }).data.length;
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
      fetch: instantFetch as typeof globalThis.fetch,
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
      const fn = variants[name] as () => Promise<unknown>;
      samples[name]?.push(await cpuMicrosSequential(fn, calls));
      wall[name]?.push(((await timeSequential(fn, calls)) * 1000) / calls);
    }
  }
  await close();
  if (sink === 0) throw new Error('no SIM was read');

  const direct = median(samples.direct ?? []);
  const figure = '2. per-call CPU, in-process fetch (µs/call)';
  const baselineCell = { value: direct, unit: 'µs', label: 'same fetch + res.json()' };
  if (!samples.client) return [skippedRow('overhead', figure, 'report', problem ?? 'client not measured', baselineCell)];
  const client = median(samples.client);
  return [
    {
      id: 'overhead',
      figure,
      value: client,
      baseline: direct,
      unit: 'µs',
      baselineLabel: 'same fetch + res.json()',
      ratio: client / direct,
      goal: 'report',
      met: null,
      note:
        `above-the-wire overhead ${(client - direct).toFixed(1)} µs of CPU per call (auth, limiter, retry, envelope, schema of 20 SIMs); ` +
        `wall time per call ${median(wall.client ?? []).toFixed(1)} µs vs ${median(wall.direct ?? []).toFixed(1)} µs`,
    },
  ];
}
