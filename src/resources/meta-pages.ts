import { PagePromise } from '../core/pagination.js';
import type { Query, RequestOptions, Transport } from '../core/request.js';
import { toRequestSpec } from '../core/request.js';
import { checkRequestOptions } from '../core/config.js';
import { checkQuery, type Endpoint, routeKey } from './endpoint.js';

/**
 * Pages of a list that may answer a plain array without page meta (the registrations and the
 * delivery log: spec part 4 shows them without paging, part 1 rule 5 gives every list page,
 * pageSize and meta). An answer with meta is walked page by page like any list. An answer
 * without meta is the whole list, one page: a server that ignores `page` would answer the same
 * records to page 2, 3, … forever, so no next page is ever asked of it. `pageSize` is therefore
 * kept out of the pages' own query (whose full page would otherwise read as "maybe more") and
 * added to each request here.
 */
export function pagesByMeta<T>(
  transport: Transport,
  route: Endpoint<T[]>,
  params: object | undefined,
  options: RequestOptions | undefined,
): PagePromise<T> {
  try {
    // Checked once, before the first page: a bad signal would otherwise fail inside AbortSignal.any.
    if (options) checkRequestOptions(options, routeKey(route));
    // Checked, then sent as the caller wrote it (see prepare() in endpoint.ts).
    const query = (params ?? {}) as Query;
    checkQuery(route, query);
    const { pageSize, ...pageQuery } = query;
    return PagePromise.from<T>((next, signal) => {
      const callerSignal = options?.signal;
      const merged = signal && callerSignal ? AbortSignal.any([signal, callerSignal]) : (signal ?? callerSignal);
      const sent = pageSize === undefined ? next : { ...next, pageSize };
      return transport.send(toRequestSpec(route, { query: sent, options: { ...options, signal: merged } }));
    }, pageQuery);
  } catch (error) {
    return PagePromise.rejected<T>(error);
  }
}
