import { Script } from './connection.js';

/**
 * The limiter's state lives in Redis and changes only inside these scripts, each one atomic, all
 * on the server's clock (TIME): no process compares its own clock with another's.
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

/** Keys of a gate, in this order, in every script that takes gates. */
export const GATE_KEYS = ['flight', 'alive', 'done', 'due', 'ahead', 'pause', 'window'] as const;

/**
 * One route's whole exchange with Redis in one atomic run: the answers since the last run
 * (settles), the process's count of the route's requests still in flight, then admission.
 *
 * KEYS: per gate (the route's or its endpoint's, then the account's) its {@link GATE_KEYS}; then
 * the account's `runs`.
 * ARGV: the process's field (instance id and route digest); how long it may hold slots granted
 * ahead before giving back the unused (ms); the gate count; per gate its limit (-1: pause only),
 * lease, window and margin (ms); the run's number; how many of the route's requests the process
 * holds admitted and unsettled once this run's settles are applied (in flight, slots in hand,
 * answers still to settle); the number of settles, of calls asking and of spare slots offered;
 * the longest pause a server's answer may impose (the client's `maxServerWaitMs`, ms); then per
 * settle six values — ms since it was sent, X-RateLimit-Remaining and -Reset (ms) or
 * -1 -1, the gate the headers describe (0: none), a pause of the first limited gate (ms, 0: none)
 * and the number of the run that first carried it.
 *
 * A settle: the request stops counting one window after now, or at the described reset if
 * sooner, or where the located window ends if it was answered before that window could have
 * ended; plus the margin. Remaining = Limit - 1 locates a window (its request was the first the
 * window counted: the window ends between its send time and now, plus a window), so a batch sent
 * at the opening of a server window frees together, whichever process sent it, as WindowGate
 * does in one process. Remaining 0 of a described gate pauses it until then (spec part 8 rule 2),
 * or for the longest pause if that ends first.
 *
 * Admission: as many calls as fit every gate, in order; and, when all fit and every limited gate
 * stays at most half full, up to the spares offered (a sixteenth of the limit at most), which the
 * process hands out without asking again for a few milliseconds. Returns { admitted, spares,
 * wait }: wait is the ms until the earliest request stops counting, slots held ahead are due
 * back or the pause ends; 0 if all fit. A run older than one already executed returns
 * { 0, 0, 0 } and changes nothing: nobody waits for its answer any more.
 */
export const settleScript = new Script(`${COMMON}
local me, aheadMs = ARGV[1], tonumber(ARGV[2])
local n = tonumber(ARGV[3])
local runs = KEYS[7 * n + 1]
local p = 4 * n + 4
local seq, count = tonumber(ARGV[p]), tonumber(ARGV[p + 1])
local last = tonumber(redis.call('HGET', runs, me) or '0')
if seq <= last then return { 0, 0, 0 } end
redis.call('HSET', runs, me, seq)
local gates = {}
local longest = 0
for i = 1, n do
  local a, k = 4 * i, 7 * i - 6
  local g = { flight = KEYS[k], alive = KEYS[k + 1], done = KEYS[k + 2], due = KEYS[k + 3], ahead = KEYS[k + 4], pause = KEYS[k + 5], window = KEYS[k + 6],
    limit = tonumber(ARGV[a]), lease = tonumber(ARGV[a + 1]), windowMs = tonumber(ARGV[a + 2]), margin = tonumber(ARGV[a + 3]),
    counts = {}, settled = 0, located = false }
  if g.lease > longest then longest = g.lease end
  if g.limit >= 0 and tonumber(ARGV[p + 2]) > 0 then
    g.step = math.max(1, g.windowMs / 1000)
    local w = redis.call('HMGET', g.window, 'after', 'by')
    g.after = tonumber(w[1] or '-1')
    g.by = tonumber(w[2] or '-1')
  end
  gates[i] = g
end
-- Kept past any lease, so that a run arriving long after a later one still finds it older.
redis.call('PEXPIRE', runs, longest + 60000)
local settles, want, offered = tonumber(ARGV[p + 2]), tonumber(ARGV[p + 3]), tonumber(ARGV[p + 4])
local longestPause = tonumber(ARGV[p + 5])
p = p + 6
local firstLimited = 0
for i = n, 1, -1 do if gates[i].limit >= 0 then firstLimited = i end end
for r = 1, settles do
  local sentAt = now - tonumber(ARGV[p])
  local remaining, resetMs = tonumber(ARGV[p + 1]), tonumber(ARGV[p + 2])
  local described, pauseMs, first = tonumber(ARGV[p + 3]), tonumber(ARGV[p + 4]), tonumber(ARGV[p + 5])
  p = p + 6
  -- Sent again after a run the process gave up on: counted already if that run was executed.
  if first > last then
    for i = 1, n do
      local g = gates[i]
      if g.limit >= 0 then
        local freeAt = now + g.windowMs
        if i == described then
          if resetMs >= 0 and now + resetMs < freeAt then freeAt = now + resetMs end
          if remaining == g.limit - 1 and sentAt + g.windowMs > g.after then
            g.after, g.by, g.located = sentAt + g.windowMs, now + g.windowMs, true
          end
        end
        if now < g.after and g.by < freeAt then freeAt = g.by end
        freeAt = math.ceil((freeAt + g.margin) / g.step) * g.step
        g.counts[freeAt] = (g.counts[freeAt] or 0) + 1
        g.settled = g.settled + 1
        if i == described and remaining <= 0 and longestPause > 0 then pause_until(g.pause, math.min(freeAt - now, longestPause)) end
        if i == firstLimited and pauseMs > 0 then pause_until(g.pause, pauseMs) end
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
`);

/**
 * KEYS: `alive` and `flight` of each limited gate. ARGV: the process's field for the route, then each gate's lease.
 * The process still has requests in flight: its lease starts again now, so a slow request keeps
 * its slot for as long as its process lives, and a dead process stops renewing.
 */
export const renewScript = new Script(`${COMMON}
for i = 1, #KEYS / 2 do
  local lease = tonumber(ARGV[i + 1])
  redis.call('ZADD', KEYS[2 * i - 1], now + lease, ARGV[1])
  redis.call('PEXPIRE', KEYS[2 * i - 1], lease + 1000)
  redis.call('PEXPIRE', KEYS[2 * i], lease + 1000)
end
return 1
`);

/** KEYS: a gate's pause. ARGV: ms. Holds the gate at least that long (spec part 8 rules 1 and 3). */
export const pauseScript = new Script(`${COMMON}
pause_until(KEYS[1], tonumber(ARGV[1]))
return 1
`);
