import type { Scheduler } from './scheduler.js';
import type { AttemptOutcome } from './send.js';

export interface AttemptSeriesOptions {
  /** Sandbox-time delays before each retry; its length is the number of retries allowed. */
  retryDelaysMs: readonly number[];
  /** Makes attempt number `attempt` (1-based). */
  attempt: (attempt: number) => Promise<AttemptOutcome>;
  /** Called after every attempt, before any wait, so the delivery log stays current. */
  onAttempt?: (attempt: number, outcome: AttemptOutcome) => void;
  /** An outcome that ends the series without retrying (voice quality: 410 Gone). */
  isFinal?: (outcome: AttemptOutcome) => boolean;
  scheduler: Scheduler;
  signal: AbortSignal;
}

export interface AttemptSeriesResult {
  ok: boolean;
  attempts: number;
  last: AttemptOutcome;
}

/** Attempts a delivery until a success, a final answer or the retries run out. */
export async function runAttemptSeries(options: AttemptSeriesOptions): Promise<AttemptSeriesResult> {
  let attempt = 0;
  for (;;) {
    attempt += 1;
    const outcome = await options.attempt(attempt);
    options.onAttempt?.(attempt, outcome);
    const delay = options.retryDelaysMs[attempt - 1];
    if (outcome.ok || options.isFinal?.(outcome) === true || delay === undefined) {
      return { ok: outcome.ok, attempts: attempt, last: outcome };
    }
    await options.scheduler.sleep(delay, options.signal);
  }
}
