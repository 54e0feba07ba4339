/**
 * The Lua script rate-limiter-flexible runs for every `consume`/`reward` of the shared limiter
 * (its `customIncrTtlLuaScript` option), replacing the library's unconditional INCRBY with a
 * capped one so a block lease can never take the counter past the limit.
 *
 * Arguments are the library's: KEYS[1] the counter, ARGV[1] the points (negative for a
 * reward), ARGV[2] the "duration" of the call (see below), ARGV[3] the limit, ARGV[4] the
 * configured window in seconds. Replies `{consumed, ttlMs, windowEndS}` where:
 * - `consumed` is the counter after the call *plus the points that were asked for and not
 *   granted*, so the library's own rule (`consumed > limit` rejects, `inMemoryBlockOnConsumed`
 *   blocks exhausted keys) still applies and the caller reads the grant back as
 *   `asked - max(0, consumed - limit)`. The stored counter itself never exceeds the limit.
 * - `windowEndS` is the window's end in Redis time (Unix s), the window's identity.
 * A caller that already knows the window's end passes a duration different from the window
 * (`WINDOW_KNOWN` below): then a lease that leaves the key under its limit answers
 * `{consumed, -1, 0}` after one INCRBY, the common case costing two Redis commands. A key
 * INCRBY just created (the counter equals the grant) always gets its expiry and the full
 * reply, so a stale belief can never leave a counter without a window.
 *
 * A reward (handing back unspent leased points) passes, through the library's
 * `customDuration` option, the `windowEndS` of the lease in ARGV[2]. It is applied only while
 * that same window is alive, so points from an ended window can never be added to the next
 * one (which would over-admit it); it never creates a key and never goes below zero.
 */
export const LEASE_SCRIPT = `
local asked = tonumber(ARGV[1])
local limit = tonumber(ARGV[3])
local window = tonumber(ARGV[4])
local function windowEnd(ttl)
  local t = redis.call('time')
  return math.floor((tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + ttl) / 1000)
end
if asked < 0 then
  local ttl = redis.call('pttl', KEYS[1])
  if ttl < 0 then return {0, 0, 0} end
  local used = tonumber(redis.call('get', KEYS[1]) or '0')
  local ends = windowEnd(ttl)
  if math.abs(ends - tonumber(ARGV[2])) > 1 then return {used, ttl, ends} end
  used = redis.call('decrby', KEYS[1], math.min(-asked, used))
  return {used, ttl, ends}
end
local used = redis.call('incrby', KEYS[1], asked)
local granted = asked
if used > limit then
  granted = math.max(0, limit - (used - asked))
  used = limit
  redis.call('set', KEYS[1], limit, 'KEEPTTL')
end
if used > granted and granted == asked and tonumber(ARGV[2]) ~= window then
  return {used, -1, 0}
end
local ttl = redis.call('pttl', KEYS[1])
if ttl < 0 then
  redis.call('expire', KEYS[1], window)
  ttl = 1000 * window
end
return {used + asked - granted, ttl, windowEnd(ttl)}
`;

/**
 * The `customDuration` a lease passes when the caller already knows the window: any value
 * that differs from the window length tells the script so (the expiry always uses ARGV[4]).
 */
export function windowKnownDuration(windowS: number): number {
  return windowS + 1;
}
