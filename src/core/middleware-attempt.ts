/**
 * One attempt of a call through its middleware: the request each middleware is given, the
 * Response `next` resolves to, and what the chain's answer becomes for the pipeline. Built so that
 * a pass-through middleware costs little: the request's `Headers` exist only once a middleware
 * reads them, and the Response of `next` keeps the wire's answer as it is, its body handed out
 * from the text already read rather than through a stream.
 */
import { RetryableError } from './errors.js';
import { type Middleware, type MiddlewareContext, type MiddlewareNext, type MiddlewareRequest, checkedAnswer, runChain } from './middleware.js';
import type { HttpMethod } from './types.js';
import { AttemptSignal, type AttemptTarget, readAnswer, type Wire, type WireRequest, type WireResponse } from './wire.js';

/** A middleware's request: `headers` built on first use from the attempt's own, as lower-cased names. */
class AttemptRequest implements MiddlewareRequest {
  method: HttpMethod;
  url: string;
  body: string | undefined;
  declare headers: Headers;
  #record: Readonly<Record<string, string>>;
  #headers: Headers | undefined;

  /**
   * `headers` as an own, enumerable accessor, so that `{ ...request, url }` copies the headers as
   * a spread should; one descriptor for every request (no closures made per attempt).
   */
  static readonly #headersProperty: PropertyDescriptor = {
    enumerable: true,
    configurable: true,
    get(this: AttemptRequest): Headers {
      return (this.#headers ??= new Headers(this.#record));
    },
    set(this: AttemptRequest, value: Headers): void {
      this.#headers = value;
    },
  };

  constructor(method: HttpMethod, url: string, record: Readonly<Record<string, string>>, body: string | undefined) {
    this.method = method;
    this.url = url;
    this.body = body;
    this.#record = record;
    Object.defineProperty(this, 'headers', AttemptRequest.#headersProperty);
  }

  /**
   * The headers as the wire takes them, carrying the call's key: the attempt's own as they are
   * when no middleware read them (they carry it already, and the wire never changes them).
   */
  wireHeaders(key: string | undefined): Record<string, string> {
    return this.#headers === undefined ? this.#record : keyed(headerRecord(this.#headers), key);
  }
}

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

const utf8 = new TextEncoder();

/**
 * The Response `next` resolves to: a real WHATWG Response whose status is the server's, its
 * headers built on first use, and its body the text the wire already read — read once, as any
 * Response's. The pipeline takes the wire's answer back from it as it is, read or not.
 */
class AnswerResponse extends Response {
  readonly #answer: WireResponse;
  #headers: Headers | undefined;
  #used = false;
  #stream: ReadableStream<Uint8Array<ArrayBuffer>> | null | undefined;

  constructor(answer: WireResponse) {
    super(null, { status: answer.status });
    this.#answer = answer;
  }

  static answerOf(response: Response): WireResponse | undefined {
    return response instanceof AnswerResponse ? response.#answer : undefined;
  }

  override get headers(): Headers {
    return (this.#headers ??= new Headers(this.#answer.headers));
  }

  override get bodyUsed(): boolean {
    return this.#used;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    if (this.#stream === undefined) {
      const text = this.#answer.body;
      this.#stream =
        text === ''
          ? null
          : new ReadableStream<Uint8Array<ArrayBuffer>>({
              pull: (controller) => {
                this.#used = true;
                controller.enqueue(utf8.encode(text));
                controller.close();
              },
            });
    }
    return this.#stream;
  }

  #read(): Promise<string> {
    if (this.#used) return Promise.reject(new TypeError('Body is unusable: it has already been read'));
    this.#used = true;
    return Promise.resolve(this.#answer.body);
  }

  override text(): Promise<string> {
    return this.#read();
  }

  override json(): Promise<unknown> {
    return this.#read().then((text) => JSON.parse(text) as unknown);
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.#read().then((text) => utf8.encode(text).buffer);
  }

  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#read().then((text) => utf8.encode(text));
  }

  override blob(): Promise<Blob> {
    return this.#read().then((text) => new Blob([text], { type: this.#answer.headers['content-type'] ?? '' }));
  }

  override clone(): Response {
    if (this.#used) throw new TypeError('Response.clone: the body has already been read');
    return new AnswerResponse(this.#answer);
  }
}

/** What one attempt through a chain needs of its call. */
export interface ChainAttempt {
  middleware: readonly Middleware[];
  wire: Wire;
  /** The request as the client built it for this attempt (its signal is the attempt's). */
  request: WireRequest;
  context: Omit<MiddlewareContext, 'signal'>;
  maxResponseBytes: number;
  /** The typed error of a failed exchange, as the call reports wire failures (see CallLifetime.attemptFailure). */
  failure(error: unknown, origin: string): unknown;
  /** Told of an error a middleware threw of its own: it ends the call as it is, unretried. */
  ownFailure(error: unknown): void;
}

/**
 * One attempt through the chain: each middleware gets a fresh request, `next` sends through the
 * wire (the `Idempotency-Key` put back to the call's own), and whatever Response the chain
 * returns is read as the server's answer. Settles no later than the attempt is cut (its timeout,
 * the caller's signal, the client closing), however long a middleware takes: the cut reaches the
 * chain, every exchange in flight and `context.signal` through the attempt's one target, without
 * an event listener on the hot path.
 */
export function sendThroughChain(attempt: ChainAttempt): Promise<WireResponse> {
  return new ChainRun(attempt).run();
}

/**
 * A middleware's `context`. `signal` is an own accessor, as `{ ...context }` should copy it, whose
 * getter is one function for every context: a getter made per attempt would give each context a
 * map of its own, and the chain of maps keeps every attempt's objects alive until a full GC.
 */
class ChainContext implements MiddlewareContext {
  readonly operation: string;
  readonly route: string;
  readonly attempt: number;
  readonly idempotencyKey: string | undefined;
  declare readonly signal: AbortSignal;
  readonly logger: MiddlewareContext['logger'];
  readonly #run: ChainRun;

  static readonly #signalProperty: PropertyDescriptor = {
    enumerable: true,
    configurable: true,
    get(this: ChainContext): AbortSignal {
      return this.#run.signal();
    },
  };

  constructor(context: ChainAttempt['context'], run: ChainRun) {
    this.operation = context.operation;
    this.route = context.route;
    this.attempt = context.attempt;
    this.idempotencyKey = context.idempotencyKey;
    this.logger = context.logger;
    this.#run = run;
    Object.defineProperty(this, 'signal', ChainContext.#signalProperty);
  }
}

/**
 * The state of one attempt through a chain. One object with its methods rather than closures over
 * a function's scope, and an `AbortController` made only for a middleware that reads
 * `context.signal`: a pass-through middleware costs a few allocations per attempt.
 */
class ChainRun implements AttemptTarget {
  /** The attempt; undefined once its answer is settled, so that nothing this run outlives keeps the call. */
  #attempt: ChainAttempt | undefined;
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
  readonly #context: MiddlewareContext;
  readonly #next: MiddlewareNext;

  constructor(attempt: ChainAttempt) {
    this.#attempt = attempt;
    const signal = attempt.request.signal;
    if (signal.aborted) this.#cut = { reason: signal.reason };
    this.#context = new ChainContext(attempt.context, this);
    this.#next = (forward) => {
      const answer = this.#send(forward);
      // A middleware may start `next` and answer without awaiting it: its failure is then no one's.
      answer.catch(ignore);
      return answer;
    };
  }

  run(): Promise<WireResponse> {
    const attempt = this.#attempt as ChainAttempt;
    const initial = new AttemptRequest(
      attempt.request.method,
      attempt.request.origin + attempt.request.path,
      attempt.request.headers,
      attempt.request.body,
    );
    return new Promise<WireResponse>((resolve, reject) => {
      if (this.#cut) {
        this.#over();
        reject(this.#cut.reason);
        return;
      }
      attempt.request.signal.target = this;
      this.#reject = reject;
      runChain(attempt.middleware, initial, this.#context, this.#next).then(
        (value) => {
          let response: Response;
          try {
            response = checkedAnswer(value, attempt.middleware, 0, this.#context);
          } catch (error) {
            reject(this.#failed(error));
            return;
          }
          this.#over();
          const answer = AnswerResponse.answerOf(response);
          if (answer) resolve(answer);
          else readAnswer(response, initial.url, attempt.maxResponseBytes).then(resolve, reject);
        },
        (error: unknown) => reject(this.#failed(error)),
      );
    });
  }

  /**
   * The attempt's answer is settled: the attempt's signal forgets this run, and this run forgets
   * the attempt. A run can outlive its attempt (a middleware holding `next` or `context`); were it
   * to keep the call, every attempt's objects would live on until a full collection.
   */
  #over(): void {
    const attempt = this.#attempt;
    if (attempt === undefined) return;
    if (attempt.request.signal.target === this) attempt.request.signal.target = undefined;
    this.#attempt = undefined;
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
    const attempt = this.#attempt;
    if (attempt === undefined) {
      throw new TypeError(
        `next() was called after the attempt of ${this.#context.operation} had ended: a middleware sends within its attempt (its limiter slot, timeout and deadline), never after`,
      );
    }
    const { request } = attempt;
    const { origin, path } = next.url === request.origin + request.path ? request : splitUrl(next.url);
    const key = attempt.context.idempotencyKey;
    const headers = next instanceof AttemptRequest ? next.wireHeaders(key) : keyed(headerRecord(next.headers), key);
    const signal = new AttemptSignal();
    if (this.#cut) signal.abort(this.#cut.reason);
    if (this.#exchange === undefined) this.#exchange = signal;
    else (this.#more ??= new Set()).add(signal);
    this.#sent = true;
    try {
      return new AnswerResponse(await attempt.wire.send({ method: next.method, origin, path, headers, body: next.body, signal }));
    } catch (error) {
      const typed = attempt.failure(error, origin);
      (this.#passed ??= []).push(typed);
      throw typed;
    } finally {
      if (this.#exchange === signal) this.#exchange = undefined;
      else this.#more?.delete(signal);
    }
  }

  /** What the call is told of the chain's failure; the attempt is over then. */
  #failed(error: unknown): unknown {
    const attempt = this.#attempt;
    this.#over();
    if (attempt === undefined || this.#cut || this.#passed?.includes(error)) return error;
    if (error instanceof RetryableError) {
      (error as { requestNotSent: boolean }).requestNotSent = !this.#sent;
      return error;
    }
    attempt.ownFailure(error);
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
