import { type TokenResponse, tokenResponseSchema } from '../schemas/token.js';
import { TOKEN_PATH, TokenManager } from './auth.js';
import { Call, type TransportContext } from './call.js';
import { basePathOf, checkClientOptions, checkCloseOptions, parseBaseUrl } from './config.js';
import { DEFAULT_CLOSE_TIMEOUT_MS, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from './defaults.js';
import { endError } from './call-end.js';
import { ClientClosedError, ConfigurationError } from './errors.js';
import { USER_AGENT, lowerCaseHeaders } from './headers.js';
import { diagnosticsObserver } from './diagnostics.js';
import { accountId } from './account-id.js';
import { type CallObserver, type TransactionWaitObservation, guardInstruments } from './observer.js';
import { openTelemetryInstruments } from './opentelemetry.js';
import { compileObjects } from './compiled-objects.js';
import { LevelLogger } from './logger.js';
import type { ClientOptions, CloseOptions } from './options.js';
import { type LimiterContext, LocalRateLimiter, type RateLimiter, isRateLimiter } from './rate-limit.js';
import { DEFAULT_MAX_SERVER_WAIT_MS } from './retry.js';
import { Sleepers } from './sleep.js';
import { Scrubber, assertSecureBaseUrl } from './redact.js';
import type { ApiResult, RequestOptions, RequestSpec, Transport } from './request.js';
import { defaultWire, wireKind } from './default-wire.js';
import { DEFAULT_MAX_RESPONSE_BYTES, FetchWire } from './wire.js';

// Before any schema is built (they are built on first use): the Node build's object schemas
// parse with zod's compiled parser; the web build's twin leaves zod/mini's (schemas/objects.ts).
compileObjects();

function fromEnv(name: string): string | undefined {
  return typeof process === 'undefined' ? undefined : process.env[name] || undefined;
}

/**
 * Which credential is missing, as the error to throw; undefined when both are there. Their values
 * are never shown, only whether each was given.
 */
function missingCredential(key: string | undefined, secret: string | undefined): ConfigurationError | undefined {
  if (key && secret) return undefined;
  if (!key && !secret) {
    return new ConfigurationError(
      'key and secret are required: pass them to the client ({ key, secret }) or set PARTNER_API_KEY and PARTNER_API_SECRET',
      'CONFIGURATION_ERROR',
      'key',
    );
  }
  const [option, variable, other] = key ? (['secret', 'PARTNER_API_SECRET', 'key'] as const) : (['key', 'PARTNER_API_KEY', 'secret'] as const);
  return new ConfigurationError(
    `${option} is required: pass it to the client ({ ${option} }) or set ${variable} (the ${other} is set)`,
    'CONFIGURATION_ERROR',
    option,
  );
}

function safeUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    const url = new URL(value);
    return url.origin + url.pathname;
  } catch {
    return '[invalid URL]';
  }
}

/**
 * The client's transport: the one path every call goes through (auth → limiter → retry → wire →
 * envelope). Construction only copies options: the base URL, credentials, wire and limiter are
 * resolved into its context on the first call, so a client costs little until used.
 */
export class ClientTransport implements Transport {
  readonly #options: Readonly<ClientOptions>;
  #key: string | undefined;
  #secret: string | undefined;
  #context: TransportContext | undefined;
  /** Outlives the context: errors built after `close()` are scrubbed too. */
  #scrubber: Scrubber | undefined;
  /** Set by close() or destroy(): new calls are refused. */
  #closing = false;
  /** The one shutdown both close() and destroy() share. */
  #closed: Promise<void> | undefined;
  /** Every call started and not yet settled, the token exchanges included. */
  readonly #active = new Set<Call<unknown>>();
  #drained: (() => void) | undefined;
  /** The transport's one observer (diagnostics channels, spans, metrics), built on first use. */
  #observer: CallObserver | null | undefined;
  /** The caller's logger at its level, built on first use: the observer's reports and the calls' lines. */
  #logger: LevelLogger | undefined;
  /** The sleeps between the polls of `wait()`: no call runs then, so close() ends them as destroy() does. */
  readonly #pollSleeps = new Sleepers();
  /** Set once destroy() or close()'s timeout cut the calls: the exchange a cut call might still ask for is refused. */
  #cut = false;

  /** Throws ConfigurationError naming the first invalid option: a bad client is refused before it is used. */
  constructor(options: ClientOptions = {}) {
    checkClientOptions(options);
    const { key, secret, ...rest } = options;
    this.#options = rest;
    this.#key = key;
    this.#secret = secret;
  }

  send<T>(spec: RequestSpec<T>): Promise<ApiResult<T>> {
    // Every failure, configuration included, arrives as a rejection, never as a synchronous throw.
    try {
      if (this.#closing) throw this.#refused(spec.route);
      return this.#track(new Call(this.#context ?? this.#build(), spec));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #refused(route: string): ClientClosedError {
    return endError({ reason: 'client_closed', route });
  }

  /** Runs a call and keeps it in the set `close()` waits for and `destroy()` cuts, until it settles. */
  #track<T>(call: Call<T>): Promise<ApiResult<T>> {
    const active = this.#active;
    active.add(call);
    const result = call.run();
    const settled = (): void => {
      active.delete(call);
      if (active.size === 0) this.#drained?.();
    };
    result.then(settled, settled);
    return result;
  }

  /**
   * Graceful: new calls are refused with ClientClosedError at once; calls already started run
   * to their end, retries included, and are cut with ClientClosedError once `timeoutMs` (default
   * 30 s) has passed. Resolves when every call has settled and the connection pool, the limiter
   * and every timer are released: nothing keeps the process alive afterwards. Idempotent.
   */
  close(options?: CloseOptions): Promise<void> {
    try {
      checkCloseOptions(options);
    } catch (error) {
      return Promise.reject(error);
    }
    this.#stopPolling('the client was closed');
    return (this.#closed ??= this.#shutDown(options?.timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS));
  }

  /** New calls are refused from now on, so a wait() sleeping before its next poll ends at once. */
  #stopPolling(why: string): void {
    if (!this.#closing) this.#pollSleeps.close(new ClientClosedError(why));
    this.#closing = true;
  }

  /** Cuts every call in flight or waiting with ClientClosedError at once, then releases like `close()`. Idempotent. */
  destroy(): Promise<void> {
    this.#stopPolling('the client was destroyed');
    this.#cutAll('the client was destroyed');
    return (this.#closed ??= this.#shutDown(0));
  }

  #cutAll(why: string): void {
    this.#cut = true;
    const context = this.#context;
    for (const call of this.#active) call.cut(why);
    if (!context) return;
    // Waits of cut calls reject here; each call reports its own ClientClosedError.
    const reason = new ClientClosedError(why);
    context.sleepers.close(reason);
    if (context.ownsLimiter) context.limiter?.close();
  }

  async #shutDown(timeoutMs: number): Promise<void> {
    if (this.#active.size > 0) {
      const drained = new Promise<void>((resolve) => {
        this.#drained = resolve;
      });
      const timer =
        timeoutMs > 0 ? setTimeout(() => this.#cutAll(`the client was closed and its ${timeoutMs} ms close timeout passed`), timeoutMs) : undefined;
      await drained;
      clearTimeout(timer);
    }
    const context = this.#context;
    this.#context = undefined;
    if (!context) return;
    context.sleepers.close(endError({ reason: 'client_closed', route: undefined }));
    if (context.ownsLimiter) context.limiter?.close();
    await context.wire.close();
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return this.#pollSleeps.sleep(ms, signal);
  }

  redact<V>(value: V): V {
    return this.#scrubber ? (this.#scrubber.value(value) as V) : value;
  }

  #levelLogger(): LevelLogger {
    return (this.#logger ??= new LevelLogger(this.#options.logger, this.#options.logLevel));
  }

  #observe(): CallObserver | undefined {
    if (this.#observer === undefined) {
      this.#observer =
        guardInstruments([diagnosticsObserver(), ...openTelemetryInstruments(this.#options.propagateTraceContext ?? false)], this.#levelLogger()) ??
        null;
    }
    return this.#observer ?? undefined;
  }

  watchTransaction(operation: string | undefined): TransactionWaitObservation | undefined {
    const observer = this.#observe();
    return observer?.enabled ? observer.startTransactionWait?.({ operation }) : undefined;
  }

  #build(): TransportContext {
    if (this.#closing) throw endError({ reason: 'client_closed', route: undefined });
    const options = this.#options;
    const baseUrl = options.baseUrl ?? fromEnv('PARTNER_API_BASE_URL');
    if (!baseUrl) {
      throw new ConfigurationError(
        'baseUrl is required: pass it to the client ({ baseUrl }) or set PARTNER_API_BASE_URL',
        'CONFIGURATION_ERROR',
        'baseUrl',
      );
    }
    // An option was checked at construction; PARTNER_API_BASE_URL is checked here, on first use.
    const url = parseBaseUrl(baseUrl);
    if (typeof url === 'string') {
      const source = options.baseUrl === undefined ? 'PARTNER_API_BASE_URL' : 'client option baseUrl';
      throw new ConfigurationError(`invalid ${source}: ${url}`, 'CONFIGURATION_ERROR', 'baseUrl');
    }
    assertSecureBaseUrl(url, options.allowInsecureHttp ?? false);
    // Both were checked at construction (checkClientOptions).
    const maxServerWaitMs = options.maxServerWaitMs ?? DEFAULT_MAX_SERVER_WAIT_MS;
    const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const scrubber = (this.#scrubber ??= new Scrubber());
    const wire = defaultWire(options, maxResponseBytes);
    // A limiter the caller gave may be shared by other clients: it is theirs to close.
    let limiter: RateLimiter | undefined;
    let ownsLimiter = false;
    if (isRateLimiter(options.rateLimit)) limiter = options.rateLimit;
    else if (options.rateLimit !== false) {
      limiter = new LocalRateLimiter(options.rateLimit, maxServerWaitMs);
      ownsLimiter = true;
    }
    const logger = this.#levelLogger();
    const context: TransportContext = {
      origin: url.origin,
      basePath: basePathOf(url),
      wire,
      parsesUrls: wire instanceof FetchWire,
      limiter,
      ownsLimiter,
      tokens: new TokenManager(
        () => this.#exchange(),
        (token, previous) => {
          // Calls started with the previous token may still be in flight and see it echoed.
          scrubber.retire(previous);
          scrubber.add(token);
        },
      ),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      validate: options.validateResponses !== 'off',
      baseHeaders: { 'user-agent': USER_AGENT, accept: 'application/json', ...lowerCaseHeaders(options.defaultHeaders) },
      logger,
      scrubber,
      sleepers: new Sleepers(),
      maxServerWaitMs,
      observer: this.#observe(),
      // A copy: the caller's array changing later does not change the calls.
      middleware: options.middleware?.length ? [...options.middleware] : undefined,
      middlewareLogger: logger.asLogger(),
      maxResponseBytes,
    };
    if (!ownsLimiter && limiter?.attach) limiter.attach(this.#limiterContext(url.origin, context.logger, maxServerWaitMs));
    this.#context = context;
    return context;
  }

  /** The API key: the option, else PARTNER_API_KEY read once. */
  #apiKey(): string | undefined {
    return (this.#key ??= fromEnv('PARTNER_API_KEY'));
  }

  /** What a limiter given as an option learns of this client: never the key, only a digest of it. */
  #limiterContext(origin: string, logger: LevelLogger, maxServerWaitMs: number): LimiterContext {
    return {
      accountId: accountId(origin, this.#apiKey() ?? ''),
      logger: this.#options.logger ? logger.asLogger() : undefined,
      maxServerWaitMs,
    };
  }

  /** spec part 5 rule 1. A 401 here is final: AuthenticationError, no re-authentication loop. */
  #exchange() {
    return this.#runExchange(undefined).then((result) => result.data);
  }

  /** `client.auth.token()`: one explicit exchange with the client's credentials, the token response as on the wire. */
  exchangeToken(options?: RequestOptions): Promise<ApiResult<TokenResponse>> {
    try {
      if (this.#closing) throw this.#refused(`POST ${TOKEN_PATH}`);
      if (!this.#context) this.#build();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#runExchange(options);
  }

  #runExchange(options: RequestOptions | undefined): Promise<ApiResult<TokenResponse>> {
    const context = this.#context;
    if (!context || this.#cut) return Promise.reject(this.#refused(`POST ${TOKEN_PATH}`));
    this.#apiKey();
    this.#secret ??= fromEnv('PARTNER_API_SECRET');
    const missing = missingCredential(this.#key, this.#secret);
    if (missing) return Promise.reject(missing);
    context.scrubber.add(this.#key);
    context.scrubber.add(this.#secret);
    const spec: RequestSpec<TokenResponse> = {
      operation: 'auth.token',
      method: 'POST',
      path: TOKEN_PATH,
      route: `POST ${TOKEN_PATH}`,
      body: { key: this.#key, secret: this.#secret },
      auth: false,
      envelope: true,
      idempotent: false,
      schema: tokenResponseSchema(),
      // The client reads access_token and expires_in itself: checked in every validation mode.
      alwaysValidate: true,
      options,
    };
    // The exchange has no side effect, so it is retried like a read.
    return this.#track(new Call(context, spec, true));
  }

  /** Only what is safe to print: never the key, the secret, the token or credentials in the URL. */
  describe(): string {
    const options = this.#options;
    const safe = {
      baseUrl: safeUrl(options.baseUrl ?? fromEnv('PARTNER_API_BASE_URL')),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      rateLimit: options.rateLimit === false ? false : isRateLimiter(options.rateLimit) ? 'custom' : 'on',
      wire: wireKind(options),
      validateResponses: options.validateResponses ?? 'strict',
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      maxServerWaitMs: options.maxServerWaitMs ?? DEFAULT_MAX_SERVER_WAIT_MS,
      propagateTraceContext: options.propagateTraceContext ?? false,
      closed: this.#closing,
    };
    return JSON.stringify(safe);
  }

  toJSON(): Record<string, unknown> {
    return { baseUrl: safeUrl(this.#options.baseUrl ?? fromEnv('PARTNER_API_BASE_URL')) };
  }
}
