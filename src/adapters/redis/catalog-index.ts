/**
 * The shared catalog index in Redis, the single source of truth every replica mirrors: the
 * sorted set of published timestamps and one metadata hash per timestamp (key names in
 * `redis-keys.ts`, formats in `redis-catalog-codec.ts`). Writes are Lua scripts, so a
 * publication is atomic and announced exactly once, and a prune removes and announces
 * together; concurrent ingest workers cannot double-publish.
 */
import type { ArchiveMeta, CatalogWriter } from '../../domain/ports';
import type { RedisClient } from './client';
import {
  encodePublishEvent,
  metaFromHash,
  metaToHashFields,
  timestampScore,
} from './catalog-codec';
import {
  ARCHIVE_KEY_PREFIX,
  archiveKey,
  CATALOG_EVENTS_CHANNEL,
  CATALOG_VERSION_KEY,
  TIMESTAMPS_KEY,
} from './keys';
import { defineScript } from './script';

/**
 * KEYS: timestamps set, metadata hash, catalog version. ARGV: member, score, channel, event, hash field/values.
 * Returns 1 when published now, 0 when the timestamp was published already (nothing written,
 * nothing announced).
 */
const PUBLISH_LUA = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[2], unpack(ARGV, 5))
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('INCR', KEYS[3])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
`;

/**
 * KEYS: timestamps set, catalog version. ARGV: exclusive max score ("(<seconds>"), metadata key prefix,
 * channel. Metadata keys are derived from the members; they share the set's hash tag, so
 * they live on the same Cluster slot. Returns the removed timestamps.
 */
const PRUNE_LUA = `
local removed = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if #removed == 0 then return removed end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for _, ts in ipairs(removed) do redis.call('DEL', ARGV[2] .. ts) end
redis.call('INCR', KEYS[2])
redis.call('PUBLISH', ARGV[3], cjson.encode({ type = 'prune', timestamps = removed }))
return removed
`;

/** The index's operations; the writer side of the catalog plus a full read for replicas. */
export interface RedisCatalogIndex extends CatalogWriter {
  /** Every published archive with its metadata; rejects when Redis does not answer. */
  load(): Promise<ArchiveMeta[]>;
  /** The index version (`CATALOG_VERSION_KEY`); `null` when unknown. */
  version(): Promise<string | null>;
}

/** Binds the index to a command client (scripts are defined on it once). */
export function createRedisCatalogIndex(client: RedisClient): RedisCatalogIndex {
  const publishScript = defineScript(client, 'radarCatalogPublish', 3, PUBLISH_LUA);
  const pruneScript = defineScript(client, 'radarCatalogPrune', 2, PRUNE_LUA);

  return {
    async publish(meta) {
      const score = timestampScore(meta.timestamp);
      if (score === undefined) throw new Error(`not a publishable timestamp: ${meta.timestamp}`);
      const result = await publishScript(
        [TIMESTAMPS_KEY, archiveKey(meta.timestamp), CATALOG_VERSION_KEY],
        [
          meta.timestamp,
          score,
          CATALOG_EVENTS_CHANNEL,
          encodePublishEvent(meta),
          ...metaToHashFields(meta),
        ],
      );
      return result === 1;
    },

    async prune(cutoffMs) {
      const removed = await pruneScript(
        [TIMESTAMPS_KEY, CATALOG_VERSION_KEY],
        [`(${cutoffMs / 1000}`, ARCHIVE_KEY_PREFIX, CATALOG_EVENTS_CHANNEL],
      );
      return Array.isArray(removed) ? (removed as string[]) : [];
    },

    version: () => client.get(CATALOG_VERSION_KEY),

    async list() {
      return client.zrevrange(TIMESTAMPS_KEY, 0, -1);
    },

    async load() {
      const timestamps = await client.zrevrange(TIMESTAMPS_KEY, 0, -1);
      if (timestamps.length === 0) return [];
      const pipeline = client.pipeline();
      for (const ts of timestamps) pipeline.hgetall(archiveKey(ts));
      const replies = (await pipeline.exec()) ?? [];
      const metas: ArchiveMeta[] = [];
      timestamps.forEach((ts, i) => {
        const [err, hash] = replies[i] ?? [new Error('missing pipeline reply'), undefined];
        if (err) throw err;
        // A member whose hash vanished was pruned between the two reads: not published.
        const meta = metaFromHash(ts, (hash ?? {}) as Record<string, string>);
        if (meta) metas.push(meta);
      });
      return metas;
    },
  };
}
