/**
 * The errors of `wait()` on an asynchronous operation. Apart from the other error classes so
 * that the webhooks entry, which needs only those, does not reach the transaction schemas.
 */
import type { Transaction } from '../schemas/transaction.js';
import { type ClientErrorCode, type ErrorCode, PartnerError } from './errors.js';

/**
 * An asynchronous operation ended FAILED (answered with HTTP 200, spec part 7 rule 3). Not
 * generic: `instanceof` would widen a type argument to `any`, so after
 * `error instanceof TransactionFailedError` the fields are concretely typed.
 *
 * @group Errors
 */
export class TransactionFailedError extends PartnerError {
  override name = 'TransactionFailedError';
  readonly code: ClientErrorCode = 'TRANSACTION_FAILED';
  /** The FAILED transaction as the last poll read it (server text scrubbed). */
  readonly transaction: Transaction;
  readonly transactionId: string;
  readonly errorCode: ErrorCode | undefined;
  readonly error: string | undefined;
  constructor(transaction: Transaction) {
    const errorCode = transaction.errorCode ?? undefined;
    const error = transaction.error ?? undefined;
    super(`transaction ${transaction.transactionId} failed${errorCode ? ` (${errorCode})` : ''}${error ? `: ${error}` : ''}`);
    this.transaction = transaction;
    this.transactionId = transaction.transactionId;
    this.errorCode = errorCode;
    this.error = error;
  }
  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      code: this.code,
      transactionId: this.transactionId,
      errorCode: this.errorCode,
      error: this.error,
    };
  }
}

/**
 * `wait()` gave up before the transaction reached a terminal status. Not generic, like {@link TransactionFailedError}.
 *
 * @group Errors
 */
export class TransactionTimeoutError extends PartnerError {
  override name = 'TransactionTimeoutError';
  readonly code: ClientErrorCode = 'TRANSACTION_TIMEOUT';
  readonly transactionId: string;
  readonly timeoutMs: number;
  /** The last status seen, when any poll answered. */
  readonly lastTransaction: Transaction | undefined;
  /** `lastTransaction`'s status, when any poll answered. */
  readonly lastStatus: Transaction['status'] | undefined;
  constructor(transactionId: string, timeoutMs: number, lastTransaction?: Transaction) {
    const id = JSON.stringify(transactionId);
    const status = lastTransaction?.status;
    // The operation goes on on the server: the message says what was seen and how to pick it up.
    super(
      `transaction ${id} did not finish within ${timeoutMs} ms (${status === undefined ? 'no poll answered' : `last status ${status}`}); ` +
        `it may still finish: wait again with client.transactions.wait(${id})`,
    );
    this.transactionId = transactionId;
    this.timeoutMs = timeoutMs;
    this.lastTransaction = lastTransaction;
    this.lastStatus = status;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), code: this.code, transactionId: this.transactionId, timeoutMs: this.timeoutMs, lastStatus: this.lastStatus };
  }
}
