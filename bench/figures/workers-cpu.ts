/**
 * Figure 12: CPU per call of the client inside workerd, where zod cannot compile its parsers
 * (`new Function` is refused there, so every object is checked on zod's slower path), against a
 * plain `fetch` + `JSON.parse` of the same answer in the same Worker. The Worker is bundled from
 * the build under test by esbuild under the `workerd` condition and run by miniflare, as the
 * integration tier runs it (test/runtimes/bundled/workers.test.ts); it calls a server of this
 * process on 127.0.0.1. CPU is workerd's own (every thread of the process, from /proc/<pid>/task/
 * * /schedstat, in nanoseconds), so neither this process nor the server counts; each sample is one
 * request to the Worker making `count` calls in a row, divided by `count`. Rows:
 *
 * a. a page of 100 SIMs, `client.sims.list({ pageSize: 100 })`, against fetch + JSON.parse;
 * b. a single object, `client.sims.retrieveSubscription(iccid)`, against fetch + JSON.parse.
 *
 * The notes give the client with `validateResponses: 'off'` too: the difference is what checking
 * the answer costs there.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { partnerApp } from '../lib/worker-app.js';
import { WORKERD_RESOLUTION } from '../../test/helpers/worker-bundle.js';
import type { FigureConfig } from '../lib/figure.js';
import { type Row, skippedRow } from '../lib/report.js';
import { BENCH_KEY, BENCH_SECRET, BENCH_TOKEN, simPageBody, tokenBody } from '../lib/sims.js';
import { median, rotate } from '../lib/stats.js';

const ICCID = '8901410300000000001';
const SUBSCRIPTION = JSON.stringify({
  success: true,
  data: {
    iccid: ICCID,
    productName: 'Unlimited EU 30 days',
    status: 'ACTIVE',
    startDate: '2026-01-01T00:00:00.000Z',
    endDate: null,
    autoTopUp: true,
    operator: 'Telefonica',
    network: 'Movistar ES',
    planCode: 'EU-UNL-30',
    scheduledDate: null,
    orderId: 'ord_0001',
  },
  meta: { timezone: 'UTC' },
});

/** The Worker: `{ variant, shape, count, baseUrl }` in, `{ read }` (items read) out. */
const WORKER = `import { PartnerClient } from 'mobile-partner-sdk';
const clients = new Map();
function clientFor(baseUrl, validateResponses) {
  const key = baseUrl + validateResponses;
  let client = clients.get(key);
  if (!client) {
    client = new PartnerClient({ baseUrl, key: ${JSON.stringify(BENCH_KEY)}, secret: ${JSON.stringify(BENCH_SECRET)}, validateResponses, maxRetries: 0, rateLimit: { account: { limit: 1e9, windowMs: 60000 } } });
    clients.set(key, client);
  }
  return client;
}
const headers = { authorization: 'Bearer ${BENCH_TOKEN}', accept: 'application/json' };
export default {
  async fetch(request) {
    const { variant, shape, count, baseUrl } = await request.json();
    const url = shape === 'page' ? baseUrl + '/api/v1.1/sims?pageSize=100' : baseUrl + '/api/v1.1/sims/${ICCID}/subscription';
    let read = 0;
    if (variant === 'raw') {
      for (let i = 0; i < count; i++) {
        const response = await fetch(url, { headers });
        const body = JSON.parse(await response.text());
        read += shape === 'page' ? body.data.length : body.data.iccid === '${ICCID}' ? 1 : 0;
      }
    } else {
      const client = clientFor(baseUrl, variant === 'client' ? 'strict' : 'off');
      for (let i = 0; i < count; i++) {
        if (shape === 'page') read += (await client.sims.list({ pageSize: 100 })).data.length;
        else read += (await client.sims.retrieveSubscription('${ICCID}')).iccid === '${ICCID}' ? 1 : 0;
      }
    }
    return Response.json({ read });
  },
};
`;

type Variant = 'raw' | 'client' | 'client-unvalidated';
type Shape = 'page' | 'one';
const VARIANTS: Variant[] = ['raw', 'client', 'client-unvalidated'];

function startServer(): Promise<{ url: string; close(): Promise<void> }> {
  const page = Buffer.from(simPageBody(1, 100, 100));
  const one = Buffer.from(SUBSCRIPTION);
  const token = Buffer.from(tokenBody());
  const server = http.createServer((req, res) => {
    req.resume();
    const url = req.url ?? '/';
    const body = req.method === 'POST' ? token : url.startsWith('/api/v1.1/sims?') ? page : url.endsWith('/subscription') ? one : undefined;
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': body.length,
      'x-ratelimit-limit': 1_000_000_000,
      'x-ratelimit-remaining': 999_999_999,
      'x-ratelimit-reset': 60,
    });
    res.end(body);
  });
  server.keepAliveTimeout = 120_000;
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** The Worker's script: the build under test resolved by its workerd condition, as wrangler would. */
async function bundleWorker(dir: string): Promise<string> {
  writeFileSync(path.join(dir, 'worker.mjs'), WORKER);
  const script = path.join(dir, 'out', 'worker.js');
  await build({ ...WORKERD_RESOLUTION, entryPoints: [path.join(dir, 'worker.mjs')], outfile: script });
  return script;
}

/** The workerd process miniflare started: a child of this process. */
function workerdPid(): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (stat.includes('(workerd)') && Number(fields[1]) === process.pid) return Number(entry);
    } catch {
      // Gone since listed.
    }
  }
  return undefined;
}

/** CPU time of every thread of `pid` so far, nanoseconds. */
function cpuNanos(pid: number): number {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return total;
}

export async function measure(config: FigureConfig): Promise<Row[]> {
  const titles: Record<Shape, string> = {
    page: '12a. workerd: sims.list(100), CPU per call',
    one: '12b. workerd: one object (retrieveSubscription), CPU per call',
  };
  if (!existsSync('/proc/self/task')) {
    return (['page', 'one'] as Shape[]).map((shape) => skippedRow(`workers-cpu.${shape}`, titles[shape], '—', 'needs /proc (Linux)'));
  }
  const dir = partnerApp('mps-bench-workerd-');
  const server = await startServer();
  let worker: Miniflare | undefined;
  try {
    const script = await bundleWorker(dir);
    worker = new Miniflare({
      host: '127.0.0.1',
      modules: true,
      scriptPath: script,
      modulesRoot: path.dirname(script),
      compatibilityDate: '2025-09-01',
    });
    const call = async (variant: Variant, shape: Shape, count: number): Promise<void> => {
      const response = await (worker as Miniflare).dispatchFetch('http://bench.local/', {
        method: 'POST',
        body: JSON.stringify({ variant, shape, count, baseUrl: server.url }),
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`the Worker answered ${response.status}: ${text.slice(0, 200)}`);
      const expected = count * (shape === 'page' ? 100 : 1);
      if ((JSON.parse(text) as { read: number }).read !== expected) throw new Error(`the Worker read ${text} instead of ${expected}`);
    };
    // Warm: the isolate, each client's token and schemas, V8's compiled code.
    for (const shape of ['page', 'one'] as Shape[]) for (const variant of VARIANTS) await call(variant, shape, config.quick ? 5 : 50);
    const pid = workerdPid();
    if (pid === undefined) throw new Error('no workerd process found among this process’s children');

    const rounds = config.quick ? 3 : 9;
    const counts: Record<Shape, number> = config.quick ? { page: 20, one: 100 } : { page: 200, one: 800 };
    const rows: Row[] = [];
    for (const shape of ['page', 'one'] as Shape[]) {
      const samples: Record<Variant, number[]> = { raw: [], client: [], 'client-unvalidated': [] };
      for (let round = 0; round < rounds; round++) {
        for (const variant of rotate(VARIANTS, round)) {
          const before = cpuNanos(pid);
          await call(variant, shape, counts[shape]);
          samples[variant].push((cpuNanos(pid) - before) / 1000 / counts[shape]);
        }
      }
      const perRound = (over: Variant): number => median(samples[over].map((micros, round) => micros / (samples.raw[round] ?? Number.NaN)));
      const client = median(samples.client);
      const raw = median(samples.raw);
      const unvalidated = median(samples['client-unvalidated']);
      rows.push({
        id: `workers-cpu.${shape}`,
        figure: titles[shape],
        value: client,
        baseline: raw,
        unit: 'µs',
        baselineLabel: 'fetch + JSON.parse in the same Worker',
        ratio: perRound('client'),
        goal: '—',
        met: null,
        note:
          `workerd's CPU (all threads) per call, median of ${rounds} rounds of ${counts[shape]} calls; ratio = median of the ratios within each round. ` +
          `With validateResponses: 'off' the client takes ${unvalidated.toFixed(0)} µs (${perRound('client-unvalidated').toFixed(2)} × raw): ` +
          `checking the answer is ${(client - unvalidated).toFixed(0)} µs of the ${client.toFixed(0)}. Worker script ${(gzipSync(readFileSync(script)).byteLength / 1024).toFixed(1)} KiB gzip (esbuild, not minified).`,
      });
    }
    return rows;
  } finally {
    await worker?.dispose();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
