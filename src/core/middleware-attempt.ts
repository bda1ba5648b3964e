/**
 * One attempt of a call through its middleware: the request each middleware is given, the
 * Response `next` resolves to, and what the chain's answer becomes for the pipeline. Built so that
 * a pass-through middleware costs little: the request's `Headers` exist only once a middleware
 * reads them, and the Response of `next` keeps the wire's answer as it is, its body handed out
 * from the text already read rather than through a stream.
 */
import { RetryableError } from './errors.js';
import { type Middleware, type MiddlewareContext, type MiddlewareNext, type MiddlewareRequest, runChain } from './middleware.js';
import type { HttpMethod } from './request.js';
import { AttemptSignal, readAnswer, type Wire, type WireRequest, type WireResponse } from './wire.js';

/** A middleware's request: `headers` built on first use from the attempt's own, as lower-cased names. */
class AttemptRequest implements MiddlewareRequest {
  method: HttpMethod;
  url: string;
  body: string | undefined;
  declare headers: Headers;
  #record: Readonly<Record<string, string>>;
  #headers: Headers | undefined;

  constructor(method: HttpMethod, url: string, record: Readonly<Record<string, string>>, body: string | undefined) {
    this.method = method;
    this.url = url;
    this.body = body;
    this.#record = record;
    // An own, enumerable accessor: `{ ...request, url }` copies the headers as a spread should.
    Object.defineProperty(this, 'headers', {
      enumerable: true,
      configurable: true,
      get: () => (this.#headers ??= new Headers(this.#record)),
      set: (value: Headers) => void (this.#headers = value),
    });
  }

  /** The headers as the wire takes them; a copy of the attempt's own when no middleware read them. */
  wireHeaders(): Record<string, string> {
    return this.#headers === undefined ? { ...this.#record } : headerRecord(this.#headers);
  }
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
  const { request, wire } = attempt;
  const key = attempt.context.idempotencyKey;
  const controller = new AbortController();
  const exchanges = new Set<AttemptSignal>();
  let cutChain: ((reason: unknown) => void) | undefined;
  const attemptSignal = request.signal;
  attemptSignal.target = {
    abortAttempt(reason) {
      controller.abort(reason);
      for (const exchange of exchanges) exchange.abort(reason);
      cutChain?.(reason);
    },
  };
  if (attemptSignal.aborted) controller.abort(attemptSignal.reason);
  /** Failures of `next`: a middleware that lets one through is not the cause of the call's end. */
  const passed = new WeakSet<object>();
  let sent = false;

  const send = async (next: MiddlewareRequest): Promise<Response> => {
    const { origin, path } = splitUrl(next.url);
    const headers = next instanceof AttemptRequest ? next.wireHeaders() : headerRecord(next.headers);
    if (key === undefined) delete headers['idempotency-key'];
    else headers['idempotency-key'] = key;
    const signal = new AttemptSignal();
    if (controller.signal.aborted) signal.abort(controller.signal.reason);
    exchanges.add(signal);
    sent = true;
    try {
      return new AnswerResponse(await wire.send({ method: next.method, origin, path, headers, body: next.body, signal }));
    } catch (error) {
      const typed = attempt.failure(error, origin);
      if (typeof typed === 'object' && typed !== null) passed.add(typed);
      throw typed;
    } finally {
      exchanges.delete(signal);
    }
  };
  const next: MiddlewareNext = (forward) => {
    const answer = send(forward);
    // A middleware may start `next` and answer without awaiting it: its failure is then no one's.
    answer.catch(ignore);
    return answer;
  };

  const initial = new AttemptRequest(request.method, request.origin + request.path, request.headers, request.body);
  const chain = runChain(attempt.middleware, initial, { ...attempt.context, signal: controller.signal }, next);
  chain.catch(ignore);
  const settled = new Promise<Response>((resolve, reject) => {
    if (controller.signal.aborted) reject(controller.signal.reason);
    cutChain = reject;
    chain.then(resolve, reject);
  });
  return settled.then(
    (response) => {
      attemptSignal.target = undefined;
      return AnswerResponse.answerOf(response) ?? readAnswer(response, initial.url, attempt.maxResponseBytes);
    },
    (error: unknown) => {
      attemptSignal.target = undefined;
      if (controller.signal.aborted || (typeof error === 'object' && error !== null && passed.has(error))) throw error;
      if (error instanceof RetryableError) {
        (error as { requestNotSent: boolean }).requestNotSent = !sent;
        throw error;
      }
      attempt.ownFailure(error);
      throw error;
    },
  );
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
