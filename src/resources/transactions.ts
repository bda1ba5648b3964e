import type { ApiPromise } from '../core/api-promise.js';
import { checkPathParams } from '../core/validate.js';
import { type WaitOptions, waitForTransaction } from '../core/polling.js';
import type { RequestOptions } from '../core/request.js';
import type { z } from 'zod';
import { type CompletedTransaction, type Transaction, transactionSchema, transactionSchemaWithResult } from '../schemas/transaction.js';
import { lazy } from '../schemas/lazy.js';
import { type AsyncAcceptance, asyncAcceptanceSchema } from '../schemas/common.js';
import { type AsyncOperation, type Endpoint, Resource, routeKey, transactionFetcher } from './endpoint.js';

/** The universal status poll (spec part 4): no bearer, the id itself is the credential. */
const retrieveTransaction: Endpoint<Transaction> = {
  operation: 'transactions.retrieve',
  method: 'GET',
  path: '/api/v3/transactions/{transactionId}',
  get schema() {
    return transactionSchema();
  },
  auth: false,
};

/** How an asynchronous operation's write is declared: its path, and its body schema built on first use. */
interface AcceptDeclaration {
  /** The method a partner calls: `'esim.provision'`. */
  operation: string;
  path: string;
  body?: () => z.ZodType;
  envelope?: boolean;
}

/**
 * Declares an asynchronous operation: a POST answered with `{ transactionId, statusEndpoint }`
 * (202, or 201 for top-up), and the status poll typing its `result`. The spec does not mark these
 * writes (idem): they carry a generated Idempotency-Key but are not retried once they may have
 * reached the server. The schemas come as builders and are built on the operation's first call,
 * not at import.
 */
export function asyncOperation<R>(declaration: AcceptDeclaration, result: () => z.ZodType<R>): AsyncOperation<R> {
  const { operation, path, body, envelope } = declaration;
  const accept: Endpoint<AsyncAcceptance> = {
    operation,
    method: 'POST',
    path,
    generateIdempotencyKey: true,
    get schema() {
      return asyncAcceptanceSchema();
    },
  };
  if (body) Object.defineProperty(accept, 'body', { get: body, enumerable: true });
  if (envelope !== undefined) accept.envelope = envelope;
  const pollSchema = lazy(() => transactionSchemaWithResult(result()));
  return {
    accept,
    poll: {
      operation: retrieveTransaction.operation,
      method: retrieveTransaction.method,
      path: retrieveTransaction.path,
      auth: false,
      get schema() {
        return pollSchema();
      },
    },
  };
}

/**
 * `client.transactions`: the status of asynchronous operations, by transaction id (when the handle is gone, e.g. after a restart).
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
   * Same behaviour as `handle.wait()`.
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
}
