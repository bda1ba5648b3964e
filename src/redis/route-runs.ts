import { createHash, randomBytes } from 'node:crypto';
import { ConfigurationError } from '../core/errors.js';
import type { WindowLimit } from '../core/options.js';
import type { RouteLimits } from '../core/rate-limit.js';
import type { RateLimitInfo } from '../core/request.js';
import { monotonicNow } from '../core/sleep.js';
import { marginMs } from '../core/window-gate.js';
import { type RedisConnection, withTimeout } from './connection.js';
import { decodePause, decodeRenew, encodePause, encodeRenew, pauseScript, renewScript } from './scripts.js';
import { decodeSettle, encodeSettle, type Gate, type GateLimit, type SettleAnswer, type SettleReply, settleScript } from './settle-script.js';

/**
 * The fleet limiter's runs: what is sent to Redis and what comes back, for every route of
 * one account. The queues (route-queue.ts) say when and with what; this says under which keys.
 */

/** An answer not yet settled in Redis. */
export interface Settle {
  sentAt: number;
  rateLimit: RateLimitInfo | undefined;
  /** The number of the first run that carried it (0: none yet); sent again after a run given up on. */
  firstRun: number;
}

/** What a settle run carries, taken from the route's queue as the run is sent. */
export interface Batch {
  settles: Settle[];
  /** The route's requests the process holds once `settles` are applied: in flight, in hand, still to settle. */
  flight: number;
  asking: number;
  offered: number;
}

/** One route's gates, built once per route. */
interface RouteGates {
  /** This process's field in the gates' hashes for this route: the instance id and a digest of the route. */
  field: string;
  /** The route's gate (or its endpoint's), then the account's. */
  gates: Gate[];
  runsKey: string;
  /** The index in `gates` of each limit: the gate X-RateLimit headers with that limit describe. */
  describedBy: Map<number, number>;
}

export interface RouteRunsOptions {
  redis: RedisConnection;
  namespace: string;
  limits: RouteLimits;
  timeoutMs: number;
  /** By when slots taken ahead are back in Redis at the latest. */
  aheadMs: number;
  /** The longest pause a server's answer may impose, until a client attaches with its own. */
  maxPauseMs: number;
}

/**
 * What the limiter sends Redis and what comes back: the keys of each route's gates, under the
 * account's prefix; the settle runs, numbered in the order they are sent; the renewals and the
 * pauses. Each run is encoded and its answer decoded by the script's own functions in
 * scripts.ts; a run that fails or outlasts `timeoutMs` rejects.
 */
export class RouteRuns {
  readonly #redis: RedisConnection;
  readonly #namespace: string;
  readonly #limits: RouteLimits;
  readonly #timeoutMs: number;
  readonly #aheadMs: number;
  /** This process's id in the gates' `flight` and `alive` keys. */
  readonly #instance = randomBytes(6).toString('hex');
  /** The accounts of the clients attached; all must be one. */
  readonly #accounts: Array<Promise<string>> = [];
  #prefix: Promise<string> | undefined;
  readonly #gates = new Map<string, RouteGates>();
  /** The number of the last settle run sent: runs of a route reach Redis numbered in order. */
  #runs = 0;
  /** The longest pause a server's answer may impose (the client's `maxServerWaitMs`). */
  #maxPauseMs: number;

  constructor(options: RouteRunsOptions) {
    this.#redis = options.redis;
    this.#namespace = options.namespace;
    this.#limits = options.limits;
    this.#timeoutMs = options.timeoutMs;
    this.#aheadMs = options.aheadMs;
    this.#maxPauseMs = options.maxPauseMs;
  }

  /** A client attached with `accountId`: its account is checked against the others' at the next run. */
  attach(accountId: Promise<string>, maxPauseMs: number): void {
    this.#maxPauseMs = maxPauseMs;
    this.#accounts.push(accountId);
    this.#prefix = undefined;
    this.#gates.clear();
  }

  /** `namespace:{account}:` — the braces keep one account's keys in one Redis Cluster slot. */
  #keyPrefix(): Promise<string> {
    this.#prefix ??= Promise.all(this.#accounts).then((ids) => {
      const account = ids[0] ?? 'default';
      if (ids.some((id) => id !== account)) {
        throw new ConfigurationError(
          'a RedisRateLimiter serves one account: give the clients of each account a limiter of their own',
          'CONFIGURATION_ERROR',
          'rateLimit',
        );
      }
      return `${this.#namespace}:{${account}}:rl:`;
    });
    return this.#prefix;
  }

  async #routeGates(route: string): Promise<RouteGates> {
    const prefix = await this.#keyPrefix();
    let gates = this.#gates.get(route);
    if (gates) return gates;
    const key = this.#limits.keyOf(route);
    const endpoint: Gate | undefined = key === undefined ? undefined : gate(`${prefix}endpoint:${key}`, this.#limits.limitOf(key));
    const all = [endpoint ?? gate(`${prefix}route:${route}`, undefined), gate(`${prefix}account`, this.#limits.account)];
    const describedBy = new Map<number, number>();
    // Headers describe the tighter limit the server applied: the endpoint's when both match.
    for (let index = all.length - 1; index >= 0; index--) {
      const limit = all[index]?.limit;
      if (limit) describedBy.set(limit.limit, index);
    }
    gates = {
      field: `${this.#instance}:${createHash('sha256').update(route).digest('hex').slice(0, 12)}`,
      gates: all,
      runsKey: `${prefix}runs`,
      describedBy,
    };
    // Concrete paths are unbounded; a full cache starts over rather than grow.
    if (this.#gates.size >= 1024) this.#gates.clear();
    this.#gates.set(route, gates);
    return gates;
  }

  /**
   * One settle run for the route: `take` is given the run's number once the gates are known,
   * and hands over the batch the run carries, which is sent at once.
   */
  async settle(route: string, take: (run: number) => Batch): Promise<SettleReply> {
    const gates = await this.#routeGates(route);
    const run = ++this.#runs;
    const batch = take(run);
    const now = monotonicNow();
    const call = encodeSettle({
      field: gates.field,
      aheadMs: this.#aheadMs,
      gates: gates.gates,
      runsKey: gates.runsKey,
      run,
      flight: batch.flight,
      asking: batch.asking,
      offered: batch.offered,
      longestPauseMs: this.#maxPauseMs,
      answers: batch.settles.map((settle) => this.#answer(gates, settle, now)),
    });
    return decodeSettle(await withTimeout(settleScript.run(this.#redis, call.keys, call.args), this.#timeoutMs));
  }

  #answer(gates: RouteGates, { sentAt, rateLimit, firstRun }: Settle, now: number): SettleAnswer {
    const describedGate = rateLimit === undefined ? undefined : gates.describedBy.get(rateLimit.limit);
    // A limit we were not configured with: only "none left until the reset" is safe to follow (spec part 9 rule 4).
    const pauseMs = rateLimit && describedGate === undefined && rateLimit.remaining <= 0 ? this.clampPause(rateLimit.resetSeconds * 1000) : 0;
    return {
      sinceSentMs: Math.max(0, now - sentAt),
      rateLimit: rateLimit && { remaining: rateLimit.remaining, resetMs: rateLimit.resetSeconds * 1000 },
      describedGate,
      pauseMs,
      firstRun,
    };
  }

  /** Starts this process's lease on the route's limited gates again. */
  renew(route: string): Promise<void> {
    return withTimeout(
      (async () => {
        const { field, gates } = await this.#routeGates(route);
        const limited = gates.flatMap(({ name, limit }) => (limit ? [{ name, leaseMs: limit.leaseMs }] : []));
        const call = encodeRenew({ field, gates: limited });
        decodeRenew(await renewScript.run(this.#redis, call.keys, call.args));
      })(),
      this.#timeoutMs,
    );
  }

  /** Holds the route's gate (its endpoint's, or its own) for `pauseMs`, a pause {@link clampPause} let through. */
  pause(route: string, pauseMs: number): Promise<void> {
    return withTimeout(
      (async () => {
        const { gates } = await this.#routeGates(route);
        const call = encodePause({ gateName: (gates[0] as Gate).name, pauseMs });
        decodePause(await pauseScript.run(this.#redis, call.keys, call.args));
      })(),
      this.#timeoutMs,
    );
  }

  /** NaN and negative are no pause; longer than the client's `maxServerWaitMs` is that. */
  clampPause(ms: number): number {
    if (!(ms > 0)) return 0;
    return Math.ceil(Math.min(ms, this.#maxPauseMs));
  }
}

function gate(name: string, limit: WindowLimit | undefined): Gate {
  return { name, limit: limit && gateLimit(limit) };
}

/** A gate's limit, lease (one window and its margin), window and margin. */
function gateLimit(limit: WindowLimit): GateLimit {
  const margin = marginMs(limit.windowMs);
  return { limit: limit.limit, leaseMs: Math.ceil(limit.windowMs + margin), windowMs: limit.windowMs, marginMs: margin };
}
