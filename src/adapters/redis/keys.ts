/**
 * Every Redis key and channel name the service uses, in one place, so an
 * operator can read the whole data model here and no module invents a name of its own.
 *
 * Keys that a Lua script or transaction touches together carry the hash tag `{radar}`, so
 * they live in one hash slot and the scripts work unchanged on Redis Cluster. Rate-limit
 * counters are the deliberate exception: each is touched alone, by one single-key script, so
 * they stay outside the tag and spread over the cluster's shards instead of loading one.
 */

/** The hash tag shared by every key that multi-key scripts touch together. */
export const HASH_TAG = '{radar}';

/**
 * Sorted set of published timestamps: member = the 12-digit timestamp, score = its epoch
 * seconds (UTC). Newest first is `ZREVRANGE 0 -1`; retention is `ZRANGEBYSCORE -inf (cutoff`.
 */
export const TIMESTAMPS_KEY = `${HASH_TAG}:timestamps`;

/** Prefix of the per-timestamp metadata hashes; see `archiveKey`. */
export const ARCHIVE_KEY_PREFIX = `${HASH_TAG}:archive:`;

/**
 * Hash of one published archive's metadata: `size` (bytes), `etag` (with quotes) and
 * `lastModified` (epoch ms). Written together with the timestamp's `ZADD`, deleted by prune.
 */
export function archiveKey(timestamp: string): string {
  return `${ARCHIVE_KEY_PREFIX}${timestamp}`;
}

/**
 * Version of the catalog index: an integer the publish and prune scripts increment with every
 * change they make. A replica reads it before a full resync and skips the resync (no index
 * read, no snapshot, no render) when it equals the version of its last full load. Missing
 * (Redis restarted empty, flushed) means "unknown": the replica reads the index.
 */
export const CATALOG_VERSION_KEY = `${HASH_TAG}:catalog:version`;

/**
 * A random token set by the ingest leader after a whole pass has made the index true. Missing
 * after a replica has seen it means the index was lost (Redis restarted empty, flushed) and is
 * being rebuilt: the replica keeps what it knew until the token is back.
 */
export const CATALOG_RECONCILED_KEY = `${HASH_TAG}:catalog:reconciled`;

/** Pub/sub channel of catalog changes (JSON publish and prune events) for every replica. */
export const CATALOG_EVENTS_CHANNEL = `${HASH_TAG}:events`;

/**
 * The forecast manifest: a string holding JSON (`domain/forecast-manifest-codec.ts`), every
 * readable forecast base with its frames' metadata, written whole by the ingest leader only.
 */
export const FORECASTS_KEY = `${HASH_TAG}:forecasts`;

/** Pub/sub channel announcing a new forecast manifest; replicas re-read it on any message. */
export const FORECASTS_CHANNEL = `${HASH_TAG}:forecasts:events`;

/** Ingest leader lease: a string holding the leader's id, set with NX and a PX expiry. */
export const INGEST_LEADER_KEY = `${HASH_TAG}:ingest:leader`;

/**
 * MRMS producer leader lease: like the ingest lease, its own key, so one MRMS producer
 * converts and uploads while the others wait.
 */
export const MRMS_LEADER_KEY = `${HASH_TAG}:mrms:leader`;

/**
 * Hash of the MRMS producers' verdicts on feed files (field: the file's key, value: JSON), so
 * a file refused or fatal to one producer is not retried by the next leader.
 */
export const MRMS_VERDICTS_KEY = `${HASH_TAG}:mrms:verdicts`;

/**
 * Set of published timestamps a replica found corrupt while serving, for the ingest leader to
 * re-validate: replicas `SADD`, the leader `SPOP`s them all at the start of a pass.
 */
export const REVALIDATE_KEY = `${HASH_TAG}:ingest:revalidate`;

/**
 * The archive store's reachability as all replicas see it: a hash with `state` ('1' reachable,
 * '0' not), `fails` and `oks` (consecutive failed and successful probes, from any replica),
 * written by one script per probe result and expiring when no replica reports.
 */
export const STORE_HEALTH_KEY = `${HASH_TAG}:health:store`;

/** Pub/sub channel announcing a change of the shared store state ('1' or '0'). */
export const STORE_HEALTH_CHANNEL = `${HASH_TAG}:health:events`;

/** The key registry as JSON in the key-file format (docs/keys.md; hashes, never keys). */
export const KEY_REGISTRY_KEY = `${HASH_TAG}:keys:registry`;

/** Pub/sub channel announcing a key registry change; replicas reload on any message. */
export const KEY_EVENTS_CHANNEL = `${HASH_TAG}:keys:events`;

/**
 * Per-key usage of one UTC hour (`YYYYMMDDHH`): a hash, field = key id, value = that key's
 * counts as JSON (`{"requests":12,"bytes":3456,"status:206":10,...}`, fields of
 * `domain/usage.ts`). Expires `RADAR_USAGE_RETENTION_DAYS` after its hour ends.
 */
export function usageHourKey(hourLabel: string): string {
  return `${HASH_TAG}:usage:${hourLabel}`;
}

/** Sorted set of the same hour: member = key id, score = its requests (the busiest keys). */
export function usageRankKey(hourLabel: string): string {
  return `${HASH_TAG}:usage-rank:${hourLabel}`;
}

/**
 * The highest usage batch number applied from one replica process (`source`): a string,
 * expiring with the retention, so a batch sent again after a lost reply is not added twice.
 */
export function usageAppliedKey(source: string): string {
  return `${HASH_TAG}:usage-applied:${source}`;
}

/**
 * Prefix of the rate-limit counters. A key's counter is `radar:rl:<keyId>` (rate-limiter-flexible
 * appends `:<keyId>`), a string with the points consumed and the window as its TTL, one per
 * key whatever its limit: a changed limit applies to the points already spent in the window.
 * Outside the hash tag on purpose (see above).
 */
export const RATE_LIMIT_KEY_PREFIX = 'radar:rl';

/** The rate-limit counter of `keyId` (see {@link RATE_LIMIT_KEY_PREFIX}). */
export function rateLimitKey(keyId: string): string {
  return `${RATE_LIMIT_KEY_PREFIX}:${keyId}`;
}
