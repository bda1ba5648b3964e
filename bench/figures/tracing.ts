/**
 * Figure 10: what OpenTelemetry tracing costs. `client.sims.list({ pageSize: 20 })` against raw
 * `undici.request` + `JSON.parse` (as figure 1), at concurrency 1 and 50, against these:
 *
 * - undici-traced: raw undici with the tracing globals below registered and the context manager
 *   started (it makes no span, but the context manager's async hooks run for its promises as for
 *   any in a traced process);
 * - absent: no provider registered and no trace of the API's global (as in an application that
 *   never installed @opentelemetry/api);
 * - enabled: an AsyncLocalStorage context manager and a tracer provider with a batch processor
 *   exporting to memory, registered globally (one span per call: attempts and waits become
 *   child spans only when a call retries or waits, which none does here);
 * - before: when BENCH_BASELINE_DIST_DIR names another build (the commit before tracing, built
 *   with `npx tsup --out-dir <dir> --no-dts`), its client in the absent state, for the
 *   absent-path goal (≥ 0.98 of it) measured in the same run.
 *
 * Rounds rotate the variants and each round registers or removes the globals before each
 * variant, so every ratio compares variants measured seconds apart.
 */
import path from 'node:path';
import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { request } from 'undici';
import { type BenchClient, loadClient, loadClientFrom, UNREACHED_RATE_LIMIT } from '../lib/client.js';
import type { FigureConfig } from '../lib/figure.js';
import { type Row, skippedRow } from '../lib/report.js';
import { BENCH_KEY, BENCH_SECRET, simListRounds } from '../lib/sims.js';
import { callsPerSecond, median, type Rate, rotate } from '../lib/stats.js';

const CONCURRENCIES = [1, 50] as const;
/** Where @opentelemetry/api keeps its registered providers. */
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

const exporter = new InMemorySpanExporter();
// A queue no run fills, so every span is exported rather than dropped.
const processor = new BatchSpanProcessor(exporter, { maxQueueSize: 65_536, maxExportBatchSize: 4_096, scheduledDelayMillis: 100 });
const provider = new BasicTracerProvider({ spanProcessors: [processor] });
const contextManager = new AsyncLocalStorageContextManager();
let exported = 0;

/**
 * Registers the globals as a traced application has them. Node's AsyncLocalStorage starts its
 * async hooks at its first `run()`, which in such an application the server's instrumentation
 * makes for every request it serves: one `context.with` here does the same, so raw undici in
 * the traced state pays those hooks as it would there (and the client's first call is not the
 * one that starts them).
 */
function registerTracing(): void {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(provider);
  context.with(ROOT_CONTEXT, () => undefined);
}

async function removeTracing(): Promise<void> {
  await processor.forceFlush();
  exported += exporter.getFinishedSpans().length;
  exporter.reset();
  trace.disable();
  context.disable();
  delete (globalThis as { [API_GLOBAL]?: unknown })[API_GLOBAL];
}

async function clientOf(loaded: Awaited<ReturnType<typeof loadClient>>, apiUrl: string): Promise<BenchClient | string> {
  if (!loaded.ok) return loaded.reason;
  const client = new loaded.value({ baseUrl: apiUrl, key: BENCH_KEY, secret: BENCH_SECRET, rateLimit: UNREACHED_RATE_LIMIT });
  try {
    const page = await client.sims.list({ pageSize: 20 });
    return page.data.length === 20 ? client : `sims.list gave ${page.data.length} items instead of 20`;
  } catch (error) {
    return `sims.list fails (${(error as Error).name}: ${(error as Error).message.split('\n')[0]})`;
  }
}

export async function measure(config: FigureConfig): Promise<Row[]> {
  const { durationMs, warmupMs, rounds, url, headers } = simListRounds(config);
  let sink = 0;

  await removeTracing();
  const current = await clientOf(await loadClient(), config.apiUrl);
  if (typeof current === 'string') return [skippedRow('tracing', '10. tracing', '—', current)];
  const baselineDir = process.env.BENCH_BASELINE_DIST_DIR;
  const before = baselineDir
    ? await clientOf(await loadClientFrom(path.resolve(baselineDir, 'index.js'), `${baselineDir}/index.js`), config.apiUrl)
    : 'BENCH_BASELINE_DIST_DIR not set: build the commit before tracing with `npx tsup --out-dir <dir> --no-dts` and name it';

  const list = (client: BenchClient) => async (): Promise<void> => {
    sink += (await client.sims.list({ pageSize: 20 })).data.length;
  };
  const rawUndici = async (): Promise<void> => {
    const { body } = await request(url, { headers });
    sink += (JSON.parse(await body.text()) as { data: unknown[] }).data.length;
  };
  const variants: Record<string, { run: () => Promise<unknown>; traced: boolean }> = {
    undici: { run: rawUndici, traced: false },
    // Raw undici in the traced process: what the partner's context manager costs any request.
    'undici-traced': { run: rawUndici, traced: true },
    absent: { run: list(current), traced: false },
    enabled: { run: list(current), traced: true },
  };
  if (typeof before !== 'string') variants.before = { run: list(before), traced: false };
  const names = Object.keys(variants);

  const timed = async (name: string, concurrency: number, ms: number): Promise<Rate> => {
    const variant = variants[name] as { run: () => Promise<unknown>; traced: boolean };
    if (variant.traced) registerTracing();
    try {
      return await callsPerSecond(variant.run, concurrency, ms);
    } finally {
      if (variant.traced) await removeTracing();
    }
  };

  const rows: Row[] = [];
  for (const concurrency of CONCURRENCIES) {
    for (const name of names) await timed(name, concurrency, warmupMs);
    const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
    const cpu: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const name of rotate(names, round)) {
        const measured = await timed(name, concurrency, durationMs);
        samples[name]?.push(measured.perSecond);
        cpu[name]?.push(measured.cpuMicrosPerCall);
      }
    }
    const rate = (name: string): number => median(samples[name] ?? []);
    const ratio = (over: string, under: string): number =>
      median((samples[over] ?? []).map((value, round) => value / (samples[under]?.[round] ?? Number.NaN)));
    const figure = `10. tracing, sims.list(20) req/s, concurrency ${concurrency}`;
    const cpuNote = names.map((name) => `${name} ${median(cpu[name] ?? []).toFixed(0)} µs`).join(', ');
    const note =
      `ratio = median over ${rounds} rounds of the ratio within each round; enabled vs absent ${ratio('enabled', 'absent').toFixed(3)}; ` +
      `CPU of the calling process per call: ${cpuNote}`;
    const enabled = ratio('enabled', 'undici');
    rows.push({
      id: `tracing.c${concurrency}.enabled-vs-undici`,
      figure: `${figure}, tracing enabled vs undici`,
      value: rate('enabled'),
      baseline: rate('undici'),
      unit: 'req/s',
      baselineLabel: 'undici.request + JSON.parse',
      ratio: enabled,
      goal: '≥ 0.8',
      met: enabled >= 0.8,
      note: `${note}; spans to an in-memory exporter through a batch processor`,
    });
    rows.push({
      id: `tracing.c${concurrency}.absent-vs-undici`,
      figure: `${figure}, api absent vs undici`,
      value: rate('absent'),
      baseline: rate('undici'),
      unit: 'req/s',
      baselineLabel: 'undici.request + JSON.parse',
      ratio: ratio('absent', 'undici'),
      goal: '—',
      met: null,
      note,
    });
    rows.push({
      id: `tracing.c${concurrency}.enabled-vs-undici-traced`,
      figure: `${figure}, tracing enabled vs undici in the same traced process`,
      value: rate('enabled'),
      baseline: rate('undici-traced'),
      unit: 'req/s',
      baselineLabel: 'undici.request + JSON.parse, context manager and provider registered',
      ratio: ratio('enabled', 'undici-traced'),
      goal: '—',
      met: null,
      note: `${note}; the baseline pays the context manager's async hooks too, so the ratio is the SDK's tracing alone`,
    });
    const absentVsBefore = `tracing.c${concurrency}.absent-vs-before`;
    if (typeof before === 'string') {
      rows.push(skippedRow(absentVsBefore, `${figure}, api absent vs the build before`, '≥ 0.98', before));
    } else {
      const versus = ratio('absent', 'before');
      rows.push({
        id: absentVsBefore,
        figure: `${figure}, api absent vs the build before`,
        value: rate('absent'),
        baseline: rate('before'),
        unit: 'req/s',
        baselineLabel: `the build in ${baselineDir}`,
        ratio: versus,
        goal: '≥ 0.98',
        met: versus >= 0.98,
      });
    }
  }
  await current.close();
  if (typeof before !== 'string') await before.close();
  if (sink === 0) throw new Error('no SIM was read');
  if (exported === 0) throw new Error('tracing was enabled but no span was exported');
  return rows;
}
