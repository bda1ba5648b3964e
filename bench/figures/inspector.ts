/**
 * Figure 8: the sandbox inspector (GET /_sandbox/).
 *
 * a. Throughput of the sandbox (its own process, rate limiting off) for GET /api/v1.1/sims?pageSize=20
 *    at concurrency 20, with the inspector's feed open and streaming (an SSE client reading every
 *    batch, as the page does) against no watcher. Rounds alternate the two; the ratio is the median
 *    of the ratios within each round, since the load of a shared machine moves from second to second.
 * b. Heap after 100,000 logged requests (a SIM page each) against the heap once the ring buffer is
 *    full: the log keeps REQUEST_LOG_CAPACITY entries, so the two should match.
 *
 * `node --import tsx bench/figures/inspector.ts serve` is the sandbox process of part a.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Agent, request } from 'undici';
import type { FigureConfig } from '../lib/figure.js';
import { type Row, skippedRow } from '../lib/report.js';
import { callsPerSecond, median, rotate } from '../lib/stats.js';

const THIS_FILE = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(THIS_FILE), '../..');

interface SandboxLike {
  handler(request: Request): Promise<Response>;
  credentials: { key: string; secret: string };
  close(): Promise<void>;
}

interface SandboxModule {
  createSandbox: (options: Record<string, unknown>) => SandboxLike;
  startSandbox: (options: Record<string, unknown>) => Promise<SandboxLike & { url: string; key: string; secret: string }>;
}

/** The sandbox of the build under test (BENCH_DIST_DIR), src/ when none is built. */
async function loadSandbox(): Promise<SandboxModule> {
  const built = process.env.BENCH_DIST_DIR && path.join(process.env.BENCH_DIST_DIR, 'sandbox/index.cjs');
  if (built && existsSync(built)) return (await import(pathToFileURL(built).href)) as SandboxModule;
  return (await import(pathToFileURL(path.join(ROOT, 'src/sandbox/index.ts')).href)) as SandboxModule;
}

async function serve(): Promise<void> {
  const { startSandbox } = await loadSandbox();
  const sandbox = await startSandbox({ port: 0, rateLimit: false, seed: 8 });
  process.stdout.write(`${JSON.stringify({ url: sandbox.url, key: sandbox.key, secret: sandbox.secret })}\n`);
  const stop = (): void => void sandbox.close().finally(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
}

interface Served {
  url: string;
  key: string;
  secret: string;
  /** CPU seconds (user + system) the sandbox process has used; null where /proc is not there. */
  cpuSeconds(): number | null;
  stop(): Promise<void>;
}

/** utime + stime of a process from /proc (Linux), in seconds at the usual 100 ticks per second. */
function procCpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks / 100 : null;
  } catch {
    return null;
  }
}

function startServed(): Promise<Served> {
  const child = spawn(process.execPath, ['--import', 'tsx', THIS_FILE, 'serve'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the sandbox did not start within 60 s'));
    }, 60_000);
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      const info = JSON.parse(line) as { url: string; key: string; secret: string };
      resolve({
        ...info,
        cpuSeconds: () => procCpuSeconds(child.pid),
        stop: () =>
          new Promise((done) => {
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the sandbox exited with ${code}: ${stderr.trim().split('\n').slice(-3).join(' / ')}`));
    });
  });
}

/** An SSE client like the page: reads every byte of GET /_sandbox/events until stopped. */
async function watch(url: string, dispatcher: Agent): Promise<{ stop(): Promise<{ bytes: number; batches: number }> }> {
  const { body } = await request(`${url}/_sandbox/events`, { dispatcher });
  let bytes = 0;
  let batches = 0;
  body.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    batches += chunk.toString('latin1').split('event: batch').length - 1;
  });
  body.on('error', () => undefined);
  return {
    async stop() {
      body.destroy();
      // Lets the sandbox see the disconnect, so the next "closed" round has no watcher.
      await new Promise((resolve) => setTimeout(resolve, 100));
      return { bytes, batches };
    },
  };
}

async function throughput(config: FigureConfig): Promise<Row[]> {
  const durationMs = config.quick ? 300 : 1_000;
  const rounds = config.quick ? 3 : 9;
  const concurrency = 20;
  const served = await startServed();
  const dispatcher = new Agent({ connections: concurrency + 2, pipelining: 1 });
  try {
    const token = await request(`${served.url}/api/v1.1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: served.key, secret: served.secret }),
      dispatcher,
    });
    const accessToken = ((await token.body.json()) as { data: { access_token: string } }).data.access_token;
    const headers = { authorization: `Bearer ${accessToken}` };
    const call = async (): Promise<void> => {
      const { statusCode, body } = await request(`${served.url}/api/v1.1/sims?pageSize=20`, { headers, dispatcher });
      await body.text();
      if (statusCode !== 200) throw new Error(`GET /api/v1.1/sims answered ${statusCode}`);
    };
    await callsPerSecond(call, concurrency, config.quick ? 200 : 1_000);

    const samples: Record<'closed' | 'open', number[]> = { closed: [], open: [] };
    // The sandbox's own CPU per answered request: steadier than rates on a loaded machine.
    const cpu: Record<'closed' | 'open', { seconds: number; calls: number }> = { closed: { seconds: 0, calls: 0 }, open: { seconds: 0, calls: 0 } };
    let streamed = { bytes: 0, batches: 0, ms: 0 };
    for (let round = 0; round < rounds; round++) {
      for (const variant of rotate(['closed', 'open'] as const, round)) {
        const watcher = variant === 'open' ? await watch(served.url, dispatcher) : undefined;
        const cpuBefore = served.cpuSeconds();
        const rate = await callsPerSecond(call, concurrency, durationMs);
        const cpuAfter = served.cpuSeconds();
        samples[variant].push(rate.perSecond);
        if (cpuBefore !== null && cpuAfter !== null) {
          cpu[variant].seconds += cpuAfter - cpuBefore;
          cpu[variant].calls += (rate.perSecond * durationMs) / 1000;
        }
        if (watcher) {
          const seen = await watcher.stop();
          streamed = { bytes: streamed.bytes + seen.bytes, batches: streamed.batches + seen.batches, ms: streamed.ms + durationMs };
        }
      }
    }
    if (streamed.batches === 0) throw new Error('the open inspector received no batch');
    const ratio = median(samples.open.map((open, i) => open / (samples.closed[i] ?? Number.NaN)));
    const micros = (v: 'closed' | 'open'): number => (cpu[v].seconds * 1e6) / cpu[v].calls;
    const cpuNote =
      cpu.open.calls > 0 && cpu.closed.calls > 0
        ? ` Sandbox CPU per request (from /proc, 10 ms ticks summed over the rounds): open ${micros('open').toFixed(0)} µs, closed ${micros('closed').toFixed(0)} µs (closed/open ${(micros('closed') / micros('open')).toFixed(2)}).`
        : '';
    return [
      {
        id: 'inspector.throughput',
        figure: `8a. sandbox sims.list(20) req/s, inspector open vs closed (c${concurrency})`,
        value: median(samples.open),
        baseline: median(samples.closed),
        unit: 'req/s',
        baselineLabel: 'no inspector watching',
        ratio,
        goal: '≥ 0.9',
        met: ratio >= 0.9,
        note:
          `ratio = median over ${rounds} rounds of the ratio within each round. While open, the feed sent ` +
          `${(streamed.batches / (streamed.ms / 1000)).toFixed(1)} batches/s, ${(streamed.bytes / (streamed.ms / 1000) / 1024).toFixed(0)} KiB/s.${cpuNote}`,
      },
    ];
  } finally {
    await dispatcher.close();
    await served.stop();
  }
}

function heapMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

async function memory(config: FigureConfig): Promise<Row[]> {
  const total = config.quick ? 10_000 : 100_000;
  const { createSandbox } = await loadSandbox();
  // REQUEST_LOG_CAPACITY of src/sandbox/middleware/request-log.ts (not part of the package's exports).
  const capacity = 2_000;
  const sandbox = createSandbox({ rateLimit: false, seed: 8 });
  try {
    const exchange = await sandbox.handler(
      new Request('http://sandbox.bench/api/v1.1/auth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: sandbox.credentials.key, secret: sandbox.credentials.secret }),
      }),
    );
    const accessToken = ((await exchange.json()) as { data: { access_token: string } }).data.access_token;
    const headers = { authorization: `Bearer ${accessToken}` };
    const before = heapMb();
    let sent = 0;
    const send = async (until: number): Promise<void> => {
      for (; sent < until; sent++) {
        const res = await sandbox.handler(new Request(`http://sandbox.bench/api/v1.1/sims?pageSize=20&page=${(sent % 10) + 1}`, { headers }));
        await res.arrayBuffer();
      }
    };
    await send(capacity);
    const full = heapMb();
    await send(total);
    const after = heapMb();
    const ratio = (after - before) / (full - before);
    return [
      {
        id: 'inspector.memory',
        figure: `8b. heap growth after ${total.toLocaleString('en-US')} logged requests`,
        value: after - before,
        baseline: full - before,
        unit: 'MB',
        baselineLabel: `after ${capacity.toLocaleString('en-US')} (ring buffer full)`,
        ratio,
        goal: '≤ 1.2',
        met: ratio <= 1.2,
        note: `heapUsed after gc, a 20-SIM page per request; the request log keeps the newest ${capacity.toLocaleString('en-US')} entries`,
      },
    ];
  } finally {
    await sandbox.close();
  }
}

export async function measure(config: FigureConfig): Promise<Row[]> {
  const rows: Row[] = [];
  try {
    rows.push(...(await throughput(config)));
  } catch (error) {
    rows.push(
      skippedRow('inspector.throughput', '8a. sandbox throughput, inspector open vs closed', '≥ 0.9', (error as Error).message.slice(0, 200)),
    );
  }
  try {
    rows.push(...(await memory(config)));
  } catch (error) {
    rows.push(skippedRow('inspector.memory', '8b. heap after 100,000 logged requests', '≤ 1.2', (error as Error).message.slice(0, 200)));
  }
  return rows;
}

if (process.argv[1] === THIS_FILE && process.argv[2] === 'serve') await serve();
