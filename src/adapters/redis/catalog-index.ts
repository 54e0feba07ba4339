/**
 * The shared catalog index in Redis, the single source of truth every replica mirrors: the
 * sorted set of published timestamps and one metadata hash per timestamp (key names in
 * `redis-keys.ts`, formats in `redis-catalog-codec.ts`). Writes are Lua scripts, so a
 * publication is atomic and announced exactly once, and a prune removes and announces
 * together; concurrent ingest workers cannot double-publish.
 */
import { randomUUID } from 'node:crypto';
import type { ArchiveMeta, CatalogWriter } from '../../domain/ports';
import type { RedisClient } from './client';
import {
  decodeMetaHash,
  encodePublishEvent,
  metaToHashFields,
  timestampScore,
  type CatalogDropReason,
} from './catalog-codec';
import {
  ARCHIVE_KEY_PREFIX,
  archiveKey,
  CATALOG_EVENTS_CHANNEL,
  CATALOG_RECONCILED_KEY,
  CATALOG_VERSION_KEY,
  TIMESTAMPS_KEY,
} from './keys';
import { defineScript } from './script';

/**
 * KEYS: timestamps set, metadata hash, catalog version. ARGV: member, score, channel, event,
 * then the hash fields in `metaToHashFields` order (size, etag, lastModified). Returns 0 when
 * the timestamp is already published with exactly this metadata (nothing written, nothing
 * announced), else writes the hash (replacing a changed or malformed one), adds the member,
 * moves the version, announces, returns 1.
 */
const PUBLISH_LUA = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  local cur = redis.call('HMGET', KEYS[2], ARGV[5], ARGV[7], ARGV[9])
  if cur[1] == ARGV[6] and cur[2] == ARGV[8] and cur[3] == ARGV[10]
    and redis.call('HLEN', KEYS[2]) == 3 then return 0 end
end
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

/**
 * KEYS: timestamps set, metadata hash, catalog version. ARGV: member, channel. Removes one
 * member (and its hash), moves the version and announces it as a prune; returns 1 when the
 * member was there, else 0.
 */
const UNPUBLISH_LUA = `
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
if removed == 0 then return 0 end
redis.call('INCR', KEYS[3])
redis.call('PUBLISH', ARGV[2], cjson.encode({ type = 'prune', timestamps = { ARGV[1] } }))
return 1
`;

/**
 * KEYS: reconciled token. ARGV: token read at the start of the pass ('' for none), new token.
 * Sets the new token only if the key still holds the old one (a restart in between empties it).
 */
const RECONCILED_LUA = `
local cur = redis.call('GET', KEYS[1]) or ''
if cur ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`;

/** An index entry that failed validation on the way out of Redis. */
export interface DroppedEntry {
  readonly timestamp: string;
  readonly reason: CatalogDropReason;
}

/** The whole index as read: what may be listed, and what was refused. */
export interface IndexRead {
  readonly metas: ArchiveMeta[];
  readonly dropped: DroppedEntry[];
}

/** The index's operations; the writer side of the catalog plus a full read for replicas. */
export interface RedisCatalogIndex extends CatalogWriter {
  /**
   * Every member with valid metadata (`decodeMetaHash`, future bound from `nowMs`) and the
   * members refused; rejects when Redis does not answer.
   */
  read(nowMs: number): Promise<IndexRead>;
  /**
   * The index version (`CATALOG_VERSION_KEY`, `null` when unknown) and whether the index is
   * marked complete (`CATALOG_RECONCILED_KEY`), read together.
   */
  state(): Promise<{ readonly version: string | null; readonly reconciled: boolean }>;
}

/** Binds the index to a command client (scripts are defined on it once). */
export function createRedisCatalogIndex(client: RedisClient): RedisCatalogIndex {
  const publishScript = defineScript(client, 'radarCatalogPublish', 3, PUBLISH_LUA);
  const pruneScript = defineScript(client, 'radarCatalogPrune', 2, PRUNE_LUA);
  const unpublishScript = defineScript(client, 'radarCatalogUnpublish', 3, UNPUBLISH_LUA);
  const reconciledScript = defineScript(client, 'radarCatalogReconciled', 1, RECONCILED_LUA);

  const read = async (nowMs: number): Promise<IndexRead> => {
    const timestamps = await client.zrevrange(TIMESTAMPS_KEY, 0, -1);
    if (timestamps.length === 0) return { metas: [], dropped: [] };
    const pipeline = client.pipeline();
    // A member that is not a timestamp is dropped without reading a hash for it.
    const readable = timestamps.filter((ts) => timestampScore(ts) !== undefined);
    for (const ts of readable) pipeline.hgetall(archiveKey(ts));
    const replies = readable.length > 0 ? ((await pipeline.exec()) ?? []) : [];
    const hashes = new Map<string, Record<string, string>>();
    readable.forEach((ts, i) => {
      const [err, hash] = replies[i] ?? [new Error('missing pipeline reply'), undefined];
      if (err) throw err;
      hashes.set(ts, (hash ?? {}) as Record<string, string>);
    });
    const metas: ArchiveMeta[] = [];
    const dropped: DroppedEntry[] = [];
    for (const ts of timestamps) {
      const decoded = decodeMetaHash(ts, hashes.get(ts) ?? {}, nowMs);
      if (decoded.ok) metas.push(decoded.meta);
      else dropped.push({ timestamp: ts, reason: decoded.reason });
    }
    return { metas, dropped };
  };

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

    async state() {
      const [version, reconciled] = await client.mget(CATALOG_VERSION_KEY, CATALOG_RECONCILED_KEY);
      return { version: version ?? null, reconciled: reconciled != null };
    },

    reconciliation: {
      begin: () => client.get(CATALOG_RECONCILED_KEY),
      async complete(token) {
        await reconciledScript([CATALOG_RECONCILED_KEY], [token ?? '', randomUUID()]);
      },
    },

    async list() {
      return client.zrevrange(TIMESTAMPS_KEY, 0, -1);
    },

    async unpublish(timestamp) {
      const removed = await unpublishScript(
        [TIMESTAMPS_KEY, archiveKey(timestamp), CATALOG_VERSION_KEY],
        [timestamp, CATALOG_EVENTS_CHANNEL],
      );
      return removed === 1;
    },

    async entries() {
      return (await read(Date.now())).metas;
    },

    read,
  };
}
