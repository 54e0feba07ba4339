/**
 * Usage counts in Redis, shared by every replica: one hash per UTC hour (field = key id, value
 * = the key's counts as JSON) and one sorted set per hour ranking keys by requests (key names
 * in `keys.ts`). A batch is added by one Lua script, atomically, in one round trip whatever
 * its size: it first compares the batch number with the highest applied from the same source
 * and adds nothing when it is not higher (a retry after a lost reply), then merges each
 * key-hour, ranks it, sets each hour's expiry and records the number. Every key carries the
 * `{radar}` hash tag, so the script runs unchanged on Redis Cluster.
 */
import type { UsageRank, UsageStore } from '../../domain/usage-ports';
import {
  HOUR_MS,
  hourLabel,
  isUsageCounts,
  REQUESTS_FIELD,
  type UsageBatch,
  type UsageEntry,
} from '../../domain/usage';
import type { Logger } from '../../logger';
import type { RedisClient } from './client';
import { usageAppliedKey, usageHourKey, usageRankKey } from './keys';
import { defineVariadicScript } from './script';

/**
 * KEYS[1]: the source's applied marker; then, per hour of the batch, its hash and its rank set.
 * ARGV[1]: batch number; ARGV[2]: marker lifetime (s); ARGV[3]: the requests field (what the
 * rank counts); ARGV[4]: H, the number of hours; ARGV[5..4+H]: each hour's expiry (Unix s);
 * then per key-hour: hour index (1..H), key id, number of fields n, then n field/value pairs.
 * Returns {1, replaced} when applied (`replaced`: stored values that were not JSON and were
 * overwritten), {0, 0} when the number was applied before. Values are written as exact
 * integers (cjson would round past 14 digits).
 */
const APPLY_LUA = String.raw`
local seq = tonumber(ARGV[1])
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
if seq <= last then return {0, 0} end
local function encode(t)
  local names = {}
  for name in pairs(t) do names[#names + 1] = name end
  table.sort(names)
  local parts = {}
  for i, name in ipairs(names) do
    local quoted = string.gsub(cjson.encode(name), '\\/', '/')
    parts[i] = quoted .. ':' .. string.format('%.0f', t[name])
  end
  return '{' .. table.concat(parts, ',') .. '}'
end
local requestsField = ARGV[3]
local hours = tonumber(ARGV[4])
local replaced = 0
local i = 5 + hours
while i <= #ARGV do
  local h = tonumber(ARGV[i])
  local key = ARGV[i + 1]
  local n = tonumber(ARGV[i + 2])
  local stored = redis.call('HGET', KEYS[2 * h], key)
  local counts = {}
  if stored then
    local ok, decoded = pcall(cjson.decode, stored)
    if ok and type(decoded) == 'table' then counts = decoded else replaced = replaced + 1 end
  end
  local requests = 0
  for j = 0, n - 1 do
    local field = ARGV[i + 3 + 2 * j]
    local value = tonumber(ARGV[i + 4 + 2 * j])
    counts[field] = (tonumber(counts[field]) or 0) + value
    if field == requestsField then requests = value end
  end
  redis.call('HSET', KEYS[2 * h], key, encode(counts))
  if requests > 0 then redis.call('ZINCRBY', KEYS[2 * h + 1], requests, key) end
  i = i + 3 + 2 * n
end
for h = 1, hours do
  redis.call('EXPIREAT', KEYS[2 * h], ARGV[4 + h])
  redis.call('EXPIREAT', KEYS[2 * h + 1], ARGV[4 + h])
end
redis.call('SET', KEYS[1], seq, 'EX', ARGV[2])
return {1, replaced}
`;

export interface RedisUsageStoreOptions {
  readonly client: RedisClient;
  /** Days an hour's counts are kept after the hour ends (`RADAR_USAGE_RETENTION_DAYS`). */
  readonly retentionDays: number;
  readonly logger: Logger;
}

/** The usage store on `client` (the replica's command connection; its owner closes it). */
export function createRedisUsageStore(options: RedisUsageStoreOptions): UsageStore {
  const { client, logger } = options;
  const keepS = Math.round(options.retentionDays * 86_400);
  const apply = defineVariadicScript(client, 'radarUsageApply', APPLY_LUA);

  const parse = (keyId: string, hour: number, raw: string | null): UsageEntry | undefined => {
    if (raw === null) return undefined;
    let counts: unknown;
    try {
      counts = JSON.parse(raw);
    } catch {
      counts = undefined;
    }
    if (isUsageCounts(counts)) return { keyId, hour, counts };
    logger.warn({ keyId, hour: hourLabel(hour) }, 'usage: a stored record is not valid; skipped');
    return undefined;
  };

  return {
    async apply(batch: UsageBatch) {
      const hours = [...new Set(batch.entries.map((e) => e.hour))];
      const index = new Map(hours.map((h, i) => [h, i + 1]));
      const keys = [usageAppliedKey(batch.source)];
      for (const h of hours) keys.push(usageHourKey(hourLabel(h)), usageRankKey(hourLabel(h)));
      const args: Array<string | number> = [batch.seq, keepS, REQUESTS_FIELD, hours.length];
      for (const h of hours) args.push(Math.floor(((h + 1) * HOUR_MS) / 1000) + keepS);
      for (const entry of batch.entries) {
        const fields = Object.entries(entry.counts);
        args.push(index.get(entry.hour)!, entry.keyId, fields.length);
        for (const [field, value] of fields) args.push(field, value);
      }
      const result = (await apply(keys, args)) as [number, number];
      if (result[1] > 0)
        logger.warn({ replaced: result[1] }, 'usage: stored records that were not JSON replaced');
    },
    async read(fromHour, toHour, keyIds) {
      if (keyIds !== undefined && keyIds.length === 0) return [];
      const pipeline = client.pipeline();
      const hours: number[] = [];
      for (let h = fromHour; h <= toHour; h++) {
        hours.push(h);
        const key = usageHourKey(hourLabel(h));
        if (keyIds === undefined) pipeline.hgetall(key);
        else pipeline.hmget(key, ...keyIds);
      }
      const replies = (await pipeline.exec()) ?? [];
      const entries: UsageEntry[] = [];
      replies.forEach(([err, reply], i) => {
        if (err) throw err;
        const hour = hours[i]!;
        if (keyIds === undefined) {
          for (const [keyId, raw] of Object.entries(reply as Record<string, string>)) {
            const entry = parse(keyId, hour, raw);
            if (entry) entries.push(entry);
          }
        } else {
          (reply as Array<string | null>).forEach((raw, k) => {
            const entry = parse(keyIds[k]!, hour, raw);
            if (entry) entries.push(entry);
          });
        }
      });
      return entries;
    },
    async top(hour, n): Promise<UsageRank[]> {
      const flat = await client.zrevrange(usageRankKey(hourLabel(hour)), 0, n - 1, 'WITHSCORES');
      const ranks: UsageRank[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2)
        ranks.push({ keyId: flat[i]!, requests: Number(flat[i + 1]) });
      return ranks;
    },
    async close() {},
  };
}
