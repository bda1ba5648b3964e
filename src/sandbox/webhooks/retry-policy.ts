import * as z from 'zod';
import { closedObject } from '../closed-object.js';

/**
 * The operator webhook retryPolicy of spec part 8, with its bounds and defaults. `maxAttempts`
 * counts retries of a failed delivery ("retries of a failed delivery"), so a delivery makes at
 * most `1 + maxAttempts` attempts.
 */
export const retryPolicyInputSchema = closedObject(
  {
    maxAttempts: z.number().int().min(1).max(10).optional(),
    backoffStrategy: z.enum(['fixed', 'exponential', 'linear'], { error: 'must be one of fixed, exponential, linear' }).optional(),
    initialDelaySeconds: z.number().int().min(1).max(60).optional(),
    maxDelaySeconds: z.number().int().min(60).max(3600).optional(),
  },
  'retryPolicy.',
);

export type RetryPolicyInput = z.infer<typeof retryPolicyInputSchema>;
export type RetryPolicy = Required<RetryPolicyInput>;

const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  backoffStrategy: 'exponential',
  initialDelaySeconds: 5,
  maxDelaySeconds: 300,
};

/** `input` laid over `base`: the defaults on create, the current policy on a partial update. */
export function resolveRetryPolicy(input: RetryPolicyInput = {}, base: RetryPolicy = DEFAULT_RETRY_POLICY): RetryPolicy {
  return {
    maxAttempts: input.maxAttempts ?? base.maxAttempts,
    backoffStrategy: input.backoffStrategy ?? base.backoffStrategy,
    initialDelaySeconds: input.initialDelaySeconds ?? base.initialDelaySeconds,
    maxDelaySeconds: input.maxDelaySeconds ?? base.maxDelaySeconds,
  };
}

/**
 * Delay before retry number `retry` (1 for the first retry): fixed waits the initial delay each
 * time, linear `initial × n`, exponential `initial × 2^(n-1)`; all capped at maxDelaySeconds.
 */
function retryDelaySeconds(policy: RetryPolicy, retry: number): number {
  const initial = policy.initialDelaySeconds;
  let delay: number;
  switch (policy.backoffStrategy) {
    case 'fixed':
      delay = initial;
      break;
    case 'linear':
      delay = initial * retry;
      break;
    case 'exponential':
      delay = initial * 2 ** (retry - 1);
      break;
  }
  return Math.min(delay, policy.maxDelaySeconds);
}

/** Delays (ms) before each retry of an operator delivery under `policy`. */
export function operatorRetryDelaysMs(policy: RetryPolicy): number[] {
  return Array.from({ length: policy.maxAttempts }, (_, i) => retryDelaySeconds(policy, i + 1) * 1000);
}

/** Voice quality deliveries: retries after 30 s, 2 min and 10 min, 4 attempts in total (spec part 6). */
export const VOICE_QUALITY_RETRY_DELAYS_MS: readonly number[] = [30_000, 120_000, 600_000];
