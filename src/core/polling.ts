import type { AsyncAcceptance } from '../schemas/common.js';
import type { CompletedTransaction, Transaction } from '../schemas/transaction.js';
import { checkWaitOptions } from './config.js';
import { DEFAULT_MAX_POLL_INTERVAL_MS, DEFAULT_POLL_INTERVAL_MS, DEFAULT_WAIT_TIMEOUT_MS } from './defaults.js';
import { ClientClosedError } from './errors.js';
import type { TransactionWaitObservation } from './observer.js';
import type { Transport } from './request.js';
import { encodeResumeToken } from './resume-token.js';
import { sleep } from './sleep.js';
import { TransactionFailedError, TransactionTimeoutError } from './transaction-errors.js';
import type { WaitOptions } from './types.js';

export type { WaitOptions } from './types.js';

/** Fetches the transaction once; the signal aborts an in-flight poll. */
export type TransactionFetcher<R> = (signal: AbortSignal) => Promise<Transaction<R>>;

/**
 * What a wait needs of its client besides the poll: the scrubber for server text, the observer,
 * and the sleep between polls, which the client's `close()` and `destroy()` end at once.
 */
export type WaitHost = Pick<Transport, 'redact' | 'watchTransaction' | 'sleep'>;

/** A wait without a client: nothing to scrub or observe, and nothing closes its sleeps. */
const standalone: WaitHost = { redact: (value) => value, watchTransaction: () => undefined, sleep };

const BACKOFF_FACTOR = 1.5;
/** Up to 20 % added at random, so that many waiting workers do not poll in lockstep. */
const JITTER = 0.2;

/**
 * Polls until COMPLETED (resolves with it) or FAILED (rejects with TransactionFailedError; FAILED
 * comes with HTTP 200, spec part 7 rule 3). Every other status, whatever its name, is pending:
 * the non-terminal values are not shown (spec part 3). No timer outlives the call.
 */
export function waitForTransaction<R>(
  transactionId: string,
  fetch: TransactionFetcher<R>,
  options: WaitOptions<R> = {},
  host: WaitHost = standalone,
  operation?: string,
): Promise<CompletedTransaction<R>> {
  try {
    checkWaitOptions(options, `wait for transaction ${transactionId}`);
  } catch (error) {
    return Promise.reject(error);
  }
  const observation = host.watchTransaction(operation);
  if (observation === undefined) return poll(transactionId, fetch, options, host, undefined);
  const polled = observation.within
    ? observation.within(() => poll(transactionId, fetch, options, host, observation))
    : poll(transactionId, fetch, options, host, observation);
  polled.then(
    () => observation.end(undefined),
    (error: unknown) => observation.end(error),
  );
  return polled;
}

async function poll<R>(
  transactionId: string,
  fetch: TransactionFetcher<R>,
  options: WaitOptions<R>,
  host: WaitHost,
  observation: TransactionWaitObservation | undefined,
): Promise<CompletedTransaction<R>> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  const maxIntervalMs = options.maxPollIntervalMs ?? DEFAULT_MAX_POLL_INTERVAL_MS;
  let intervalMs = Math.min(options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, maxIntervalMs);
  const callerSignal = options.signal;
  callerSignal?.throwIfAborted();

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, deadline.signal]) : deadline.signal;
  let last: Transaction<R> | undefined;
  try {
    for (;;) {
      const transaction = await fetch(signal);
      observation?.polled(transaction.status);
      if (transaction.status !== last?.status) options.onProgress?.(transaction);
      last = transaction;
      if (transaction.status === 'COMPLETED') return transaction as CompletedTransaction<R>;
      if (transaction.status === 'FAILED') {
        // The server's text may echo a credential: scrubbed before it reaches the error.
        const failed = host.redact(transaction);
        throw new TransactionFailedError(failed);
      }
      await host.sleep(intervalMs * (1 + Math.random() * JITTER), signal).catch((failure: unknown) => {
        // The client closed between two polls: the next poll would be refused, so the wait ends now.
        throw failure instanceof ClientClosedError
          ? new ClientClosedError(`wait for transaction ${transactionId}: ${failure.message} while the wait slept between polls`)
          : failure;
      });
      intervalMs = Math.min(intervalMs * BACKOFF_FACTOR, maxIntervalMs);
    }
  } catch (error) {
    if (callerSignal?.aborted) throw callerSignal.reason;
    if (deadline.signal.aborted) {
      throw new TransactionTimeoutError(transactionId, timeoutMs, last === undefined ? undefined : host.redact(last));
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What an asynchronous operation returns once accepted: the id to poll, the status endpoint the
 * server named, the whole acceptance answer (unknown fields kept), and `wait()`.
 */
export class TransactionHandle<R = unknown> {
  /** The transaction's id, for `client.transactions.retrieve()` or your own records. */
  readonly transactionId: string;
  /** The status path the server named in its acceptance. */
  readonly statusEndpoint: string;
  /** The acceptance answer as the server sent it, unknown fields kept. */
  readonly acceptance: AsyncAcceptance;
  readonly #fetch: TransactionFetcher<R>;
  readonly #host: WaitHost;
  /** The accepting route (`POST /api/v1.1/esim`), which names the wait for the observer. */
  readonly #operation: string | undefined;
  /** The method that started the operation (`'esim.provision'`), which its resume token names. */
  readonly #name: string;

  /** @internal Returned by the asynchronous operations and `client.transactions.resume()`; never built by callers. */
  constructor(
    acceptance: AsyncAcceptance,
    fetch: TransactionFetcher<R>,
    host: WaitHost = standalone,
    operation?: string,
    name = 'transactions.retrieve',
  ) {
    this.transactionId = acceptance.transactionId;
    this.statusEndpoint = acceptance.statusEndpoint;
    this.acceptance = acceptance;
    this.#fetch = fetch;
    this.#host = host;
    this.#operation = operation;
    this.#name = name;
  }

  /**
   * A short string from which `client.transactions.resume(token, operation)` gives this handle
   * back, in any process or runtime: the operation, the transaction's id and its status
   * endpoint. No credential, no result: it may be stored or queued as it is.
   */
  get resumeToken(): string {
    return encodeResumeToken({ operation: this.#name, transactionId: this.transactionId, statusEndpoint: this.statusEndpoint });
  }

  /**
   * Polls the transaction until it ends, at `pollIntervalMs` (growing to `maxPollIntervalMs`,
   * never faster than the server's `Retry-After`), and resolves with the COMPLETED transaction.
   *
   * @throws {@link TransactionFailedError} when it ends FAILED.
   * @throws {@link TransactionTimeoutError} when `timeoutMs` passes first (the operation may still complete).
   * @throws the `signal`'s reason when aborted.
   * @example
   * ```ts
   * import { PartnerClient } from 'mobile-partner-sdk';
   *
   * const client = new PartnerClient();
   * const handle = await client.esim.provision({ planId: 'Business 5GB' });
   * const done = await handle.wait({ timeoutMs: 120_000 });
   * console.log(done.result);
   * ```
   */
  wait(options?: WaitOptions<R>): Promise<CompletedTransaction<R>> {
    return waitForTransaction(this.transactionId, this.#fetch, options, this.#host, this.#operation);
  }

  /** One poll, whatever the status. */
  retrieve(signal?: AbortSignal): Promise<Transaction<R>> {
    return this.#fetch(signal ?? new AbortController().signal);
  }

  /** The acceptance answer, so a handle logs or stores as the server sent it. */
  toJSON(): AsyncAcceptance {
    return this.acceptance;
  }
}
