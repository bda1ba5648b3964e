/**
 * One attempt of a call through its middleware: the request each middleware is given, the
 * Response `next` resolves to, and what the chain's answer becomes for the pipeline. Built so that
 * a pass-through middleware costs little: the request's headers and the Response of `next` stand
 * in for the platform's `Headers` and `Response`, which are made only once a middleware reads
 * them, and the pipeline takes the wire's answer back from the Response as it is.
 */
import { RetryableError } from './errors.js';
import { type Middleware, type MiddlewareContext, type MiddlewareNext, type MiddlewareRequest, checkedAnswer, runChain } from './middleware.js';
import type { HttpMethod } from './types.js';
import { AttemptSignal, type AttemptTarget, readAnswer, type Wire, type WireRequest, type WireResponse } from './wire.js';

/** A middleware's request: plain own properties, as `{ ...request, url }` copies them. */
class AttemptRequest implements MiddlewareRequest {
  method: HttpMethod;
  url: string;
  body: string | undefined;
  headers: Headers;

  constructor(method: HttpMethod, url: string, record: Readonly<Record<string, string>>, body: string | undefined) {
    this.method = method;
    this.url = url;
    this.body = body;
    this.headers = new AttemptHeaders(record) as unknown as Headers;
  }
}

/**
 * An attempt's headers as a middleware sees them: a `Headers` to `instanceof` and to every member,
 * whose platform `Headers` (lower-cased names) is built from the attempt's own on first use. Until
 * then the attempt is sent with its own, unchanged.
 */
class AttemptHeaders {
  readonly #record: Readonly<Record<string, string>>;
  #platform: Headers | undefined;

  constructor(record: Readonly<Record<string, string>>) {
    this.#record = record;
  }

  static platformOf(this: void, headers: AttemptHeaders): Headers {
    return (headers.#platform ??= new Headers(headers.#record));
  }

  /**
   * The headers as the wire takes them, carrying the call's key: the attempt's own as they are
   * when no middleware read them (they carry it already, and the wire never changes them).
   */
  static wireHeaders(headers: unknown, key: string | undefined): Record<string, string> {
    if (typeof (headers as Partial<Headers> | null)?.forEach !== 'function') {
      throw new TypeError(`a middleware passed next() a request whose headers are not a Headers (got ${headers === null ? 'null' : typeof headers})`);
    }
    if (#record in (headers as object) && (headers as AttemptHeaders).#platform === undefined) return (headers as AttemptHeaders).#record;
    return keyed(headerRecord(headers as Headers), key);
  }
}
standIn(AttemptHeaders, Headers, AttemptHeaders.platformOf);

/** `headers` with the call's `Idempotency-Key`, whatever a middleware set: none, or the call's own. */
function keyed(headers: Record<string, string>, key: string | undefined): Record<string, string> {
  if (key === undefined) delete headers['idempotency-key'];
  else headers['idempotency-key'] = key;
  return headers;
}

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

/**
 * The Response `next` resolves to: a Response to its callers (`instanceof Response`, every member
 * of one) whose status is the server's. The platform's Response, with the answer's headers and the
 * text the wire already read, is made only when a middleware reads more than `status` or `ok`: a
 * pass-through middleware never pays for it. The pipeline takes the wire's answer back as it is,
 * read or not.
 */
class AnswerResponse {
  readonly #answer: WireResponse;
  #platform: Response | undefined;

  constructor(answer: WireResponse) {
    this.#answer = answer;
  }

  static answerOf(response: Response): WireResponse | undefined {
    return #answer in response ? response.#answer : undefined;
  }

  get status(): number {
    return this.#answer.status;
  }

  get ok(): boolean {
    return this.#answer.status >= 200 && this.#answer.status <= 299;
  }

  /** The platform's Response of the answer (a status it cannot hold reads as 200 there; `status` is the answer's). */
  static platformOf(this: void, response: AnswerResponse): Response {
    const { status, headers, body } = response.#answer;
    const held = status >= 200 && status <= 599 ? status : 200;
    return (response.#platform ??= new Response(body === '' || held === 204 || held === 205 || held === 304 ? null : body, {
      status: held,
      headers,
    }));
  }
}
standIn(AnswerResponse, Response, AnswerResponse.platformOf);

/**
 * Makes instances of `Class` instances of `Platform` to `instanceof`, to the realm's
 * `Object.prototype.toString` and to inspection, without the platform's constructor: every member
 * of `Platform.prototype` that `Class` does not define (all of them, a runtime's own, one added
 * later) reads or calls the equivalent platform object `platformOf` builds on first use.
 */
function standIn<T extends object>(Class: { prototype: T }, Platform: { prototype: object }, platformOf: (self: T) => object): void {
  const prototype = Class.prototype;
  Object.setPrototypeOf(prototype, Platform.prototype);
  for (const key of Reflect.ownKeys(Platform.prototype)) {
    if (key === 'constructor' || Object.prototype.hasOwnProperty.call(prototype, key)) continue;
    const member = Object.getOwnPropertyDescriptor(Platform.prototype, key);
    if (member?.get) {
      Object.defineProperty(prototype, key, {
        configurable: true,
        get(this: T): unknown {
          return Reflect.get(Platform.prototype, key, platformOf(this));
        },
      });
    } else if (typeof member?.value === 'function') {
      const method = member.value as (...args: unknown[]) => unknown;
      Object.defineProperty(prototype, key, {
        configurable: true,
        writable: true,
        value(this: T, ...args: unknown[]): unknown {
          return method.apply(platformOf(this), args);
        },
      });
    }
  }
}

/** What a chain needs of its client: the same for every call. */
export interface ChainClient {
  readonly wire: Wire;
  /** The largest answer body read, from a middleware's Response as from the wire. */
  readonly maxResponseBytes: number;
  /** The client's logger as a middleware sees it. */
  readonly middlewareLogger: MiddlewareContext['logger'];
}

/**
 * What a chain needs of its call, asked of the call itself: an attempt through a pass-through
 * middleware makes nothing on the call's side.
 */
export interface ChainCall {
  /** The typed error of a failed exchange, as the call reports wire failures (see CallLifetime.attemptFailure). */
  exchangeFailure(error: unknown, origin: string): unknown;
  /** Told of an error a middleware threw of its own: it ends the call as it is, unretried. */
  middlewareFailed(error: unknown): void;
}

/** What a middleware's context says of the call: its operation and route, as the call's spec holds them. */
export interface ChainOperation {
  readonly operation: string;
  readonly route: string;
}

/**
 * One attempt through the chain: each middleware gets a fresh request, `next` sends through the
 * wire (the `Idempotency-Key` put back to the call's own), and whatever Response the chain
 * returns is read as the server's answer. Settles no later than the attempt is cut (its timeout,
 * the caller's signal, the client closing), however long a middleware takes: the cut reaches the
 * chain, every exchange in flight and `context.signal` through the attempt's one target, without
 * an event listener on the hot path.
 *
 * `request` is the attempt as the client built it (its signal is the attempt's); `attempt` counts
 * the call's sends, the first 1.
 */
export function sendThroughChain(
  middleware: readonly Middleware[],
  client: ChainClient,
  call: ChainCall,
  operation: ChainOperation,
  idempotencyKey: string | undefined,
  request: WireRequest,
  attempt: number,
): Promise<WireResponse> {
  return new ChainRun(middleware, client, call, request, operation, idempotencyKey, attempt).run();
}

/**
 * A middleware's `context`: the call's facts as own properties, and `signal` a getter of the class
 * (as a platform object's are), which makes the attempt's AbortController on first read.
 */
class ChainContext implements MiddlewareContext {
  readonly operation: string;
  readonly route: string;
  readonly attempt: number;
  readonly idempotencyKey: string | undefined;
  readonly logger: MiddlewareContext['logger'];
  readonly #run: ChainRun;

  constructor(run: ChainRun, operation: ChainOperation, attempt: number, idempotencyKey: string | undefined, logger: MiddlewareContext['logger']) {
    this.#run = run;
    this.operation = operation.operation;
    this.route = operation.route;
    this.attempt = attempt;
    this.idempotencyKey = idempotencyKey;
    this.logger = logger;
  }

  get signal(): AbortSignal {
    return this.#run.signal();
  }
}

/**
 * The state of one attempt through a chain. One object with its methods rather than closures over
 * a function's scope, and an `AbortController` made only for a middleware that reads
 * `context.signal`: a pass-through middleware costs a few allocations per attempt.
 */
class ChainRun implements AttemptTarget {
  readonly #middleware: readonly Middleware[];
  readonly #client: ChainClient;
  /** The call and its attempt's request; undefined once the answer is settled, so that nothing this run outlives keeps the call. */
  #call: ChainCall | undefined;
  #request: WireRequest | undefined;
  /** Why the attempt was cut, once it is. */
  #cut: { reason: unknown } | undefined;
  #controller: AbortController | undefined;
  /** The exchange `next` has in flight; further ones at once, when a middleware sends several, in `#more`. */
  #exchange: AttemptSignal | undefined;
  #more: Set<AttemptSignal> | undefined;
  /** Rejects the attempt's answer when it is cut while the chain still runs. */
  #reject: ((reason: unknown) => void) | undefined;
  /** Failures of `next`: a middleware that lets one through is not the cause of the call's end. */
  #passed: unknown[] | undefined;
  #sent = false;
  /** The attempt's own URL, as its first request carries it: a request sent on unchanged keeps the attempt's origin and path. */
  readonly #url: string;
  readonly #context: ChainContext;
  readonly #next: MiddlewareNext;

  constructor(
    middleware: readonly Middleware[],
    client: ChainClient,
    call: ChainCall,
    request: WireRequest,
    operation: ChainOperation,
    idempotencyKey: string | undefined,
    attempt: number,
  ) {
    this.#middleware = middleware;
    this.#client = client;
    this.#call = call;
    this.#request = request;
    this.#url = request.origin + request.path;
    const signal = request.signal;
    if (signal.aborted) this.#cut = { reason: signal.reason };
    this.#context = new ChainContext(this, operation, attempt, idempotencyKey, client.middlewareLogger);
    this.#next = (forward) => {
      const answer = this.#send(forward);
      // A middleware may start `next` and answer without awaiting it: its failure is then no one's.
      answer.catch(ignore);
      return answer;
    };
  }

  run(): Promise<WireResponse> {
    const request = this.#request as WireRequest;
    const middleware = this.#middleware;
    const initial = new AttemptRequest(request.method, this.#url, request.headers, request.body);
    return new Promise<WireResponse>((resolve, reject) => {
      if (this.#cut) {
        this.#over();
        reject(this.#cut.reason);
        return;
      }
      request.signal.target = this;
      this.#reject = reject;
      runChain(middleware, initial, this.#context, this.#next).then(
        (value) => {
          let response: Response;
          try {
            response = checkedAnswer(value, middleware, 0, this.#context);
          } catch (error) {
            reject(this.#failed(error));
            return;
          }
          this.#over();
          const answer = AnswerResponse.answerOf(response);
          if (answer) resolve(answer);
          else readAnswer(response, this.#url, this.#client.maxResponseBytes).then(resolve, reject);
        },
        (error: unknown) => reject(this.#failed(error)),
      );
    });
  }

  /**
   * The attempt's answer is settled: the attempt's signal forgets this run, and this run forgets
   * the call. A run can outlive its attempt (a middleware holding `next` or `context`); were it
   * to keep the call, every attempt's objects would live on until a full collection.
   */
  #over(): void {
    const request = this.#request;
    if (request === undefined) return;
    if (request.signal.target === this) request.signal.target = undefined;
    this.#request = undefined;
    this.#call = undefined;
    this.#reject = undefined;
  }

  abortAttempt(reason: unknown): void {
    if (this.#cut) return;
    this.#cut = { reason };
    this.#controller?.abort(reason);
    this.#exchange?.abort(reason);
    if (this.#more) for (const exchange of this.#more) exchange.abort(reason);
    this.#reject?.(reason);
    this.#over();
  }

  /** `context.signal`: made on first read, aborted at once if the attempt is already cut. */
  signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#cut) this.#controller.abort(this.#cut.reason);
    }
    return this.#controller.signal;
  }

  async #send(next: MiddlewareRequest): Promise<Response> {
    const request = this.#request;
    const call = this.#call;
    if (request === undefined || call === undefined) {
      throw new TypeError(
        `next() was called after the attempt of ${this.#context.operation} had ended: a middleware sends within its attempt (its limiter slot, timeout and deadline), never after`,
      );
    }
    const { origin, path } = next.url === this.#url ? request : splitUrl(next.url);
    const key = this.#context.idempotencyKey;
    const headers = AttemptHeaders.wireHeaders(next.headers, key);
    const signal = new AttemptSignal();
    if (this.#cut) signal.abort(this.#cut.reason);
    if (this.#exchange === undefined) this.#exchange = signal;
    else (this.#more ??= new Set()).add(signal);
    this.#sent = true;
    try {
      return new AnswerResponse(
        await this.#client.wire.send({ method: next.method, origin, path, headers, body: next.body, signal }),
      ) as unknown as Response;
    } catch (error) {
      const typed = call.exchangeFailure(error, origin);
      (this.#passed ??= []).push(typed);
      throw typed;
    } finally {
      if (this.#exchange === signal) this.#exchange = undefined;
      else this.#more?.delete(signal);
    }
  }

  /** What the call is told of the chain's failure; the attempt is over then. */
  #failed(error: unknown): unknown {
    const call = this.#call;
    this.#over();
    if (call === undefined || this.#cut || this.#passed?.includes(error)) return error;
    if (error instanceof RetryableError) {
      (error as { requestNotSent: boolean }).requestNotSent = !this.#sent;
      return error;
    }
    call.middlewareFailed(error);
    return error;
  }
}

/** An absolute http(s) URL as the wire takes it: the origin, and the path and query as written. */
function splitUrl(url: unknown): { origin: string; path: string } {
  if (typeof url === 'string') {
    const scheme = url.indexOf('://');
    const head = url.slice(0, scheme).toLowerCase();
    if (scheme > 0 && (head === 'https' || head === 'http')) {
      const slash = url.indexOf('/', scheme + 3);
      return slash < 0 ? { origin: url, path: '/' } : { origin: url.slice(0, slash), path: url.slice(slash) };
    }
  }
  throw new TypeError(
    `a middleware passed next() a request whose url is not an absolute http(s) URL (got ${typeof url === 'string' ? JSON.stringify(url.slice(0, 80)) : typeof url})`,
  );
}

function ignore(): void {}
