import { Script, StoreReplyError } from './connection.js';
import { describeReply, type Layout, layout, luaLayouts, place, type ScriptCall } from './script-layout.js';

/**
 * The limiter's state lives in Redis and changes only inside its scripts (renew and pause here,
 * settle in settle-script.ts), each one atomic, all on the server's clock (TIME): no process
 * compares its own clock with another's. Each script reads its KEYS and ARGV by name, from the
 * layouts beside it (script-layout.ts), and has its own encoder and decoder.
 *
 * A gate (the account, a limited endpoint, a route paused by a 429) has these keys:
 * - `…:flight`, a hash: per process and route (the instance id and a digest of the route), how
 *   many of its admitted requests are not settled yet. They count until settled. Each run writes
 *   the whole count the process knows for its route, never a difference, so a run Redis executed
 *   after the process stopped waiting for it (a timeout) is overwritten by the route's next run.
 * - `…:alive`, a sorted set: per process and route, the instant (server ms) its lease ends. A
 *   process renews it while it has requests in flight; one that dies stops, and once its lease is
 *   over its requests in flight stop counting: a crashed process frees its slots within a window.
 * - `…:done` and `…:due`, the settled requests that still count: `done` holds, per instant
 *   (rounded up to a thousandth of the window), how many stop counting then, and their `total`;
 *   `due` orders those instants. A request settles at the instant the server window that counted
 *   it has certainly ended.
 * - `…:ahead`, a sorted set: per process and route holding slots granted ahead of its calls, the
 *   instant by which it gives back those it did not use. A call refused meanwhile asks again then,
 *   rather than waiting for a window to pass.
 * - `…:pause`, the instant until which nobody may send (a 429's Retry-After, Remaining 0).
 * - `…:window`, the server window last located (`after`, `by`: it ends between the two).
 *
 * And one key per account, `runs`, a hash: per process and route, the number of its last run
 * executed. Runs are numbered in the order the process sends them; one that reaches Redis after a
 * later one (a client resending after a reconnect or a Cluster failover) changes nothing, and an
 * answer sent again after a run the process gave up on is counted once: it carries the number of
 * the run that first carried it, and counts only if that run was not executed.
 *
 * So a script's work is the same for one request or sixty-four: counts, never one entry per
 * request. Every key carries a TTL no shorter than the latest instant it holds, so idle state
 * expires.
 */

/** Server time in ms, and a pause that only ever lengthens. */
const COMMON = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function pause_until(key, ms)
  local untilMs = now + math.ceil(ms)
  local paused = tonumber(redis.call('GET', key) or '0')
  if untilMs > paused then redis.call('SET', key, untilMs, 'PX', math.ceil(ms)) end
end
`;

/** A script's text: its layouts' tables, the common part, then its own. */
export function source(records: ReadonlyArray<Layout<string>>, body: string): string {
  return `${luaLayouts(records)}${COMMON}${body}`;
}

/** Keys of a gate, in this order, in every script that takes gates. */
export const GATE_KEYS = layout('GATE_KEYS', 'KEYS per gate', ['flight', 'alive', 'done', 'due', 'ahead', 'pause', 'window']);

const RENEW_KEYS = layout('RENEW_KEYS', 'KEYS per gate', ['alive', 'flight']);
const RENEW_HEAD = layout('RENEW_HEAD', 'ARGV head', ['field'], ['field']);
const RENEW_GATE = layout('RENEW_GATE', 'ARGV per gate', ['leaseMs']);

/** The records of {@link renewScript}, in the order of the table beside it. */
export const RENEW_LAYOUTS = [RENEW_KEYS, RENEW_HEAD, RENEW_GATE] as const;

/**
 * The process still has requests in flight: its lease starts again now, so a slow request keeps
 * its slot for as long as its process lives, and a dead process stops renewing.
 *
 * | Record        | Places, in order |
 * | ------------- | ---------------- |
 * | KEYS per gate | alive, flight    |
 * | ARGV head     | field            |
 * | ARGV per gate | leaseMs          |
 *
 * The gates are the route's limited ones; `field` is the process's field for the route.
 */
export const renewScript = new Script(
  source(
    RENEW_LAYOUTS,
    `
local head, at = read(RENEW_HEAD, 1)
local keyAt = 1
for i = 1, #KEYS / #RENEW_KEYS.names do
  local gate, limits
  gate, keyAt = keys(RENEW_KEYS, keyAt)
  limits, at = read(RENEW_GATE, at)
  redis.call('ZADD', gate.alive, now + limits.leaseMs, head.field)
  redis.call('PEXPIRE', gate.alive, limits.leaseMs + 1000)
  redis.call('PEXPIRE', gate.flight, limits.leaseMs + 1000)
end
return 1
`,
  ),
);

/** One run of {@link renewScript}: the process's field for the route, and its limited gates. */
export interface RenewInput {
  field: string;
  gates: ReadonlyArray<{ name: string; leaseMs: number }>;
}

export function encodeRenew(input: RenewInput): ScriptCall {
  return {
    keys: input.gates.flatMap((gate) => place(RENEW_KEYS, { alive: `${gate.name}:alive`, flight: `${gate.name}:flight` })),
    args: [...place(RENEW_HEAD, input), ...input.gates.flatMap((gate) => place(RENEW_GATE, gate))],
  };
}

const PAUSE_KEYS = layout('PAUSE_KEYS', 'KEYS', ['pause']);
const PAUSE_ARGS = layout('PAUSE_ARGS', 'ARGV', ['pauseMs']);

/** The records of {@link pauseScript}, in the order of the table beside it. */
export const PAUSE_LAYOUTS = [PAUSE_KEYS, PAUSE_ARGS] as const;

/**
 * Holds a gate at least `pauseMs` (spec part 8 rules 1 and 3).
 *
 * | Record | Places, in order |
 * | ------ | ---------------- |
 * | KEYS   | pause            |
 * | ARGV   | pauseMs          |
 */
export const pauseScript = new Script(
  source(
    PAUSE_LAYOUTS,
    `
pause_until(keys(PAUSE_KEYS, 1).pause, read(PAUSE_ARGS, 1).pauseMs)
return 1
`,
  ),
);

/** One run of {@link pauseScript}: a gate (by its name: its keys are `name:pause` …) and how long. */
export interface PauseInput {
  gateName: string;
  pauseMs: number;
}

export function encodePause(input: PauseInput): ScriptCall {
  return { keys: place(PAUSE_KEYS, { pause: `${input.gateName}:pause` }), args: place(PAUSE_ARGS, input) };
}

/** Renew answers 1, its work done. */
export function decodeRenew(reply: unknown): void {
  done(reply, 'the renew script');
}

/** Pause answers 1, its work done. */
export function decodePause(reply: unknown): void {
  done(reply, 'the pause script');
}

function done(reply: unknown, script: string): void {
  if (reply !== 1) throw new StoreReplyError(`Redis answered ${script} with ${describeReply(reply)}, not 1`);
}

/**
 * `reply` as `length` whole numbers, at least 0, or a {@link StoreReplyError} naming the script
 * and what it should have answered: an answer that makes no sense is a store failure, which the
 * limiter's store-error policy handles like any other.
 */
export function wholeNumbers(reply: unknown, length: number, script: string, expected: string): number[] {
  const valid = Array.isArray(reply) && reply.length === length && reply.every((value) => Number.isSafeInteger(value) && (value as number) >= 0);
  if (!valid) throw new StoreReplyError(`Redis answered ${script} with ${describeReply(reply)}, not ${expected}`);
  return reply as number[];
}
