import type { ApiPromise } from '../core/api-promise.js';
import { RequestValidationError } from '../core/errors.js';
import { type WaitOptions, TransactionHandle, waitForTransaction } from '../core/polling.js';
import type { RequestOptions } from '../core/request.js';
import { decodeResumeToken } from '../core/resume-token.js';
import { checkPathParams } from '../core/validate.js';
import type { CompletedTransaction, Transaction } from '../schemas/transaction.js';
import { unknownOptionMessage } from '../shared/option-names.js';
import { ASYNC_OPERATIONS, type AsyncOperationName, type AsyncOperationResults, retrieveTransaction } from './async-operations.js';
import { Resource, routeKey, transactionFetcher } from './endpoint.js';

/**
 * `client.transactions`: the status of asynchronous operations, by transaction id, and handles
 * picked up again from a resume token (when the handle is gone: a restart, another process,
 * another request of a Worker).
 *
 * @group Resources
 */
export class Transactions extends Resource {
  /** One poll of an asynchronous operation's status. */
  retrieve(transactionId: string, options?: RequestOptions): ApiPromise<Transaction> {
    return this.call(retrieveTransaction, { params: { transactionId }, options });
  }

  /**
   * Polls until COMPLETED or FAILED, from an id alone (a worker resuming after a restart).
   * Same behaviour as `handle.wait()`; the result is not typed: `resume()` a handle's
   * `resumeToken` for its operation's.
   */
  wait(transactionId: string, options?: WaitOptions): Promise<CompletedTransaction> {
    try {
      checkPathParams({ transactionId }, routeKey(retrieveTransaction));
    } catch (error) {
      return Promise.reject(error);
    }
    const transport = this.transport;
    return waitForTransaction(transactionId, transactionFetcher(transport, retrieveTransaction, transactionId), options, transport, undefined);
  }

  /**
   * The handle a `resumeToken` was taken from, in this process: `wait()` polls the same
   * transaction. With the operation named, `wait()` resolves with that operation's typed result,
   * and a token of another operation is refused. Nothing is sent until `wait()` or `retrieve()`.
   *
   * @throws {@link RequestValidationError} when the token is not one (malformed, cut, of another
   *   version) or is of another operation than the one named, saying why.
   * @example
   * ```ts
   * import { PartnerClient } from 'mobile-partner-sdk';
   *
   * const client = new PartnerClient();
   * const handle = await client.esim.provision({ planId: 'Business 5GB' });
   * const token = handle.resumeToken; // store it: a queue message, a database row
   * // … later, in another process:
   * const done = await client.transactions.resume(token, 'esim.provision').wait();
   * console.log(done.result.mdn);
   * ```
   */
  resume(token: string): TransactionHandle<unknown>;
  resume<N extends AsyncOperationName>(token: string, operation: N): TransactionHandle<AsyncOperationResults[N]>;
  resume(token: string, operation?: AsyncOperationName): TransactionHandle<unknown> {
    const point = decodeResumeToken(token);
    if (operation !== undefined && !Object.hasOwn(ASYNC_OPERATIONS, operation)) {
      throw new RequestValidationError(
        [{ path: 'operation', message: unknownOptionMessage('asynchronous operation', String(operation), ASYNC_OPERATIONS) }],
        'transactions.resume',
      );
    }
    if (operation !== undefined && point.operation !== operation) {
      throw new RequestValidationError(
        [{ path: 'token', message: `is a resume token of ${point.operation}, not of ${operation}` }],
        'transactions.resume',
      );
    }
    checkPathParams({ transactionId: point.transactionId }, 'transactions.resume');
    const known = Object.hasOwn(ASYNC_OPERATIONS, point.operation) ? ASYNC_OPERATIONS[point.operation as AsyncOperationName] : undefined;
    const transport = this.transport;
    return new TransactionHandle<unknown>(
      { transactionId: point.transactionId, statusEndpoint: point.statusEndpoint },
      transactionFetcher(transport, known?.poll ?? retrieveTransaction, point.transactionId),
      transport,
      known === undefined ? undefined : routeKey(known.accept),
      point.operation,
    );
  }
}
