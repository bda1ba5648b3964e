/**
 * The asynchronous operations (spec part 1 rule 7), declared in one table: each is a write that is
 * accepted with a transaction, and the status poll typing its `result`. `client.transactions.resume()`
 * reads this table to give a resumed handle its operation's `wait()`.
 */
import type { z } from 'zod/mini';
import { type Transaction, transactionSchema, transactionSchemaWithResult } from '../schemas/transaction.js';
import { lazy } from '../schemas/lazy.js';
import { type AsyncAcceptance, asyncAcceptanceSchema, notShown } from '../schemas/common.js';
import { type EsimProvisioningResult, esimProvisioningResultSchema, esimProvisionParamsSchema } from '../schemas/esim.js';
import { planPurchaseParamsSchema } from '../schemas/plan.js';
import { topUpParamsSchema } from '../schemas/billing.js';
import { portInSubmitParamsSchema } from '../schemas/port-in.js';
import type { AsyncOperation, Endpoint } from './endpoint.js';

/** The universal status poll (spec part 4): no bearer, the id itself is the credential. */
export const retrieveTransaction: Endpoint<Transaction> = {
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
  body?: () => z.core.$ZodType;
  envelope?: boolean;
}

/**
 * Declares an asynchronous operation: a POST answered with `{ transactionId, statusEndpoint }`
 * (202, or 201 for top-up), and the status poll typing its `result`. The spec does not mark these
 * writes (idem): they carry a generated Idempotency-Key but are not retried once they may have
 * reached the server. The schemas come as builders and are built on the operation's first call,
 * not at import.
 */
function asyncOperation<R>(declaration: AcceptDeclaration, result: () => z.ZodMiniType<R>): AsyncOperation<R> {
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

/** Not shown in the spec, so whatever JSON value the server sends is kept as sent. */
export type PlanPurchaseResult = unknown;
/** Not shown in the spec, so whatever JSON value the server sends is kept as sent. */
export type TopUpResult = unknown;
/** Not shown in the spec, so whatever JSON value the server sends is kept as sent. */
export type PortInResult = unknown;

/** The `result` of each asynchronous operation, by the method that starts it. */
export interface AsyncOperationResults {
  'esim.provision': EsimProvisioningResult;
  'plans.purchaseAsync': PlanPurchaseResult;
  'billing.topUp': TopUpResult;
  'portIns.submit': PortInResult;
}

/** The name of an asynchronous operation: the method that starts it. */
export type AsyncOperationName = keyof AsyncOperationResults;

/** Every asynchronous operation, by name; the schemas are built on first use. */
export const ASYNC_OPERATIONS: { readonly [N in AsyncOperationName]: AsyncOperation<AsyncOperationResults[N]> } = {
  'esim.provision': asyncOperation(
    { operation: 'esim.provision', path: '/api/v1.1/esim', body: esimProvisionParamsSchema },
    esimProvisioningResultSchema,
  ),
  /** The v3 purchase's result is not shown: an open object. */
  'plans.purchaseAsync': asyncOperation(
    { operation: 'plans.purchaseAsync', path: '/api/v3/plans/purchase', body: planPurchaseParamsSchema },
    notShown,
  ),
  /** Answers 201 (not 202) with the transaction to poll (spec part 1 rule 7). */
  'billing.topUp': asyncOperation({ operation: 'billing.topUp', path: '/api/v1.1/top-up', body: topUpParamsSchema }, notShown),
  /** Admin tier; answered outside the standard envelope (spec part 1 rule 8). */
  'portIns.submit': asyncOperation(
    { operation: 'portIns.submit', path: '/api/v3/port-in', body: portInSubmitParamsSchema, envelope: false },
    notShown,
  ),
};
