import type { z } from 'zod/mini';
import { ApiPromise } from '../core/api-promise.js';
import { PagePromise } from '../core/pagination.js';
import { TransactionHandle } from '../core/polling.js';
import type { CallInput, Query, RequestOptions, RouteDefinition, Transport } from '../core/request.js';
import { toRequestSpec } from '../core/request.js';
import { checkRequestOptions } from '../core/config.js';
import { APIResource } from '../core/resource.js';
import { checkPathParams, hasLoneSurrogate, LONE_SURROGATE_PROBLEM, parseInput, requireStringFields } from '../core/validate.js';
import { RequestValidationError } from '../core/errors.js';
import type { AsyncAcceptance } from '../schemas/common.js';
import type { Transaction } from '../schemas/transaction.js';

/**
 * A route plus the schemas of its inputs: the one place that says what a call may send. Inputs
 * are checked before anything goes on the wire (RequestValidationError).
 */
export interface Endpoint<T> extends RouteDefinition<T> {
  /** Schema of the caller's query parameters (SDK names). */
  query?: z.core.$ZodType<Query>;
  /** SDK parameter name → wire name, for parameters whose wire name differs. */
  queryNames?: Readonly<Record<string, string>>;
  /** Schema of the JSON body. */
  body?: z.core.$ZodType;
}

/**
 * An asynchronous operation (spec part 1 rule 7): the write that is accepted with a transaction,
 * and the status poll typing that operation's `result`. Declared with `asyncOperation()`.
 */
export interface AsyncOperation<R> {
  accept: Endpoint<AsyncAcceptance>;
  poll: RouteDefinition<Transaction<R>>;
}

export function routeKey(route: RouteDefinition<unknown>): string {
  return `${route.method} ${route.path}`;
}

function toWireQuery(query: Query, names: Readonly<Record<string, string>> | undefined): Query {
  if (!names) return query;
  const wire: Query = {};
  for (const [name, value] of Object.entries(query)) wire[names[name] ?? name] = value;
  return wire;
}

/**
 * Checks a call's query against its endpoint, as the caller wrote it; throws
 * RequestValidationError. A query value is sent as UTF-8 text, which a lone UTF-16 surrogate does
 * not have: encoding would put U+FFFD in its place, a value the caller did not write. Refused
 * instead.
 */
export function checkQuery(route: Endpoint<unknown>, query: Query): void {
  const context = routeKey(route);
  if (route.query) parseInput(route.query, query, context, '', 'query parameter');
  const issues = Object.entries(query)
    .filter(([, value]) => typeof value === 'string' && hasLoneSurrogate(value))
    .map(([name]) => ({ path: name, message: LONE_SURROGATE_PROBLEM }));
  if (issues.length > 0) throw new RequestValidationError(issues, context);
}

/**
 * Validates one call's input against its endpoint; throws RequestValidationError. What passes is
 * sent as the caller wrote it, not as the schema's parse copied it: a value is sent as given or
 * refused, never changed (the copy would also reorder the caller's members).
 */
function prepare(route: Endpoint<unknown>, input: CallInput): CallInput {
  const context = routeKey(route);
  checkPathParams(input.params, context);
  const prepared: CallInput = { ...input };
  if (route.query) {
    const query = input.query ?? {};
    checkQuery(route, query);
    prepared.query = toWireQuery(query, route.queryNames);
  }
  if (route.body) parseInput(route.body, input.body, context, 'body', 'field');
  return prepared;
}

/** Base of the resources: declared endpoints, checked input, pages and transaction handles. */
export abstract class Resource extends APIResource {
  /** Never throws synchronously: a refused input is a rejected ApiPromise, like any other failure. */
  protected override call<T>(route: Endpoint<T>, input: CallInput = {}): ApiPromise<T> {
    try {
      return super.call(route, prepare(route, input));
    } catch (error) {
      return new ApiPromise<T>(Promise.reject(error));
    }
  }

  /** A paginated list: the first page now, the others on demand (see PagePromise). */
  protected paginate<T>(route: Endpoint<T[]>, query: object | undefined, options: RequestOptions | undefined): PagePromise<T> {
    const transport = this.transport;
    try {
      // Checked once, before the first page: a bad signal would otherwise fail inside AbortSignal.any.
      if (options) checkRequestOptions(options, routeKey(route));
      const prepared = prepare(route, { query: (query ?? {}) as Query });
      return PagePromise.from<T>((pageQuery, signal) => {
        const callerSignal = options?.signal;
        const merged = signal && callerSignal ? AbortSignal.any([signal, callerSignal]) : (signal ?? callerSignal);
        return transport.send(toRequestSpec(route, { query: pageQuery, options: { ...options, signal: merged } }));
      }, prepared.query ?? {});
    } catch (error) {
      return PagePromise.rejected<T>(error);
    }
  }

  /** An asynchronous operation: the acceptance answer becomes a handle polling the operation's status route. */
  protected start<R>(operation: AsyncOperation<R>, input: CallInput): ApiPromise<TransactionHandle<R>> {
    const accepted = this.call(operation.accept, input).asResult();
    const acceptRoute = routeKey(operation.accept);
    const handle = accepted.then((result) => ({
      ...result,
      data: new TransactionHandle<R>(
        requireStringFields(result.data, ['transactionId'], acceptRoute),
        transactionFetcher(this.transport, operation.poll, result.data.transactionId),
        this.transport,
        acceptRoute,
        operation.accept.operation,
      ),
    }));
    return new ApiPromise(handle);
  }
}

/** One poll of GET /api/v3/transactions/{transactionId} through the transport (limiter, retries). */
export function transactionFetcher<R>(
  transport: Transport,
  poll: RouteDefinition<Transaction<R>>,
  transactionId: string,
): (signal: AbortSignal) => Promise<Transaction<R>> {
  const route = routeKey(poll);
  return (signal) =>
    transport
      .send(toRequestSpec(poll, { params: { transactionId }, options: { signal } }))
      .then((result) => requireStringFields(result.data, ['status'], route));
}
