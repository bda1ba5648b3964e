import { ApiPromise } from './api-promise.js';
import { PartnerError, ResponseValidationError } from './errors.js';
import { isCount } from '../shared/http-grammar.js';
import type { ApiResult, PageMeta, Query, ResponseInfo } from './request.js';

/** Fetches one page of a list route with the given query; `signal` lets a dropped prefetch stop. */
export type PageFetcher<T> = (query: Query, signal: AbortSignal | undefined) => Promise<ApiResult<T[]>>;

/**
 * Page meta (spec part 2) when all four counts are non-negative safe integers; otherwise
 * undefined, and the page behaves as one without meta (a full page suggests more).
 */
function readMeta(meta: Record<string, unknown> | undefined): PageMeta | undefined {
  if (!meta) return undefined;
  const { page, pageSize, total, totalPages } = meta;
  if (!isCount(page) || !isCount(pageSize) || !isCount(total) || !isCount(totalPages)) return undefined;
  // The object as sent (a member the type does not name stays readable at runtime).
  return meta as unknown as PageMeta;
}

/**
 * The items of a list answer. With `validateResponses: 'off'` nothing else checked that `data`
 * is an array; iterating an object or null would throw a bare TypeError from inside the SDK.
 */
function pageItems<T>(result: ApiResult<T[]>): T[] {
  const data: unknown = result.data;
  if (Array.isArray(data)) return data as T[];
  throw new ResponseValidationError([{ path: 'data', message: `expected an array of items, received ${data === null ? 'null' : typeof data}` }]);
}

/** One page of a list: its items, the envelope's `meta` totals, and the way to the next page. */
export class Page<T> {
  /** This page's items. */
  readonly data: T[];
  /** `page`, `pageSize`, `total`, `totalPages` (spec part 2); undefined when the server sent none. */
  readonly meta: PageMeta | undefined;
  /** Status, headers and rate-limit state of the answer that brought this page. */
  readonly response: ResponseInfo;
  readonly #query: Query;
  readonly #fetch: PageFetcher<T>;

  /** @internal Pages come from `list()`; never built by callers. */
  constructor(result: ApiResult<T[]>, query: Query, fetch: PageFetcher<T>) {
    this.data = pageItems(result);
    this.meta = readMeta(result.meta);
    this.response = result.response;
    this.#query = query;
    this.#fetch = fetch;
  }

  /**
   * The 1-indexed number of this page: the one asked for, so that a server echoing a wrong
   * `meta.page` cannot make iteration ask for the same page forever.
   */
  get pageNumber(): number {
    const requested = this.#query['page'];
    return typeof requested === 'number' ? requested : (this.meta?.page ?? 1);
  }

  /**
   * False on an empty page, whatever `meta` claims: a server announcing more pages while
   * returning none cannot make iteration spin. Otherwise from `meta` (this page <
   * totalPages); without meta, a full page (as many items as the requested pageSize)
   * suggests more may follow.
   */
  hasNextPage(): boolean {
    if (this.data.length === 0) return false;
    if (this.meta) return this.pageNumber < this.meta.totalPages;
    const pageSize = this.#query['pageSize'];
    return typeof pageSize === 'number' && this.data.length > 0 && this.data.length === pageSize;
  }

  /** The query of the next page (same filters, page + 1), or undefined on the last page. */
  nextPageQuery(): Query | undefined {
    return this.hasNextPage() ? { ...this.#query, page: this.pageNumber + 1 } : undefined;
  }

  /** Fetches the next page; rejects when there is none (check `hasNextPage()` first). */
  getNextPage(): PagePromise<T> {
    const query = this.nextPageQuery();
    if (!query) return PagePromise.rejected<T>(new PartnerError('there is no next page: check hasNextPage() first'));
    return PagePromise.from(this.#fetch, query);
  }

  /** @internal Used by iteration, which may abort a prefetch nobody will read. */
  fetchNext(signal: AbortSignal): Promise<Page<T>> | undefined {
    const query = this.nextPageQuery();
    if (!query) return undefined;
    return this.#fetch(query, signal).then((result) => new Page(result, query, this.#fetch));
  }
}

function ignore(): void {}

/** Resolves after the current turn of the event loop (setImmediate where the runtime has it). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof setImmediate === 'function') setImmediate(resolve);
    else setTimeout(resolve, 0);
  });
}

/**
 * What `list()` returns. Await it for the first `Page<T>`; or walk every item of every page with
 * `for await`: page n + 1 is fetched while the caller consumes page n, at most two pages are held
 * at once, and leaving the loop early stops fetching (an in-flight prefetch is aborted and its
 * outcome dropped).
 */
export class PagePromise<T> extends ApiPromise<Page<T>> implements AsyncIterable<T> {
  /** @internal The first page of a list call. */
  static from<T>(fetch: PageFetcher<T>, query: Query): PagePromise<T> {
    const result = fetch(query, undefined).then((first) => ({ ...first, data: new Page(first, query, fetch) }));
    return new PagePromise<T>(result);
  }

  /** @internal A list call whose input was refused before anything was sent. */
  static rejected<T>(error: unknown): PagePromise<T> {
    return new PagePromise<T>(Promise.reject(error));
  }

  /** Every page from this one on, with the next page prefetched while the caller holds this one. */
  async *iterPages(): AsyncGenerator<Page<T>, void, undefined> {
    const controller = new AbortController();
    let next: Promise<Page<T>> | undefined;
    try {
      let page: Page<T> | undefined = (await this.asResult()).data;
      while (page) {
        next = page.fetchNext(controller.signal);
        if (next) {
          next.catch(ignore);
          // undici writes a request to its socket on a later turn of the event loop; yielding
          // one turn first puts the next page on the wire before the caller's synchronous work
          // on this page, so the two overlap.
          await nextTurn();
        }
        yield page;
        page = next ? await next : undefined;
        next = undefined;
      }
    } finally {
      if (next) controller.abort();
    }
  }

  /**
   * Every item of every page, in order: `for await (const sim of client.sims.list())`.
   * Throws the first failed page fetch's error from the loop.
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.iterPages()) {
      for (const item of page.data) yield item;
    }
  }
}
