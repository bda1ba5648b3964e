import type { ApiPromise } from '../core/api-promise.js';
import { checkPathParams } from '../core/validate.js';
import { type WaitOptions, waitForTransaction } from '../core/polling.js';
import type { RequestOptions } from '../core/request.js';
import type { z } from 'zod';
import {
  type CompletedTransaction,
  type Transaction,
  transactionSchema,
  transactionSchemaWithResult,
} from '../schemas/transaction.js';
import { type Endpoint, Resource, routeKey, transactionFetcher } from './endpoint.js';

const TRANSACTION_PATH = '/api/v3/transactions/{transactionId}';

/** The universal status poll (spec part 4): no bearer, the id itself is the credential. */
export const retrieveTransaction: Endpoint<Transaction> = {
  method: 'GET',
  path: TRANSACTION_PATH,
  schema: transactionSchema,
  auth: false,
};

/** The same poll route, typing `result` for an operation whose result shape is known. */
export function transactionPollRoute<R>(result: z.ZodType<R>): Endpoint<Transaction<R>> {
  return { ...retrieveTransaction, schema: transactionSchemaWithResult(result) };
}

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
    return waitForTransaction(transactionId, transactionFetcher(this.transport, retrieveTransaction, transactionId), options);
  }
}
