import { Script } from './connection.js';
import { layout, place, type ScriptCall } from './script-layout.js';
import { GATE_KEYS, source, wholeNumbers } from './scripts.js';

/**
 * The settle script: one route's answers, count and admission in one run, with the
 * encoder of its KEYS and ARGV and the decoder of its answer. The keys it works on are
 * described in scripts.ts.
 */

const RUN_KEYS = layout('RUN_KEYS', 'KEYS then', ['runs']);
const SETTLE_HEAD = layout('SETTLE_HEAD', 'ARGV head', ['field', 'aheadMs', 'gateCount'], ['field']);
const GATE_ARGS = layout('GATE_ARGS', 'ARGV per gate', ['limit', 'leaseMs', 'windowMs', 'marginMs']);
const SETTLE_RUN = layout('SETTLE_RUN', 'ARGV then', ['run', 'flight', 'settleCount', 'asking', 'offered', 'longestPauseMs']);
const SETTLE_ANSWER = layout('SETTLE_ANSWER', 'ARGV per settle', ['sinceSentMs', 'remaining', 'resetMs', 'describedGate', 'pauseMs', 'firstRun']);

/** The records of {@link settleScript}, in the order of the table beside it. */
export const SETTLE_LAYOUTS = [GATE_KEYS, RUN_KEYS, SETTLE_HEAD, GATE_ARGS, SETTLE_RUN, SETTLE_ANSWER] as const;

/**
 * One route's whole exchange with Redis in one atomic run: the answers since the last run
 * (settles), the process's count of the route's requests still in flight, then admission.
 *
 * | Record          | Places, in order                                                  |
 * | --------------- | ----------------------------------------------------------------- |
 * | KEYS per gate   | flight, alive, done, due, ahead, pause, window                    |
 * | KEYS then       | runs                                                              |
 * | ARGV head       | field, aheadMs, gateCount                                         |
 * | ARGV per gate   | limit, leaseMs, windowMs, marginMs                                |
 * | ARGV then       | run, flight, settleCount, asking, offered, longestPauseMs         |
 * | ARGV per settle | sinceSentMs, remaining, resetMs, describedGate, pauseMs, firstRun |
 *
 * The gates are the route's (or its endpoint's), then the account's; `runs` is the account's.
 * `field`: the process's field (instance id and route digest); `aheadMs`: how long it may hold
 * slots granted ahead before giving back the unused. Per gate: its limit (-1: pause only), lease
 * (a window and its margin), window and margin. `run`: the run's number; `flight`: how many of
 * the route's requests the process holds admitted and unsettled once this run's settles are
 * applied (in flight, slots in hand, answers still to settle); `asking` calls and `offered` spare
 * slots; `longestPauseMs`: the longest pause a server's answer may impose (the client's
 * `maxServerWaitMs`). Per settle: ms since it was sent, X-RateLimit-Remaining and -Reset (ms) or
 * -1 -1, the gate the headers describe (1-based, 0: none), a pause of the first limited gate (0:
 * none) and the number of the run that first carried it.
 *
 * A settle: the request stops counting one window after now, or at the described reset if
 * sooner, or where the located window ends if it was answered before that window could have
 * ended; plus the margin. The headers of an answer locate the window that counted its request:
 * it ends after the send time plus `locatedEndMs` of its reset (see core/window-gate.ts) and by
 * that answer's own free instant; the window located furthest on is kept. A batch sent at the
 * opening of a server window thus frees together, whichever process sent it, as WindowGate does
 * in one process. Remaining 0 of a described gate pauses it until then (spec part 8 rule 2), or
 * for the longest pause if that ends first.
 *
 * Admission: as many calls as fit every gate, in order; and, when all fit and every limited gate
 * stays at most half full, up to the spares offered (a sixteenth of the limit at most), which the
 * process hands out without asking again for a few milliseconds. Returns { admitted, spares,
 * wait }: wait is the ms until the earliest request stops counting, slots held ahead are due
 * back or the pause ends; 0 if all fit. A run older than one already executed returns
 * { 0, 0, 0 } and changes nothing: nobody waits for its answer any more.
 */
export const settleScript = new Script(
  source(
    SETTLE_LAYOUTS,
    `
local head, at = read(SETTLE_HEAD, 1)
local me, aheadMs, n = head.field, head.aheadMs, head.gateCount
local gates, keyAt = {}, 1
for i = 1, n do
  local g, limits
  g, keyAt = keys(GATE_KEYS, keyAt)
  limits, at = read(GATE_ARGS, at)
  g.limit, g.lease, g.windowMs, g.margin = limits.limit, limits.leaseMs, limits.windowMs, limits.marginMs
  g.counts, g.settled, g.located = {}, 0, false
  gates[i] = g
end
local runs = keys(RUN_KEYS, keyAt).runs
local run
run, at = read(SETTLE_RUN, at)
local seq, count = run.run, run.flight
local last = tonumber(redis.call('HGET', runs, me) or '0')
if seq <= last then return { 0, 0, 0 } end
redis.call('HSET', runs, me, seq)
local settles, want, offered = run.settleCount, run.asking, run.offered
local longestPause = run.longestPauseMs
local longest = 0
for i = 1, n do
  local g = gates[i]
  if g.lease > longest then longest = g.lease end
  if g.limit >= 0 and settles > 0 then
    g.step = math.max(1, g.windowMs / 1000)
    local w = redis.call('HMGET', g.window, 'after', 'by')
    g.after = tonumber(w[1] or '-1')
    g.by = tonumber(w[2] or '-1')
  end
end
-- Kept past any lease, so that a run arriving long after a later one still finds it older.
redis.call('PEXPIRE', runs, longest + 60000)
local firstLimited = 0
for i = n, 1, -1 do if gates[i].limit >= 0 then firstLimited = i end end
for r = 1, settles do
  local answer
  answer, at = read(SETTLE_ANSWER, at)
  local sentAt = now - answer.sinceSentMs
  local remaining, resetMs, described = answer.remaining, answer.resetMs, answer.describedGate
  -- Sent again after a run the process gave up on: counted already if that run was executed.
  if answer.firstRun > last then
    for i = 1, n do
      local g = gates[i]
      if g.limit >= 0 then
        local freeAt = now + g.windowMs
        if i == described then
          if resetMs >= 0 and now + resetMs < freeAt then freeAt = now + resetMs end
          local after = sentAt + math.min(g.windowMs, resetMs - 1000) -- locatedEndMs
          if after > g.after then g.after, g.by, g.located = after, freeAt, true end
        end
        if now < g.after and g.by < freeAt then freeAt = g.by end
        freeAt = math.ceil((freeAt + g.margin) / g.step) * g.step
        g.counts[freeAt] = (g.counts[freeAt] or 0) + 1
        g.settled = g.settled + 1
        if i == described and remaining <= 0 and longestPause > 0 then pause_until(g.pause, math.min(freeAt - now, longestPause)) end
        if i == firstLimited and answer.pauseMs > 0 then pause_until(g.pause, answer.pauseMs) end
      end
    end
  end
end
local asking = want + offered > 0
for i = 1, n do
  local g = gates[i]
  if g.limit >= 0 then
    local latest = now
    for at, c in pairs(g.counts) do
      redis.call('HINCRBY', g.done, at, c)
      redis.call('ZADD', g.due, at, at)
      if at > latest then latest = at end
    end
    if g.settled > 0 then
      redis.call('HINCRBY', g.done, 'total', g.settled)
      redis.call('PEXPIRE', g.done, math.ceil(latest - now) + 1000)
      redis.call('PEXPIRE', g.due, math.ceil(latest - now) + 1000)
    end
    if asking then
      -- Settled requests whose window is over stop counting; so do the requests in flight of a process gone.
      local over = redis.call('ZRANGEBYSCORE', g.due, '-inf', now)
      if #over > 0 then
        local sum = 0
        for _, c in ipairs(redis.call('HMGET', g.done, unpack(over))) do sum = sum + tonumber(c or '0') end
        redis.call('HDEL', g.done, unpack(over))
        redis.call('HINCRBY', g.done, 'total', -sum)
        redis.call('ZREMRANGEBYSCORE', g.due, '-inf', now)
      end
      local gone = redis.call('ZRANGEBYSCORE', g.alive, '-inf', now)
      if #gone > 0 then
        redis.call('HDEL', g.flight, unpack(gone))
        redis.call('HDEL', runs, unpack(gone))
        redis.call('ZREMRANGEBYSCORE', g.alive, '-inf', now)
      end
      -- A record of slots ahead stays a second past its due time: a process slow to give them
      -- back (a starved CPU) still has its refused neighbours ask again soon, not a window later.
      redis.call('ZREMRANGEBYSCORE', g.ahead, '-inf', now - 1000)
    end
    g.mine = tonumber(redis.call('HGET', g.flight, me) or '0')
  end
end
local admit, spare, wait = 0, 0, 0
if asking then
  admit, spare = want, offered
  for i = 1, n do
    local g = gates[i]
    local paused = tonumber(redis.call('GET', g.pause) or '0')
    if paused > now then
      admit, spare = 0, 0
      if paused - now > wait then wait = paused - now end
    end
    if g.limit >= 0 then
      local used = tonumber(redis.call('HGET', g.done, 'total') or '0')
      local flight = redis.call('HGETALL', g.flight)
      for j = 1, #flight, 2 do used = used + tonumber(flight[j + 1]) end
      -- This process's own count for the route is the one it sent, whatever Redis held for it.
      g.used = used - g.mine + count
      local room = g.limit - g.used
      if room < admit then admit = math.max(room, 0) end
      local free = math.min(room - want - math.ceil(g.limit / 2), math.floor(g.limit / 16))
      if free < spare then spare = math.max(free, 0) end
    end
  end
  if admit < want then spare = 0 end
end
for i = 1, n do
  local g = gates[i]
  if g.limit >= 0 then
    local mine = count + admit + spare
    if mine ~= g.mine then
      if mine > 0 then redis.call('HSET', g.flight, me, mine) else redis.call('HDEL', g.flight, me) end
    end
    if mine > 0 then
      -- Every count written has a lease, so that nothing is left in flight that no process renews.
      redis.call('ZADD', g.alive, now + g.lease, me)
      redis.call('PEXPIRE', g.flight, g.lease + 1000)
      redis.call('PEXPIRE', g.alive, g.lease + 1000)
    end
    if spare > 0 then
      redis.call('ZADD', g.ahead, now + aheadMs, me)
      redis.call('PEXPIRE', g.ahead, aheadMs + 1000)
    end
    if asking and admit < want and g.used + admit >= g.limit then
      -- The earliest a request of this gate stops counting: a settled one's instant, or the end of a lease.
      local frees = g.lease
      local due = redis.call('ZRANGE', g.due, 0, 0, 'WITHSCORES')
      if due[2] then frees = tonumber(due[2]) - now end
      local alive = redis.call('ZRANGE', g.alive, 0, 0, 'WITHSCORES')
      if alive[2] and tonumber(alive[2]) - now < frees then frees = tonumber(alive[2]) - now end
      -- Slots held ahead somewhere come back soon: ask again then, or shortly when they are overdue.
      local ahead = redis.call('ZRANGE', g.ahead, -1, -1, 'WITHSCORES')
      if ahead[2] then
        local back = tonumber(ahead[2]) - now
        if back <= 0 then back = aheadMs end
        if back < frees then frees = back end
      end
      if frees > wait then wait = frees end
    end
  end
end
for i = 1, n do
  local g = gates[i]
  if g.located then
    redis.call('HSET', g.window, 'after', g.after, 'by', g.by)
    redis.call('PEXPIRE', g.window, math.ceil(g.by - now) + 1000)
  end
end
return { admit, spare, math.ceil(wait) }
`,
  ),
);

/** A gate's limits, as the settle script takes them. */
export interface GateLimit {
  limit: number;
  /** One window and its margin: how long a count written for the process lasts unrenewed. */
  leaseMs: number;
  windowMs: number;
  marginMs: number;
}

/** A gate of a route: its keys are `name:flight`, `name:alive` …; without a limit it only pauses. */
export interface Gate {
  name: string;
  limit: GateLimit | undefined;
}

/** An answer to settle: when its request was sent, and what its X-RateLimit headers said. */
export interface SettleAnswer {
  sinceSentMs: number;
  rateLimit: { remaining: number; resetMs: number } | undefined;
  /** The index in the run's gates of the gate the headers describe, if any. */
  describedGate: number | undefined;
  /** A pause of the first limited gate, 0 for none (headers of a limit not configured). */
  pauseMs: number;
  /** The number of the run that first carried it. */
  firstRun: number;
}

/** One run of {@link settleScript}: see the table there. */
export interface SettleInput {
  field: string;
  aheadMs: number;
  gates: readonly Gate[];
  runsKey: string;
  run: number;
  flight: number;
  asking: number;
  offered: number;
  longestPauseMs: number;
  answers: readonly SettleAnswer[];
}

/** What a run of {@link settleScript} answered. */
export interface SettleReply {
  admitted: number;
  spares: number;
  /** Ms until a slot may free (0: all fit). */
  waitMs: number;
}

function gateKeys(gate: Gate): string[] {
  return GATE_KEYS.names.map((key) => `${gate.name}:${key}`);
}

const PAUSE_ONLY: GateLimit = { limit: -1, leaseMs: 0, windowMs: 0, marginMs: 0 };

export function encodeSettle(input: SettleInput): ScriptCall {
  const keys = [...input.gates.flatMap(gateKeys), ...place(RUN_KEYS, { runs: input.runsKey })] as string[];
  const args = [
    ...place(SETTLE_HEAD, { field: input.field, aheadMs: input.aheadMs, gateCount: input.gates.length }),
    ...input.gates.flatMap((gate) => place(GATE_ARGS, gate.limit ?? PAUSE_ONLY)),
    ...place(SETTLE_RUN, { ...input, settleCount: input.answers.length }),
    ...input.answers.flatMap((answer) =>
      place(SETTLE_ANSWER, {
        ...answer,
        remaining: answer.rateLimit?.remaining ?? -1,
        resetMs: answer.rateLimit?.resetMs ?? -1,
        describedGate: answer.describedGate === undefined ? 0 : answer.describedGate + 1,
      }),
    ),
  ];
  return { keys, args };
}

export function decodeSettle(reply: unknown): SettleReply {
  const counts = wholeNumbers(reply, 3, 'the settle script', '{ admitted, spares, waitMs }');
  return { admitted: counts[0] as number, spares: counts[1] as number, waitMs: counts[2] as number };
}
