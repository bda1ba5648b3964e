import type { ApiResult, ResponseInfo } from './request.js';

/**
 * What every method returns: await it for the unwrapped data, or call `.withResponse()`
 * for the data together with status, headers, rate-limit state and idempotency replay.
 * The request starts when the method is called, whether or not the promise is awaited.
 */
export class ApiPromise<T> extends Promise<T> {
  readonly #result: Promise<ApiResult<T>>;
  #data: Promise<T> | undefined;

  /** @internal Returned by resource methods; never built by callers. */
  constructor(result: Promise<ApiResult<T>>) {
    // The base promise is a placeholder: then/catch/finally are served from `#result`,
    // so awaiting only `.withResponse()` leaves no second, unhandled rejection behind.
    super((resolve) => resolve(undefined as T));
    this.#result = result;
  }

  /** @internal `.then()` of an ApiPromise makes a plain Promise. */
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  #dataPromise(): Promise<T> {
    this.#data ??= this.#result.then((result) => result.data);
    return this.#data;
  }

  override then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#dataPromise().then(onfulfilled, onrejected);
  }

  override catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.#dataPromise().catch(onrejected);
  }

  override finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#dataPromise().finally(onfinally);
  }

  /** The data together with what the response said about itself. */
  withResponse(): Promise<{ data: T; response: ResponseInfo }> {
    return this.#result.then(({ data, response }) => ({ data, response }));
  }

  /** The whole result, `meta` included (pagination uses it). */
  asResult(): Promise<ApiResult<T>> {
    return this.#result;
  }
}
