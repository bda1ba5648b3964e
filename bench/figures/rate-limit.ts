/**
 * Figure 7: a burst of calls through the client against the real sandbox (its own process), whose
 * fixed windows are scaled so the account limit (120 per window, spec part 8) is 120 per second,
 * with the client's limiter configured to the same window. Counts the 429s the sandbox answered
 * (its request log) and compares the wall time with the least any client could take.
 *
 * The sandbox opens a window at the first request after the previous one expired, so N calls with
 * limit L need ceil(N / L) windows and the last one cannot be sent before (ceil(N / L) - 1) * W
 * after the first: that is the theoretical minimum (600 calls, 120 per 1 s → 4 windows → 4 s).
 * The sandbox's own service time for one window's worth of calls (the time the first L answers
 * took, when nothing waits) is reported beside it: no client can finish before minimum + that.
 *
 * The goal is 1.1 × minimum for windows over a second and 1.2 × for a window of a second: an
 * `X-RateLimit-Reset` in whole seconds locates a window's end only in windows longer than a
 * second (the client assumes nothing of where the server's windows begin), so in a window of a
 * second each batch goes out a window after the previous batch's last answer, not its first.
 */
import { loadClient } from '../lib/client.js';
import type { FigureConfig } from '../lib/figure.js';
import { type Row, skippedRow } from '../lib/report.js';
import { sleep } from '../lib/stats.js';

const ACCOUNT_LIMIT = 120;

/** The most the burst may take, as a multiple of the minimum, for a sandbox window of `windowMs`. */
function goalRatio(windowMs: number): number {
  return windowMs > 1000 ? 1.1 : 1.2;
}

interface LoggedRequest {
  method: string;
  path: string;
  status: number | null;
}

async function sandboxLog(url: string): Promise<LoggedRequest[]> {
  const res = await fetch(`${url}/_sandbox/requests`);
  if (!res.ok) throw new Error(`GET /_sandbox/requests answered ${res.status}`);
  return ((await res.json()) as { requests: LoggedRequest[] }).requests;
}

export async function measure(config: FigureConfig): Promise<Row[]> {
  const sandbox = config.sandbox;
  const calls = config.quick ? 150 : 600;
  const figure = `7. ${calls} calls, sandbox at ${ACCOUNT_LIMIT} per ${sandbox?.rateLimitWindowMs ?? '?'} ms`;
  if (!sandbox) return [skippedRow('rate-limit.time', `${figure}, wall time`, '≤ 1.1 × minimum', 'no sandbox')];
  const windowMs = sandbox.rateLimitWindowMs;
  const goal = goalRatio(windowMs);
  const loaded = await loadClient();
  if (!loaded.ok) {
    return [
      skippedRow('rate-limit.time', `${figure}, wall time`, `≤ ${goal} × minimum`, loaded.reason),
      skippedRow('rate-limit.429', `${figure}, 429 answers`, '0', loaded.reason),
    ];
  }
  const client = new loaded.value({
    baseUrl: sandbox.url,
    key: sandbox.key,
    secret: sandbox.secret,
    rateLimit: { account: { limit: ACCOUNT_LIMIT, windowMs } },
  });
  try {
    // One call first (token exchange included), then a pause longer than a window, so the burst
    // starts in a fresh sandbox window and the minimum below is exact.
    await client.sims.list({ pageSize: 10 });
    await sleep(windowMs + 100);
    await fetch(`${sandbox.url}/_sandbox/requests`, { method: 'DELETE' });

    const start = performance.now();
    const answeredAt: number[] = [];
    const outcomes = await Promise.allSettled(
      Array.from({ length: calls }, () =>
        client.sims.list({ pageSize: 10 }).then((page) => {
          answeredAt.push(performance.now() - start);
          return page;
        }),
      ),
    );
    const wallMs = performance.now() - start;
    const serviceMs = answeredAt.sort((a, b) => a - b)[Math.min(ACCOUNT_LIMIT, answeredAt.length) - 1] ?? Number.NaN;
    const failed = outcomes.filter((outcome) => outcome.status === 'rejected');

    const log = (await sandboxLog(sandbox.url)).filter((entry) => entry.path.startsWith('/api/'));
    const throttled = log.filter((entry) => entry.status === 429).length;
    const windows = Math.ceil(calls / ACCOUNT_LIMIT);
    const minimumMs = (windows - 1) * windowMs;
    const ratio = wallMs / minimumMs;
    const firstError = failed[0]?.status === 'rejected' ? (failed[0].reason as Error) : undefined;
    return [
      {
        id: 'rate-limit.time',
        figure: `${figure}, wall time`,
        value: wallMs,
        baseline: minimumMs,
        unit: 'ms',
        baselineLabel: `minimum (ceil(${calls}/${ACCOUNT_LIMIT}) - 1) × ${windowMs} ms`,
        ratio,
        goal: `≤ ${goal}`,
        met: ratio <= goal && failed.length === 0,
        note:
          `${log.length} requests reached the sandbox for ${calls} calls; ${failed.length} call(s) failed; ` +
          `the first ${ACCOUNT_LIMIT} answers took ${serviceMs.toFixed(0)} ms (sandbox service time of one window), ` +
          `so minimum + service time = ${(minimumMs + serviceMs).toFixed(0)} ms (${(wallMs / (minimumMs + serviceMs)).toFixed(2)}×)` +
          (firstError ? ` (first: ${firstError.name}: ${firstError.message.split('\n')[0]})` : ''),
      },
      {
        id: 'rate-limit.429',
        figure: `${figure}, 429 answers`,
        value: throttled,
        baseline: null,
        unit: '',
        baselineLabel: '',
        ratio: null,
        goal: '0',
        met: throttled === 0,
      },
    ];
  } finally {
    await client.close();
  }
}
