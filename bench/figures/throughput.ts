/**
 * Figure 1: one page of 20 SIMs per call (`client.sims.list({ pageSize: 20 })`, validation on)
 * against raw `undici.request` + `JSON.parse` (the limit) and global `fetch` + `res.json()`
 * (the ceiling of any fetch-based SDK), at concurrency 1 and 50; and the client's CPU per call
 * with one pass-through middleware against the client without any.
 */
import { request } from 'undici';
import { BENCH_KEY, BENCH_SECRET, simListRounds } from '../lib/sims.js';
import { type BenchClient, loadClient, UNREACHED_RATE_LIMIT } from '../lib/client.js';
import type { FigureConfig } from '../lib/figure.js';
import { type Row, skippedRow } from '../lib/report.js';
import { callsPerSecond, median, rotate } from '../lib/stats.js';

const CONCURRENCIES = [1, 50] as const;
/**
 * Slice pairs of the middleware CPU ratio: many short ones, so a busy neighbour hits both sides
 * alike. The client against itself over 60 pairs gave medians from 0.97 to 1.01 on a shared
 * two-core machine; 120 pairs narrow that spread by about √2, for a goal 5 % wide.
 */
const PAIRS = 120;
const SLICE_MS = 150;

/**
 * CPU per call of `over` against `under`, the two run in short slices back to back, in turn first
 * (ABBA), with the ratio taken within each pair: on a shared machine a neighbour's burst lands on
 * both sides of a pair, where 1 s rounds of four variants would give it to one. Median of the pairs.
 */
async function pairedCpuRatio(
  over: () => Promise<unknown>,
  under: () => Promise<unknown>,
  concurrency: number,
  pairs: number,
  warmupMs: number,
): Promise<number> {
  await callsPerSecond(over, concurrency, warmupMs);
  await callsPerSecond(under, concurrency, warmupMs);
  const ratios: number[] = [];
  for (let pair = 0; pair < pairs; pair++) {
    const first = pair % 2 === 0 ? over : under;
    const second = first === over ? under : over;
    const a = await callsPerSecond(first, concurrency, SLICE_MS);
    const b = await callsPerSecond(second, concurrency, SLICE_MS);
    const [overCpu, underCpu] = first === over ? [a, b] : [b, a];
    ratios.push(overCpu.cpuMicrosPerCall / underCpu.cpuMicrosPerCall);
  }
  return median(ratios);
}

export async function measure(config: FigureConfig): Promise<Row[]> {
  const { durationMs, warmupMs, rounds, url, headers } = simListRounds(config);
  let sink = 0;

  const variants: Record<string, () => Promise<unknown>> = {
    undici: async () => {
      const { body } = await request(url, { headers });
      const parsed = JSON.parse(await body.text()) as { data: unknown[] };
      sink += parsed.data.length;
    },
    fetch: async () => {
      const res = await fetch(url, { headers });
      const parsed = (await res.json()) as { data: unknown[] };
      sink += parsed.data.length;
    },
  };

  const loaded = await loadClient();
  let client: BenchClient | undefined;
  let withMiddleware: BenchClient | undefined;
  let clientProblem = loaded.ok ? undefined : loaded.reason;
  if (loaded.ok) {
    client = new loaded.value({ baseUrl: config.apiUrl, key: BENCH_KEY, secret: BENCH_SECRET, rateLimit: UNREACHED_RATE_LIMIT });
    const sims = client.sims;
    try {
      const page = await sims.list({ pageSize: 20 });
      if (page.data.length !== 20) clientProblem = `sims.list gave ${page.data.length} items instead of 20`;
    } catch (error) {
      clientProblem = `sims.list fails (${(error as Error).name}: ${(error as Error).message.split('\n')[0]})`;
    }
    if (!clientProblem) {
      variants.client = async () => {
        const page = await sims.list({ pageSize: 20 });
        sink += page.data.length;
      };
      // The lightest middleware there is: what a partner's pass-through costs on top of the client.
      try {
        withMiddleware = new loaded.value({
          baseUrl: config.apiUrl,
          key: BENCH_KEY,
          secret: BENCH_SECRET,
          rateLimit: UNREACHED_RATE_LIMIT,
          middleware: [(request, next) => next(request)],
        });
        const passing = withMiddleware.sims;
        if ((await passing.list({ pageSize: 20 })).data.length === 20) {
          variants['client+middleware'] = async () => {
            const page = await passing.list({ pageSize: 20 });
            sink += page.data.length;
          };
        }
      } catch {
        // A build without middleware: the row says so.
      }
    }
  }

  const names = Object.keys(variants);
  const results: Record<string, Record<number, number>> = {};
  const cpu: Record<string, Record<number, number>> = {};
  const ratios: Record<string, Record<number, number>> = {};
  for (const concurrency of CONCURRENCIES) {
    for (const name of names) await callsPerSecond(variants[name] as () => Promise<unknown>, concurrency, warmupMs);
    const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
    const cpuSamples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const name of rotate(names, round)) {
        const rate = await callsPerSecond(variants[name] as () => Promise<unknown>, concurrency, durationMs);
        samples[name]?.push(rate.perSecond);
        cpuSamples[name]?.push(rate.cpuMicrosPerCall);
      }
    }
    for (const name of names) {
      (results[name] ??= {})[concurrency] = median(samples[name] ?? []);
      (cpu[name] ??= {})[concurrency] = median(cpuSamples[name] ?? []);
    }
    const perRound = (over: string, under: string): number =>
      median((samples[over] ?? []).map((rate, round) => rate / (samples[under]?.[round] ?? Number.NaN)));
    (ratios['client/undici'] ??= {})[concurrency] = perRound('client', 'undici');
    (ratios['client/fetch'] ??= {})[concurrency] = perRound('client', 'fetch');
    (ratios['fetch/undici'] ??= {})[concurrency] = perRound('fetch', 'undici');
    const plainCall = variants['client'];
    const middlewareCall = variants['client+middleware'];
    if (plainCall && middlewareCall) {
      (ratios['middleware-cpu'] ??= {})[concurrency] = await pairedCpuRatio(
        middlewareCall,
        plainCall,
        concurrency,
        config.quick ? 4 : PAIRS,
        warmupMs,
      );
    }
  }
  await client?.close();
  await withMiddleware?.close();
  if (sink === 0) throw new Error('no SIM was read');

  const rows: Row[] = [];
  for (const concurrency of CONCURRENCIES) {
    const undiciRate = results.undici?.[concurrency] ?? Number.NaN;
    const fetchRate = results.fetch?.[concurrency] ?? Number.NaN;
    const clientRate = results.client?.[concurrency];
    const cpuNote =
      `ratio = median over ${rounds} rounds of the ratio within each round; values are median rates. ` +
      `CPU of the calling process per call: ${names.map((name) => `${name} ${(cpu[name]?.[concurrency] ?? Number.NaN).toFixed(0)} µs`).join(', ')}`;
    const id = `throughput.c${concurrency}`;
    const figure = `1. sims.list(20) req/s, concurrency ${concurrency}`;
    if (clientRate === undefined) {
      const reason = clientProblem ?? 'client not measured';
      rows.push(
        skippedRow(`${id}.vs-undici`, `${figure} vs undici`, '≥ 0.85', reason, {
          value: undiciRate,
          unit: 'req/s',
          label: 'undici.request + JSON.parse',
        }),
      );
      rows.push(
        skippedRow(`${id}.vs-fetch`, `${figure} vs fetch`, '≥ 1.5', reason, { value: fetchRate, unit: 'req/s', label: 'fetch + res.json()' }),
      );
    } else {
      const vsUndici = ratios['client/undici']?.[concurrency] ?? Number.NaN;
      const vsFetch = ratios['client/fetch']?.[concurrency] ?? Number.NaN;
      rows.push({
        id: `${id}.vs-undici`,
        figure: `${figure} vs undici`,
        value: clientRate,
        baseline: undiciRate,
        unit: 'req/s',
        baselineLabel: 'undici.request + JSON.parse',
        ratio: vsUndici,
        goal: '≥ 0.85',
        met: vsUndici >= 0.85,
        note: cpuNote,
      });
      rows.push({
        id: `${id}.vs-fetch`,
        figure: `${figure} vs fetch`,
        value: clientRate,
        baseline: fetchRate,
        unit: 'req/s',
        baselineLabel: 'fetch + res.json()',
        ratio: vsFetch,
        goal: '≥ 1.5',
        met: vsFetch >= 1.5,
      });
    }
    const middlewareCpu = cpu['client+middleware']?.[concurrency];
    if (middlewareCpu === undefined) {
      rows.push(
        skippedRow(
          `${id}.middleware-cpu`,
          `1. one pass-through middleware, concurrency ${concurrency}: CPU per call`,
          '≤ 1.05',
          'this build has no middleware option',
        ),
      );
    } else {
      const ratio = ratios['middleware-cpu']?.[concurrency] ?? Number.NaN;
      rows.push({
        id: `${id}.middleware-cpu`,
        figure: `1. one pass-through middleware, concurrency ${concurrency}: CPU per call`,
        value: middlewareCpu,
        baseline: cpu['client']?.[concurrency] ?? Number.NaN,
        unit: 'µs',
        baselineLabel: 'the client without middleware',
        ratio,
        goal: '≤ 1.05',
        met: ratio <= 1.05,
        note: `ratio = median over ${config.quick ? 4 : PAIRS} pairs of ${SLICE_MS} ms slices, the two run back to back in turn first, of the ratio of CPU per call within each pair; values are the medians of the rounds above`,
      });
    }
    rows.push({
      id: `${id}.fetch-vs-undici`,
      figure: `   reference: fetch vs undici, concurrency ${concurrency}`,
      value: fetchRate,
      baseline: undiciRate,
      unit: 'req/s',
      baselineLabel: 'undici.request + JSON.parse',
      ratio: ratios['fetch/undici']?.[concurrency] ?? Number.NaN,
      goal: '—',
      met: null,
    });
  }
  return rows;
}
