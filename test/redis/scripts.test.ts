/**
 * The fleet limiter's scripts, each alone on a real redis-server: a table of runs given, the run
 * asked, and the answer expected. Every case works in a namespace of its own; the windows are a
 * minute long, so nothing frees by the clock while a case runs (the two cases about time passing
 * wait a few milliseconds of the server's clock, nothing more).
 */
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marginMs } from '../../src/core/window-gate.js';
import { Script, StoreReplyError } from '../../src/redis/connection.js';
import {
  CLAIM_LAYOUTS,
  claimScript,
  decodeClaim,
  decodeDone,
  encodeClaim,
  encodeMarkDone,
  encodeRelease,
  MARK_DONE_LAYOUTS,
  markDoneScript,
  RELEASE_LAYOUTS,
  releaseScript,
} from '../../src/redis/dedupe-scripts.js';
import { type Layout, layout, luaLayouts, place } from '../../src/redis/script-layout.js';
import {
  decodePause,
  decodeRenew,
  encodePause,
  encodeRenew,
  PAUSE_LAYOUTS,
  pauseScript,
  RENEW_LAYOUTS,
  renewScript,
} from '../../src/redis/scripts.js';
import {
  decodeSettle,
  encodeSettle,
  type Gate,
  SETTLE_LAYOUTS,
  type SettleAnswer,
  type SettleInput,
  type SettleReply,
  settleScript,
} from '../../src/redis/settle-script.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';

let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis();
  redis = server.client();
});

afterAll(async () => {
  await server.stop();
});

const WINDOW_MS = 60_000;
const MARGIN_MS = marginMs(WINDOW_MS);
const LEASE_MS = Math.ceil(WINDOW_MS + MARGIN_MS);
const AHEAD_MS = 25;
/** Settled requests free at instants rounded up to a thousandth of the window. */
const STEP_MS = WINDOW_MS / 1000;

/** The routes of a case: `open` has a gate of its own that only pauses, `limited` an endpoint's limit; both share the account. */
type Route = 'open' | 'limited' | 'other';

/** A settle run of process `as` (A, B, C …) on a route; what is not given is 0, none, or the next run number. */
interface Run {
  as: string;
  route?: Route;
  run?: number;
  flight?: number;
  asking?: number;
  offered?: number;
  /** The lease of the account's gate, when not a window and its margin. */
  leaseMs?: number;
  answers?: Array<Partial<SettleAnswer>>;
}

type Step =
  | { settle: Run }
  | { pause: 'open' | 'account'; ms: number }
  /** Until the pause key of the open route is gone. */
  | { expire: 'pause' }
  /** Until `ms` have passed on the server's clock. */
  | { pass: number };

/** An answer expected: counts exactly, the wait within [min, max] ms. */
interface Expected {
  admitted: number;
  spares: number;
  waitMs: number | [number, number];
}

interface SettleCase {
  name: string;
  accountLimit?: number;
  endpointLimit?: number;
  given?: Step[];
  ask: Run;
  answer: Expected;
}

const SETTLE_CASES: SettleCase[] = [
  { name: 'an empty window admits every call asked for, with no wait', ask: { as: 'A', asking: 3 }, answer: { admitted: 3, spares: 0, waitMs: 0 } },
  {
    name: 'a full window admits none, and says when a slot frees: within a lease',
    given: [{ settle: { as: 'A', asking: 10 } }],
    ask: { as: 'B', asking: 1 },
    answer: { admitted: 0, spares: 0, waitMs: [1, LEASE_MS] },
  },
  {
    name: 'a window nearly full admits what fits of a batch',
    given: [{ settle: { as: 'A', asking: 8 } }],
    ask: { as: 'B', asking: 5 },
    answer: { admitted: 2, spares: 0, waitMs: [1, LEASE_MS] },
  },
  {
    name: 'a window at most half full grants spares to a lone call: a sixteenth of the limit at most',
    accountLimit: 64,
    ask: { as: 'A', asking: 1, offered: 16 },
    answer: { admitted: 1, spares: 4, waitMs: 0 },
  },
  {
    name: 'a window that would be over half full grants no spares',
    accountLimit: 64,
    given: [{ settle: { as: 'A', asking: 31 } }],
    ask: { as: 'B', asking: 1, offered: 16 },
    answer: { admitted: 1, spares: 0, waitMs: 0 },
  },
  {
    name: 'spares offered without a call asking (a top-up) are granted alone',
    accountLimit: 64,
    ask: { as: 'A', offered: 16 },
    answer: { admitted: 0, spares: 4, waitMs: 0 },
  },
  {
    name: 'no spares when not every call asking fits',
    given: [{ settle: { as: 'A', asking: 9 } }],
    ask: { as: 'B', asking: 2, offered: 16 },
    answer: { admitted: 1, spares: 0, waitMs: [1, LEASE_MS] },
  },
  {
    name: 'a pause set on the route holds every call until it ends',
    given: [{ pause: 'open', ms: 5_000 }],
    ask: { as: 'A', asking: 1, offered: 16 },
    answer: { admitted: 0, spares: 0, waitMs: [4_000, 5_000] },
  },
  {
    name: "a pause set on the account holds the account's every route",
    given: [{ pause: 'account', ms: 5_000 }],
    ask: { as: 'A', asking: 1 },
    answer: { admitted: 0, spares: 0, waitMs: [4_000, 5_000] },
  },
  {
    name: 'a pause expired holds nothing',
    given: [{ pause: 'open', ms: 1 }, { expire: 'pause' }],
    ask: { as: 'A', asking: 1 },
    answer: { admitted: 1, spares: 0, waitMs: 0 },
  },
  {
    name: 'a pause only lengthens: a shorter one after it does not cut it',
    given: [
      { pause: 'open', ms: 5_000 },
      { pause: 'open', ms: 10 },
    ],
    ask: { as: 'A', asking: 1 },
    answer: { admitted: 0, spares: 0, waitMs: [4_000, 5_000] },
  },
  {
    name: 'slots held ahead elsewhere: a refused call asks again by their due time, not a lease later',
    accountLimit: 64,
    given: [{ settle: { as: 'A', asking: 1, offered: 16 } }, { settle: { as: 'B', asking: 59 } }],
    ask: { as: 'C', asking: 1 },
    answer: { admitted: 0, spares: 0, waitMs: [1, AHEAD_MS] },
  },
  {
    name: "a process's count is the one it sends: a run writes the whole count, never a difference",
    given: [{ settle: { as: 'A', asking: 6 } }, { settle: { as: 'A', flight: 2 } }],
    ask: { as: 'B', asking: 10 },
    answer: { admitted: 8, spares: 0, waitMs: [1, LEASE_MS] },
  },
  {
    name: "a count of 0 frees the process's slots at once",
    given: [{ settle: { as: 'A', asking: 10 } }, { settle: { as: 'A', flight: 0 } }],
    ask: { as: 'B', asking: 10 },
    answer: { admitted: 10, spares: 0, waitMs: 0 },
  },
  {
    name: "the counts of a process's routes add up in the account's gate",
    given: [{ settle: { as: 'A', asking: 4 } }, { settle: { as: 'A', route: 'other', asking: 4 } }],
    ask: { as: 'B', asking: 10 },
    answer: { admitted: 2, spares: 0, waitMs: [1, LEASE_MS] },
  },
  {
    name: 'an answer settled still counts until its window ends',
    given: [{ settle: { as: 'A', asking: 3 } }, { settle: { as: 'A', answers: [{}, {}, {}] } }],
    ask: { as: 'B', asking: 10 },
    answer: { admitted: 7, spares: 0, waitMs: [LEASE_MS - 1_000, LEASE_MS + 100] },
  },
  {
    name: 'an answer sent again after a run that was executed counts once',
    given: [
      { settle: { as: 'A', asking: 1 } },
      { settle: { as: 'A', run: 2, answers: [{ firstRun: 2 }] } },
      { settle: { as: 'A', run: 3, answers: [{ firstRun: 2 }] } },
    ],
    ask: { as: 'B', asking: 10 },
    answer: { admitted: 9, spares: 0, waitMs: [1, LEASE_MS + 100] },
  },
  {
    name: 'an answer sent again after a run that was never executed counts',
    given: [{ settle: { as: 'A', asking: 1 } }, { settle: { as: 'A', run: 3, answers: [{ firstRun: 2 }] } }],
    ask: { as: 'B', asking: 10 },
    answer: { admitted: 9, spares: 0, waitMs: [1, LEASE_MS + 100] },
  },
  {
    name: 'a run older than one already executed changes nothing and answers 0 0 0',
    given: [{ settle: { as: 'A', run: 5, asking: 4 } }],
    ask: { as: 'A', run: 3, asking: 10, flight: 0 },
    answer: { admitted: 0, spares: 0, waitMs: 0 },
  },
  {
    name: 'Remaining 0 of the gate the headers describe pauses it until their reset',
    given: [
      { settle: { as: 'A', asking: 1 } },
      { settle: { as: 'A', answers: [{ rateLimit: { remaining: 0, resetMs: 3_000 }, describedGate: 1 }] } },
    ],
    ask: { as: 'B', asking: 1 },
    answer: { admitted: 0, spares: 0, waitMs: [2_000, 3_000 + MARGIN_MS + STEP_MS] },
  },
  {
    name: 'a pause for a limit not configured pauses the first limited gate',
    given: [{ settle: { as: 'A', asking: 1 } }, { settle: { as: 'A', answers: [{ pauseMs: 2_000 }] } }],
    ask: { as: 'B', asking: 1 },
    answer: { admitted: 0, spares: 0, waitMs: [1_000, 2_000] },
  },
  {
    name: "a batch of answers settles into every gate of the route in one run: the endpoint's is full",
    endpointLimit: 3,
    given: [{ settle: { as: 'A', route: 'limited', asking: 3 } }, { settle: { as: 'A', route: 'limited', answers: [{}, {}, {}] } }],
    ask: { as: 'B', route: 'limited', asking: 1 },
    answer: { admitted: 0, spares: 0, waitMs: [LEASE_MS - 1_000, LEASE_MS + 100] },
  },
  {
    name: "a batch of answers settles into every gate of the route in one run: the account's counts them too",
    endpointLimit: 3,
    given: [{ settle: { as: 'A', route: 'limited', asking: 3 } }, { settle: { as: 'A', route: 'limited', answers: [{}, {}, {}] } }],
    ask: { as: 'B', asking: 10 },
    answer: { admitted: 7, spares: 0, waitMs: [LEASE_MS - 1_000, LEASE_MS + 100] },
  },
  {
    name: 'an answer locates its window no further than its reset: an answer after that reset holds its slot a window',
    given: [
      // A lease shorter than the case: what B is told to wait for is the slot, not A's lease.
      { settle: { as: 'A', asking: 2, leaseMs: 1_000 } },
      { settle: { as: 'A', answers: [{ sinceSentMs: 0, rateLimit: { remaining: 9, resetMs: 1_000 }, describedGate: 1 }] } },
      // Past that window's end (its reset, the margin and a step): the second answer comes from the next window.
      { pass: 1_000 + MARGIN_MS + STEP_MS + 50 },
      { settle: { as: 'A', answers: [{ rateLimit: { remaining: 8, resetMs: WINDOW_MS }, describedGate: 1 }] } },
    ],
    ask: { as: 'B', asking: 10 },
    answer: { admitted: 9, spares: 0, waitMs: [WINDOW_MS - 200, WINDOW_MS + MARGIN_MS + STEP_MS] },
  },
  {
    name: "a lease not renewed ends: the process's requests stop counting",
    given: [{ settle: { as: 'A', asking: 10, leaseMs: 1 } }, { pass: 5 }],
    ask: { as: 'B', asking: 10 },
    answer: { admitted: 10, spares: 0, waitMs: 0 },
  },
];

let namespaces = 0;

/** The gates, keys and run numbers of one case. */
class Case {
  readonly ns = `scripts-${namespaces++}`;
  readonly #accountLimit: number;
  readonly #endpointLimit: number;
  readonly #runs = new Map<string, number>();

  constructor(accountLimit = 10, endpointLimit = 10) {
    this.#accountLimit = accountLimit;
    this.#endpointLimit = endpointLimit;
  }

  gate(name: 'open' | 'other' | 'limited' | 'account', leaseMs = LEASE_MS): Gate {
    if (name === 'open' || name === 'other') return { name: `${this.ns}:route:${name}`, limit: undefined };
    const limit = name === 'account' ? this.#accountLimit : this.#endpointLimit;
    return { name: `${this.ns}:${name}`, limit: { limit, leaseMs, windowMs: WINDOW_MS, marginMs: MARGIN_MS } };
  }

  input(run: Run): SettleInput {
    const route = run.route ?? 'open';
    const number = run.run ?? (this.#runs.get(`${run.as}:${route}`) ?? 0) + 1;
    this.#runs.set(`${run.as}:${route}`, number);
    return {
      field: `${run.as}:${route}`,
      aheadMs: AHEAD_MS,
      gates: [this.gate(route), this.gate('account', run.leaseMs)],
      runsKey: `${this.ns}:runs`,
      run: number,
      flight: run.flight ?? 0,
      asking: run.asking ?? 0,
      offered: run.offered ?? 0,
      longestPauseMs: WINDOW_MS,
      answers: (run.answers ?? []).map((answer) => ({
        sinceSentMs: 0,
        rateLimit: undefined,
        describedGate: undefined,
        pauseMs: 0,
        firstRun: number,
        ...answer,
      })),
    };
  }

  async settle(run: Run): Promise<SettleReply> {
    const call = encodeSettle(this.input(run));
    return decodeSettle(await settleScript.run(redis, call.keys, call.args));
  }

  async step(step: Step): Promise<void> {
    if ('settle' in step) await this.settle(step.settle);
    else if ('pause' in step) {
      const call = encodePause({ gateName: this.gate(step.pause).name, pauseMs: step.ms });
      decodePause(await pauseScript.run(redis, call.keys, call.args));
    } else if ('expire' in step) {
      while ((await redis.exists(`${this.gate('open').name}:pause`)) === 1) await new Promise((resolve) => setTimeout(resolve, 2));
    } else {
      const start = await serverMs();
      while ((await serverMs()) - start < step.pass) await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
}

async function serverMs(): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

describe('the settle script', () => {
  it.each(SETTLE_CASES)('$name', async ({ accountLimit, endpointLimit, given = [], ask, answer }) => {
    const one = new Case(accountLimit, endpointLimit);
    for (const step of given) await one.step(step);
    const reply = await one.settle(ask);
    expect({ admitted: reply.admitted, spares: reply.spares }).toEqual({ admitted: answer.admitted, spares: answer.spares });
    if (typeof answer.waitMs === 'number') expect(reply.waitMs).toBe(answer.waitMs);
    else {
      expect(reply.waitMs).toBeGreaterThanOrEqual(answer.waitMs[0]);
      expect(reply.waitMs).toBeLessThanOrEqual(answer.waitMs[1]);
    }
  });
});

/** The window an answer's headers locate, as the settle script keeps it: ms from now to its bounds. */
interface LocatedCase {
  name: string;
  /** Earlier first answers' resets, settled before. */
  given?: number[];
  resetMs: number;
  sinceSentMs: number;
  /** X-RateLimit-Remaining of the answer settled (of a limit of 10); 9 when not given, the first of its window. */
  remaining?: number;
  endsAfterMs: number;
  endsByMs: number;
}

const LOCATED_CASES: LocatedCase[] = [
  {
    name: 'ends after its send time and its reset less a second, by its own reset',
    resetMs: 30_000,
    sinceSentMs: 200,
    endsAfterMs: 29_000 - 200,
    endsByMs: 30_000,
  },
  { name: 'a reset of a second locates no end after the send time', resetMs: 1_000, sinceSentMs: 200, endsAfterMs: -200, endsByMs: 1_000 },
  {
    name: 'an answer not the first of its window locates it as well',
    resetMs: 30_000,
    sinceSentMs: 200,
    remaining: 4,
    endsAfterMs: 29_000 - 200,
    endsByMs: 30_000,
  },
  {
    name: 'a reset past the window locates no end further than a window',
    resetMs: 86_400_000,
    sinceSentMs: 200,
    endsAfterMs: WINDOW_MS - 200,
    endsByMs: WINDOW_MS,
  },
  {
    name: 'a window located further on is kept',
    given: [WINDOW_MS],
    resetMs: 1_000,
    sinceSentMs: 0,
    endsAfterMs: WINDOW_MS - 1_000,
    endsByMs: WINDOW_MS,
  },
];

describe("the window an answer's headers locate", () => {
  it.each(LOCATED_CASES)('$name', async ({ given = [], resetMs, sinceSentMs, remaining = 9, endsAfterMs, endsByMs }) => {
    const one = new Case();
    const answer = (reset: number, since: number, left = 9) => ({
      sinceSentMs: since,
      rateLimit: { remaining: left, resetMs: reset },
      describedGate: 1,
    });
    for (const reset of given) await one.step({ settle: { as: 'A', answers: [answer(reset, 0)] } });
    await one.step({ settle: { as: 'A', answers: [answer(resetMs, sinceSentMs, remaining)] } });
    const now = await serverMs();
    const [after, by] = await redis.hmget(`${one.gate('account').name}:window`, 'after', 'by');
    // Measured a little after the script ran: each bound is at most the time since earlier.
    expect(Number(after) - now).toBeLessThanOrEqual(endsAfterMs);
    expect(Number(after) - now).toBeGreaterThan(endsAfterMs - 100);
    expect(Number(by) - now).toBeLessThanOrEqual(endsByMs);
    expect(Number(by) - now).toBeGreaterThan(endsByMs - 100);
  });
});

interface RenewCase {
  name: string;
  given: Step[];
  renewLeaseMs: number;
  /** How long the process's lease and its count last after the renewal, at least. */
  leaseLeftMs: number;
}

const RENEW_CASES: RenewCase[] = [
  {
    name: 'starts the lease of a process with requests in flight again, its count kept as long',
    given: [{ settle: { as: 'A', asking: 2, leaseMs: 50 } }],
    renewLeaseMs: LEASE_MS,
    leaseLeftMs: LEASE_MS - 1_000,
  },
  {
    name: 'keeps a count alive that would have ended',
    given: [{ settle: { as: 'A', asking: 2, leaseMs: 5 } }, { pass: 1 }],
    renewLeaseMs: 30_000,
    leaseLeftMs: 29_000,
  },
];

describe('the renew script', () => {
  it.each(RENEW_CASES)('$name', async ({ given, renewLeaseMs, leaseLeftMs }) => {
    const one = new Case();
    for (const step of given) await one.step(step);
    const account = one.gate('account');
    const call = encodeRenew({ field: 'A:open', gates: [{ name: account.name, leaseMs: renewLeaseMs }] });
    decodeRenew(await renewScript.run(redis, call.keys, call.args));
    const now = await serverMs();
    expect(Number(await redis.zscore(`${account.name}:alive`, 'A:open')) - now).toBeGreaterThanOrEqual(leaseLeftMs);
    expect(await redis.pttl(`${account.name}:flight`)).toBeGreaterThanOrEqual(leaseLeftMs);
    expect(await redis.hget(`${account.name}:flight`, 'A:open')).toBe('2');
  });
});

describe('the pause script', () => {
  it.each([
    { name: 'holds a gate for the ms given', given: [] as number[], pauseMs: 5_000, leftMs: [4_000, 5_000] },
    { name: 'never shortens a longer pause', given: [8_000], pauseMs: 1_000, leftMs: [7_000, 8_000] },
    { name: 'lengthens a shorter pause', given: [1_000], pauseMs: 8_000, leftMs: [7_000, 8_000] },
  ])('$name', async ({ given, pauseMs, leftMs }) => {
    const one = new Case();
    for (const ms of given) await one.step({ pause: 'open', ms });
    await one.step({ pause: 'open', ms: pauseMs });
    const key = `${one.gate('open').name}:pause`;
    const until = Number(await redis.get(key)) - (await serverMs());
    expect(until).toBeGreaterThanOrEqual(leftMs[0] as number);
    expect(until).toBeLessThanOrEqual(leftMs[1] as number);
    expect(await redis.pttl(key)).toBeGreaterThan(leftMs[0] as number);
  });
});

/** A step of the dedupe store's scripts on one event's key. */
type EventStep =
  | { claim: string }
  | { markDone: true }
  | { release: string }
  /** What `setIfAbsent` writes. */
  | { set: '1' };

let events = 0;

async function eventStep(event: string, step: EventStep): Promise<string | undefined> {
  if ('claim' in step) {
    const call = encodeClaim({ event, claimToken: step.claim, leaseMs: 60_000 });
    return decodeClaim(await claimScript.run(redis, call.keys, call.args));
  }
  if ('markDone' in step) {
    const call = encodeMarkDone({ event, ttlMs: 60_000 });
    decodeDone(await markDoneScript.run(redis, call.keys, call.args), 'mark-done');
  } else if ('release' in step) {
    const call = encodeRelease({ event, claimToken: step.release });
    decodeDone(await releaseScript.run(redis, call.keys, call.args), 'release');
  } else await redis.set(event, step.set, 'PX', 60_000);
  return undefined;
}

describe("the dedupe store's scripts", () => {
  it.each([
    { name: 'a claim of a new event is claimed', given: [] as EventStep[], step: { claim: 'a' }, answer: 'claimed', held: 'p:a' },
    {
      name: 'a claim of an event claimed by another delivery is processing',
      given: [{ claim: 'a' }],
      step: { claim: 'b' },
      answer: 'processing',
      held: 'p:a',
    },
    { name: 'a claim of an event done is done', given: [{ claim: 'a' }, { markDone: true }], step: { claim: 'b' }, answer: 'done', held: 'done' },
    { name: 'a claim of an event recorded by setIfAbsent is done', given: [{ set: '1' }], step: { claim: 'b' }, answer: 'done', held: '1' },
    { name: 'a release with the claim held deletes it', given: [{ claim: 'a' }], step: { release: 'a' }, answer: undefined, held: null },
    {
      name: "a release with another delivery's token keeps the claim",
      given: [{ claim: 'a' }],
      step: { release: 'b' },
      answer: undefined,
      held: 'p:a',
    },
    {
      name: 'a release after the event was done keeps the done record',
      given: [{ claim: 'a' }, { markDone: true }],
      step: { release: 'a' },
      answer: undefined,
      held: 'done',
    },
    { name: 'mark-done records an event never claimed', given: [], step: { markDone: true }, answer: undefined, held: 'done' },
  ] satisfies Array<{ name: string; given: EventStep[]; step: EventStep; answer: string | undefined; held: string | null }>)(
    '$name',
    async ({ given, step, answer, held }) => {
      const event = `scripts-dedupe:${events++}`;
      for (const one of given) await eventStep(event, one);
      expect(await eventStep(event, step)).toBe(answer);
      expect(await redis.get(event)).toBe(held);
      if (held !== null) expect(await redis.pttl(event)).toBeGreaterThan(59_000);
    },
  );
});

describe('malformed inputs and answers', () => {
  const one = new Case();
  it.each([
    {
      name: 'a gate limit that is not a number',
      run: () => {
        const input = one.input({ as: 'A', asking: 1 });
        const gates = [
          input.gates[0] as Gate,
          { name: `${one.ns}:account`, limit: { limit: 'ten' as unknown as number, leaseMs: 1, windowMs: 1, marginMs: 0 } },
        ];
        const call = encodeSettle({ ...input, gates });
        return settleScript.run(redis, call.keys, call.args);
      },
      error: /ARGV per gate: limit is not a number \(ten\)/,
    },
    {
      name: "a settle's last value missing",
      run: () => {
        const call = encodeSettle(one.input({ as: 'A', answers: [{}] }));
        return settleScript.run(redis, call.keys, call.args.slice(0, -1));
      },
      error: /ARGV per settle: firstRun is missing/,
    },
    {
      name: 'a settle run without arguments',
      run: () => settleScript.run(redis, [], []),
      error: /ARGV head: field is missing/,
    },
    {
      name: "a settle run without the account's runs key",
      run: () => {
        const call = encodeSettle(one.input({ as: 'A', asking: 1 }));
        return settleScript.run(redis, call.keys.slice(0, -1), call.args);
      },
      error: /KEYS then: runs is missing/,
    },
    {
      name: 'a renewal without its lease',
      run: () => {
        const call = encodeRenew({ field: 'A:open', gates: [{ name: `${one.ns}:account`, leaseMs: 1_000 }] });
        return renewScript.run(redis, call.keys, call.args.slice(0, -1));
      },
      error: /ARGV per gate: leaseMs is missing/,
    },
    {
      name: 'a pause that is not a number',
      run: () => pauseScript.run(redis, [`${one.ns}:route:open:pause`], ['soon']),
      error: /ARGV: pauseMs is not a number \(soon\)/,
    },
    {
      name: 'a count that is NaN',
      run: () => pauseScript.run(redis, [`${one.ns}:route:open:pause`], ['NaN']),
      error: /ARGV: pauseMs is not a number \(NaN\)/,
    },
    {
      name: 'a claim whose lease is not a number',
      run: () => claimScript.run(redis, [`${one.ns}:event`], ['a', 'long']),
      error: /ARGV: leaseMs is not a number \(long\)/,
    },
    {
      name: 'a release without its event',
      run: () => releaseScript.run(redis, [], ['a']),
      error: /KEYS: event is missing/,
    },
  ])('the script refuses $name, naming the place', async ({ run, error }) => {
    await expect(run()).rejects.toThrow(error);
  });

  it.each([
    { decode: () => decodeSettle([1, 2]), message: 'the settle script with [1,2], not { admitted, spares, waitMs }' },
    { decode: () => decodeSettle(['1', 2, 3]), message: 'the settle script with ["1",2,3], not { admitted, spares, waitMs }' },
    { decode: () => decodeSettle([1, -1, 0]), message: 'the settle script with [1,-1,0], not { admitted, spares, waitMs }' },
    { decode: () => decodeSettle([1.5, 0, 0]), message: 'the settle script with [1.5,0,0], not { admitted, spares, waitMs }' },
    { decode: () => decodeSettle('OK'), message: 'the settle script with "OK", not { admitted, spares, waitMs }' },
    { decode: () => decodeSettle(undefined), message: 'the settle script with undefined, not { admitted, spares, waitMs }' },
    { decode: () => decodeSettle(10n), message: 'the settle script with 10, not { admitted, spares, waitMs }' },
    { decode: () => decodeRenew(0), message: 'the renew script with 0, not 1' },
    { decode: () => decodeRenew('OK'), message: 'the renew script with "OK", not 1' },
    { decode: () => decodePause([1]), message: 'the pause script with [1], not 1' },
    { decode: () => decodeClaim('taken'), message: 'the claim script with "taken", not claimed, processing or done' },
    { decode: () => decodeDone('OK', 'mark-done'), message: 'the mark-done script with "OK", not 1' },
    { decode: () => decodeDone(0, 'release'), message: 'the release script with 0, not 1' },
  ])('the decoder refuses an answer of another shape as a store failure: $message', ({ decode, message }) => {
    expect(decode).toThrow(StoreReplyError);
    expect(decode).toThrow(`Redis answered ${message}`);
  });

  it('the decoder reads a well-formed settle answer by name', () => {
    expect(decodeSettle([2, 3, 4])).toEqual({ admitted: 2, spares: 3, waitMs: 4 });
  });
});

describe('the layouts', () => {
  it('read every place of a record by name in the Lua, text and numbers alike', async () => {
    const record = layout('RECORD', 'ARGV', ['first', 'second', 'count'], ['first', 'second']);
    const script = new Script(`${luaLayouts([record])}local r = read(RECORD, 1) return { r.first, r.second, r.count + 1 }`);
    expect(await script.run(redis, [], place(record, { first: 'a', second: 'b', count: 41 }))).toEqual(['a', 'b', 42]);
  });
});

describe('the table beside each script', () => {
  /** The rows `| KEYS … | a, b, c |` of the doc comment right above `export const <script>`. */
  function tableOf(file: string, script: string): Array<[string, string[]]> {
    const text = readFileSync(new URL(`../../src/redis/${file}`, import.meta.url), 'utf8');
    const end = text.indexOf(`export const ${script} =`);
    const comment = text.slice(text.lastIndexOf('/**', end), end);
    return [...comment.matchAll(/^ \* \| ((?:KEYS|ARGV)[^|]*?) +\| ([^|]+?) +\|$/gm)].map((row) => [
      row[1] as string,
      (row[2] as string).split(', '),
    ]);
  }
  const layoutsOf = (layouts: ReadonlyArray<Layout<string>>) => layouts.map((one): [string, string[]] => [one.row, [...one.names]]);

  it.each([
    { file: 'settle-script.ts', script: 'settleScript', layouts: SETTLE_LAYOUTS },
    { file: 'scripts.ts', script: 'renewScript', layouts: RENEW_LAYOUTS },
    { file: 'scripts.ts', script: 'pauseScript', layouts: PAUSE_LAYOUTS },
    { file: 'dedupe-scripts.ts', script: 'claimScript', layouts: CLAIM_LAYOUTS },
    { file: 'dedupe-scripts.ts', script: 'markDoneScript', layouts: MARK_DONE_LAYOUTS },
    { file: 'dedupe-scripts.ts', script: 'releaseScript', layouts: RELEASE_LAYOUTS },
  ])('names, for $script, the places its encoder writes and its Lua reads', ({ file, script, layouts }) => {
    expect(tableOf(file, script)).toEqual(layoutsOf(layouts));
  });
});
