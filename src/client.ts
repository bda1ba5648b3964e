import type { z } from 'zod';
import { ApiPromise } from './core/api-promise.js';
import type { ClientOptions, CloseOptions } from './core/options.js';
import type { HttpMethod, Query, RequestOptions } from './core/request.js';
import { REQUEST_OPTION_NAMES, refuseUnknownInput } from './core/config.js';
import { RequestValidationError } from './core/errors.js';
import { ClientTransport } from './core/transport.js';
import { checkRawRequestFields, toWirePath } from './core/validate.js';
import type { OptionNames } from './shared/option-names.js';
import {
  Auth,
  Billing,
  Devices,
  Esim,
  Orders,
  Plans,
  PortIns,
  SimGroups,
  Sims,
  Sms,
  Subscriptions,
  TeamMembers,
  Transactions,
  UserGroups,
  Users,
  VoiceQuality,
  Webhooks,
} from './resources/index.js';

/** A call of {@link PartnerClient.request}: any path of the API, through the same pipeline as the resources. */
export interface RawRequest<T> extends RequestOptions {
  /** The HTTP method. */
  method: HttpMethod;
  /**
   * A path relative to the base URL (`/api/v1.1/...`). RFC 3986 characters and %XX escapes are
   * sent as given; spaces, non-ASCII text and `"<>[\]^`{|}` are percent-encoded; control
   * characters, '#', '?', a stray '%' and '.'/'..' segments are refused (RequestValidationError).
   */
  path: string;
  /** Query parameters; `undefined` and `null` values are left out. */
  query?: Query | undefined;
  /** A JSON body. */
  body?: unknown;
  /** Validates (and types) the unwrapped data. */
  schema?: z.ZodType<T> | undefined;
  /** Send the bearer token; default true. */
  auth?: boolean | undefined;
  /** The answer uses the standard envelope; default true. */
  envelope?: boolean | undefined;
  /**
   * The route promises idempotency, as the spec's (idem) routes do: a key is generated when none
   * is given and the call is retried after timeouts and 5xx with it. Default false.
   */
  idempotent?: boolean | undefined;
}

const HTTP_METHODS: ReadonlySet<string> = new Set<HttpMethod>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

const RAW_REQUEST_NAMES = {
  method: true,
  path: true,
  query: true,
  body: true,
  schema: true,
  auth: true,
  envelope: true,
  idempotent: true,
  ...REQUEST_OPTION_NAMES,
} as const satisfies OptionNames<RawRequest<unknown>>;

/**
 * The Partner API client: one per account and process, shared by all your code. Constructing it
 * does no I/O and schedules nothing. Every call goes through one pipeline: token exchange and
 * re-authentication, the client-side rate limiter, retries with backoff and `Retry-After`,
 * `Idempotency-Key`s, timeouts, and typed results or typed errors.
 *
 * @throws {@link ConfigurationError} when an option is invalid or unknown, naming it.
 * @example
 * ```ts
 * import { PartnerClient } from 'mobile-partner-sdk';
 *
 * const client = new PartnerClient({
 *   baseUrl: 'https://partner.example.com',
 *   key: process.env.PARTNER_API_KEY,
 *   secret: process.env.PARTNER_API_SECRET,
 * });
 * const handle = await client.esim.provision({ planId: 'Business 5GB' });
 * const done = await handle.wait();
 * console.log(done.result.iccid);
 * await client.close();
 * ```
 */
export class PartnerClient {
  /** The token exchange; normally automatic. */
  readonly auth: Auth;
  /** SIMs and eSIMs: the list, a line's subscription, number renewal. */
  readonly sims: Sims;
  /** Subscriptions: the list and cancellation. */
  readonly subscriptions: Subscriptions;
  /** Plans: the catalogue and purchases. */
  readonly plans: Plans;
  /** eSIM provisioning and activation QR codes. */
  readonly esim: Esim;
  /** Port-ins: eligibility, submission and the list. */
  readonly portIns: PortIns;
  /** Credit balance and top-ups. */
  readonly billing: Billing;
  /** Team members (account admins). */
  readonly teamMembers: TeamMembers;
  /** Groups of SIMs. */
  readonly simGroups: SimGroups;
  /** Groups of end users. */
  readonly userGroups: UserGroups;
  /** Devices assigned to end users. */
  readonly devices: Devices;
  /** Outbound SMS. */
  readonly sms: Sms;
  /** Voice-quality report receivers. */
  readonly voiceQuality: VoiceQuality;
  /** Webhook registrations and their delivery log. */
  readonly webhooks: Webhooks;
  /** Asynchronous operations by transaction id. */
  readonly transactions: Transactions;
  /** Order records. */
  readonly orders: Orders;
  /** End users. */
  readonly users: Users;
  readonly #transport: ClientTransport;

  constructor(options: ClientOptions = {}) {
    const transport = new ClientTransport(options);
    this.#transport = transport;
    this.auth = new Auth(transport);
    this.sims = new Sims(transport);
    this.subscriptions = new Subscriptions(transport);
    this.plans = new Plans(transport);
    this.transactions = new Transactions(transport);
    this.esim = new Esim(transport);
    this.portIns = new PortIns(transport);
    this.billing = new Billing(transport);
    this.teamMembers = new TeamMembers(transport);
    this.simGroups = new SimGroups(transport);
    this.userGroups = new UserGroups(transport);
    this.devices = new Devices(transport);
    this.sms = new Sms(transport);
    this.voiceQuality = new VoiceQuality(transport);
    this.webhooks = new Webhooks(transport);
    this.orders = new Orders(transport);
    this.users = new Users(transport);
  }

  /**
   * Any path of the API through the same pipeline as the resources: auth, limiter, retries,
   * envelope, typed errors. For an endpoint newer than this SDK, or a field it does not model.
   *
   * @throws {@link RequestValidationError} (as a rejection) for an unknown member of `input`, a
   * bad method or a path with `?`, `#`, control characters or dot segments; nothing is sent.
   * @example
   * ```ts
   * import * as z from 'zod';
   * import { PartnerClient } from 'mobile-partner-sdk';
   *
   * const client = new PartnerClient();
   * const member = await client.request({
   *   method: 'GET',
   *   path: '/api/v1.1/team-members/ada%40acme.example',
   *   schema: z.object({ email: z.string() }).loose(),
   * });
   * console.log(member.email);
   * ```
   */
  request<T = unknown>(input: RawRequest<T>): ApiPromise<T> {
    const { method, path, query, body, schema, auth, envelope, idempotent, ...options } = input;
    let wirePath: string;
    try {
      refuseUnknownInput(input, RAW_REQUEST_NAMES, 'request option', 'request');
      if (!HTTP_METHODS.has(method)) {
        throw new RequestValidationError([{ path: 'method', message: `must be one of ${[...HTTP_METHODS].join(', ')}` }], 'request');
      }
      wirePath = toWirePath(path, `${method} ${String(path)}`);
      checkRawRequestFields({ auth, envelope, idempotent, query, schema }, `${method} ${wirePath}`);
    } catch (error) {
      return new ApiPromise<T>(Promise.reject(error));
    }
    return new ApiPromise(
      this.#transport.send<T>({
        operation: 'request',
        method,
        path: wirePath,
        route: `${method} ${wirePath}`,
        rawPath: true,
        query,
        body,
        auth: auth ?? true,
        envelope: envelope ?? true,
        idempotent: idempotent ?? false,
        schema,
        options,
      }),
    );
  }

  /**
   * Graceful shutdown: new calls are refused with ClientClosedError; calls already started run
   * to their end (retries included) and are cut with ClientClosedError once `timeoutMs`
   * (default 30 000) has passed. Resolves once every call has settled and the connection pool,
   * the limiter and every timer are released, so the process can exit. Idempotent.
   */
  close(options?: CloseOptions): Promise<void> {
    return this.#transport.close(options);
  }

  /**
   * Cuts every call at once — in flight, in a retry wait, in the rate limiter's queue — with
   * ClientClosedError, then releases like `close()`. Idempotent.
   */
  destroy(): Promise<void> {
    return this.#transport.destroy();
  }

  /** Base URL and safe options only; the key, secret and token never print. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `PartnerClient ${this.#transport.describe()}`;
  }

  /** Base URL and safe options, as `util.inspect` shows them; never a credential. */
  toJSON(): Record<string, unknown> {
    return this.#transport.toJSON();
  }
}
