/**
 * The Lua script rate-limiter-flexible runs for every `consume`/`reward` of the shared limiter
 * (its `customIncrTtlLuaScript` option), replacing the library's unconditional INCRBY with a
 * capped one so a block lease can never take the counter past the limit.
 *
 * Arguments are the library's: KEYS[1] the counter, ARGV[1] the points (negative for a
 * reward), ARGV[2] the "duration" of the call (see below), ARGV[3] the limit, ARGV[4] the
 * configured window in seconds.
 *
 * A lease passes, through the library's `customDuration` option, an encoded duration
 * (`leaseDuration`) that carries what the script needs to size the block on the counter as it
 * is *now*, not as the replica last saw it:
 * - `need`: requests waiting on this replica for this very reply. They are granted in full
 *   while the quota lasts (an exact, batched decision: those points are spent the moment the
 *   reply arrives, never stranded);
 * - `share`: points asked beyond `need` (speculative, spent later) are capped at
 *   `(remaining - need) / share`, so blocks shrink geometrically with the *true* remaining;
 *   the caller passes its estimate of the replicas sharing the key times a safety margin;
 * - `tail`: ... but a speculative part of up to `tail` points is always allowed while the
 *   quota lasts: the caller sets it to its part of the under-admission it may cause (1 % of
 *   the limit or one point per replica, split over the replicas), which saves the many tiny
 *   leases a pure geometric tail would cost;
 * - `exact`: below this many points left beyond `need`, nothing speculative at all (exact,
 *   batched decisions), for keys whose bound is one point per replica;
 * - `known`: the caller already knows the window's end, so a lease that leaves the key under
 *   its limit may answer `{consumed, -1, 0, granted}` after one INCRBY (two Redis commands),
 *   and a refused one `{consumed, ttlMs, 0, granted}` (the library blocks the key for ttlMs).
 *   A key INCRBY just created always gets its expiry and the full reply.
 * The plain window length as duration means none of this (a library default call): `need` is
 * everything asked.
 *
 * Reply `{consumed, ttlMs, windowEndS, granted}`: `granted` the points taken (0..asked);
 * `consumed` the counter after the call plus the waiting requests that got no point, so the
 * library's own rule (`consumed > limit` rejects, `inMemoryBlockOnConsumed` blocks the key)
 * applies exactly when a waiting request is refused, never for a merely capped block;
 * `windowEndS` the window's end in Redis time (Unix s), the window's identity. The stored
 * counter itself never exceeds the limit.
 *
 * A reward (handing back unspent leased points) passes the `windowEndS` of the lease in
 * ARGV[2]. It is applied only while that same window is alive, so points from an ended window
 * can never be added to the next one (which would over-admit it); it never creates a key and
 * never goes below zero.
 *
 * A lease may add a guard (`LeaseGuard`, ARGV[5..8]; the library's calls pass none):
 * - `expiresAtMs` (Redis time): a call Redis runs after it changes nothing and answers
 *   `{-1, nowMs, 0, 0}`. The caller has given up on it by then (its command timeout), so it
 *   was answered by the insurance limiter; a late INCRBY (a stalled Redis runs what it had
 *   queued when it resumes) would take points no request spends, from whatever window is
 *   current then. Checked whenever the script reads the clock anyway (a call that may open a
 *   window: not `known`, or one whose key is gone) and, with `always`, for every call (one
 *   more command: callers set it only after a Redis failure);
 * - `carry` points this replica admitted in memory while Redis failed, added to the counter
 *   before the lease (never past the limit); a missing key is created with them and a TTL of
 *   `carryTtlMs` (what is left of the replica's insurance window). A carrying call always
 *   gets the full reply (the window may be new). `asked = 0` carries only.
 */
import type { LeaseCall } from '../../quota/quota-lease-types';

export const LEASE_SCRIPT = `
local asked = tonumber(ARGV[1])
local limit = tonumber(ARGV[3])
local window = tonumber(ARGV[4])
local expires = tonumber(ARGV[5] or '0')
local always = ARGV[6] == '1'
local carry = tonumber(ARGV[7] or '0')
local clock = nil
local function now()
  if not clock then
    local t = redis.call('time')
    clock = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  return clock
end
local function windowEnd(ttl)
  return math.floor((now() + ttl) / 1000)
end
local function late()
  return expires > 0 and now() > expires
end
if asked < 0 then
  local ttl = redis.call('pttl', KEYS[1])
  if ttl < 0 then return {0, 0, 0, 0} end
  local used = tonumber(redis.call('get', KEYS[1]) or '0')
  local ends = windowEnd(ttl)
  if math.abs(ends - tonumber(ARGV[2])) > 1 then return {used, ttl, ends, 0} end
  used = redis.call('decrby', KEYS[1], math.min(-asked, used))
  return {used, ttl, ends, 0}
end
local code = tonumber(ARGV[2]) - window - 1
local known = false
local share = 1
local tail = 0
local exact = 0
local need = asked
if code >= 0 then
  known = code % 2 == 1
  code = math.floor(code / 2)
  share = math.max(1, code % 128)
  code = math.floor(code / 128)
  tail = code % 4096
  code = math.floor(code / 4096)
  exact = code % 256
  need = math.min(asked, math.max(1, math.floor(code / 256)))
end
if carry > 0 then known = false end
if (always or not known) and late() then return {-1, now(), 0, 0} end
if carry > 0 then
  local ttl = redis.call('pttl', KEYS[1])
  if ttl == -2 then
    redis.call('set', KEYS[1], math.min(limit, carry), 'PX', math.max(1, tonumber(ARGV[8])))
  else
    local have = tonumber(redis.call('get', KEYS[1]) or '0')
    if have < limit then redis.call('set', KEYS[1], math.min(limit, have + carry), 'KEEPTTL') end
  end
end
if asked == 0 then
  local ttl = redis.call('pttl', KEYS[1])
  if ttl < 0 then return {0, 0, 0, 0} end
  return {tonumber(redis.call('get', KEYS[1]) or '0'), ttl, windowEnd(ttl), 0}
end
local used = redis.call('incrby', KEYS[1], asked)
local before = used - asked
local left = math.max(0, limit - before)
local granted = math.min(need, left)
if asked > need and left - need >= math.max(1, exact) then
  granted = math.min(asked, need + math.max(tail, math.floor((left - need) / share)), left)
end
if granted < asked then
  used = before + granted
  redis.call('set', KEYS[1], used, 'KEEPTTL')
end
local consumed = used + need - math.min(need, granted)
if known and used > granted then
  if consumed <= limit then return {consumed, -1, 0, granted} end
  return {consumed, redis.call('pttl', KEYS[1]), 0, granted}
end
local ttl = redis.call('pttl', KEYS[1])
if ttl < 0 then
  if late() then
    -- A known call that found its window gone, run too late: it must not open the next one.
    redis.call('del', KEYS[1])
    return {-1, now(), 0, 0}
  end
  redis.call('expire', KEYS[1], window)
  ttl = 1000 * window
end
return {consumed, ttl, windowEnd(ttl), granted}
`;

/** Largest values the duration code carries (larger ones are sent as these). */
const MAX_SHARE = 127;
const MAX_TAIL = 4095;
const MAX_EXACT = 255;
/** Keeps `customDuration × 1000` (the library's milliseconds) an exact integer. */
const MAX_NEED = 32_767;

/** What a lease adds to the library's arguments (ARGV[5..8], see above). */
export interface LeaseGuard {
  /** Redis time (Unix ms) after which the call changes nothing; 0: no expiry. */
  readonly expiresAtMs: number;
  /** Check the expiry on every call, not only on those that read the clock anyway. */
  readonly always: boolean;
  /** Points admitted in memory while Redis failed, added to the counter first. */
  readonly carry: number;
  /** TTL (ms) of a counter the carry creates. */
  readonly carryTtlMs: number;
}

/** The script's arguments after the library's four. */
export function guardArguments(guard: LeaseGuard): string[] {
  return [
    String(Math.max(0, Math.round(guard.expiresAtMs))),
    guard.always ? '1' : '0',
    String(Math.max(0, Math.floor(guard.carry))),
    String(Math.max(1, Math.ceil(guard.carryTtlMs))),
  ];
}

/** First element of the reply to a call that ran after its expiry (the second is Redis time). */
export const LATE_REPLY = -1;

/** Encodes a lease call as the `customDuration` the script decodes (always > the window). */
export function leaseDuration(windowS: number, call: LeaseCall): number {
  const share = Math.min(MAX_SHARE, Math.max(1, Math.ceil(call.share)));
  const tail = Math.min(MAX_TAIL, Math.max(0, Math.floor(call.tail)));
  const exact = Math.min(MAX_EXACT, Math.max(0, Math.floor(call.exact)));
  const need = Math.min(MAX_NEED, Math.max(1, Math.floor(call.need)));
  const code = (((need * 256 + exact) * 4096 + tail) * 128 + share) * 2 + (call.known ? 1 : 0);
  return windowS + 1 + code;
}
