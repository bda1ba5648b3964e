import { Script } from './connection.js';

/**
 * The limiter's state lives in Redis and changes only inside these scripts, each one atomic, all
 * on the server's clock (TIME): no process compares its own clock with another's.
 *
 * A gate (the account, a limited endpoint, a route paused by a 429) has two keys:
 * - `…:slots`, a sorted set of the requests that still count: member = slot id, score = the
 *   instant (server ms) it stops counting. A slot is taken at admission with a lease of one
 *   window, so a process that dies holding it frees it within a window; `release` moves it to
 *   the instant the server window that counted the request has certainly ended.
 * - `…:pause`, the instant until which nobody may send (a 429's Retry-After, Remaining 0).
 * Every key carries a TTL no shorter than the latest instant it holds, so idle state expires.
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

/**
 * KEYS: slots and pause of each gate. ARGV: gate count; per gate its limit (-1: pause only) and
 * lease (ms); then the slot ids asking. Admits the first ids that fit every gate and returns
 * { admitted, wait }: wait is the ms until the earliest slot frees or the pause ends, 0 if all fit.
 */
export const acquireScript = new Script(`${COMMON}
local n = tonumber(ARGV[1])
local first = 2 * n + 2
local want = #ARGV - first + 1
local admit = want
local wait = 0
for i = 1, n do
  local paused = tonumber(redis.call('GET', KEYS[2 * i]) or '0')
  if paused > now then
    admit = 0
    if paused - now > wait then wait = paused - now end
  end
  local limit = tonumber(ARGV[2 * i])
  if limit >= 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[2 * i - 1], '-inf', now)
    local room = limit - redis.call('ZCARD', KEYS[2 * i - 1])
    if room < admit then admit = math.max(room, 0) end
  end
end
for i = 1, n do
  local limit = tonumber(ARGV[2 * i])
  local lease = tonumber(ARGV[2 * i + 1])
  if limit >= 0 and admit > 0 then
    local args = {}
    for j = 0, admit - 1 do
      args[#args + 1] = now + lease
      args[#args + 1] = ARGV[first + j]
    end
    redis.call('ZADD', KEYS[2 * i - 1], unpack(args))
    redis.call('PEXPIRE', KEYS[2 * i - 1], lease + 1000)
  end
  if limit >= 0 and admit < want and redis.call('ZCARD', KEYS[2 * i - 1]) >= limit then
    local head = redis.call('ZRANGE', KEYS[2 * i - 1], 0, 0, 'WITHSCORES')
    local frees = head[2] and tonumber(head[2]) - now or lease
    if frees > wait then wait = frees end
  end
end
return { admit, math.ceil(wait) }
`);

/**
 * KEYS: slots and pause of each limited gate of the route. ARGV: slot id; X-RateLimit-Remaining
 * and -Reset (ms) of the answer, or -1 -1 without them; the index of the gate to pause (0: none)
 * and for how long; then per gate its window, margin (ms) and whether the headers describe it
 * (1/0). The slot stops counting one window after now, or at the described reset if sooner,
 * plus the margin; Remaining 0 of a described gate pauses it until then (spec part 8 rule 2).
 */
export const releaseScript = new Script(`${COMMON}
local id = ARGV[1]
local remaining = tonumber(ARGV[2])
local resetMs = tonumber(ARGV[3])
local pauseGate = tonumber(ARGV[4])
local pauseMs = tonumber(ARGV[5])
local n = (#ARGV - 5) / 3
for i = 1, n do
  local windowMs = tonumber(ARGV[3 + 3 * i])
  local margin = tonumber(ARGV[4 + 3 * i])
  local described = ARGV[5 + 3 * i] == '1'
  local freeAt = now + windowMs
  if described and resetMs >= 0 and now + resetMs < freeAt then freeAt = now + resetMs end
  freeAt = math.ceil(freeAt + margin)
  redis.call('ZADD', KEYS[2 * i - 1], freeAt, id)
  redis.call('PEXPIRE', KEYS[2 * i - 1], math.ceil(windowMs + margin) + 1000)
  if described and remaining <= 0 then pause_until(KEYS[2 * i], freeAt - now) end
  if pauseGate == i and pauseMs > 0 then pause_until(KEYS[2 * i], pauseMs) end
end
return 1
`);

/**
 * KEYS: slots of each limited gate. ARGV: each gate's lease, then the ids of slots whose requests
 * are still in flight. Their leases start again now: a slow request keeps its slot for as long as
 * its process lives, and a dead process stops renewing, so its slots free within a lease.
 */
export const renewScript = new Script(`${COMMON}
local n = #KEYS
for i = 1, n do
  local lease = tonumber(ARGV[i])
  local args = {}
  for j = n + 1, #ARGV do
    args[#args + 1] = now + lease
    args[#args + 1] = ARGV[j]
  end
  redis.call('ZADD', KEYS[i], 'GT', unpack(args))
  redis.call('PEXPIRE', KEYS[i], lease + 1000)
end
return 1
`);

/** KEYS: slots of each limited gate. ARGV: the slot id. A request that never left stops counting at once. */
export const giveBackScript = new Script(`
for i = 1, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
return 1
`);

/** KEYS: a gate's pause. ARGV: ms. Holds the gate at least that long (spec part 8 rules 1 and 3). */
export const pauseScript = new Script(`${COMMON}
pause_until(KEYS[1], tonumber(ARGV[1]))
return 1
`);
