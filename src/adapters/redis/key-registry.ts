/**
 * The key registry as stored in Redis: one JSON string in the key-file format (docs/keys.md;
 * validated by the same parser, so a registry written by hand or by an old CLI cannot
 * bypass the checks), replaced only by a compare-and-set that also announces the change, so
 * concurrent administrators never overwrite each other and every replica hears about it.
 */
import { createHash } from 'node:crypto';
import type { KeyRegistryData } from '../../domain/key-records';
import { parseKeyFile, serializeKeyFile } from '../../keys/key-file-format';
import type { RedisClient } from './client';
import { KEY_EVENTS_CHANNEL, KEY_REGISTRY_KEY } from './keys';
import { defineScript } from './script';

/** A registry read from Redis with the exact stored text (the compare-and-set token). */
export interface StoredRegistry {
  readonly data: KeyRegistryData;
  readonly raw: string;
}

/**
 * KEYS: registry. ARGV: '1' to require the current value to equal ARGV[2] ('0' to require
 * that there is none), the new JSON, channel, event. Returns 1 when written, 0 on conflict.
 */
const COMPARE_AND_SET_LUA = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
elseif current then
  return 0
end
redis.call('SET', KEYS[1], ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
`;

/**
 * Reads the registry; undefined when Redis holds none (never created, or lost in a restart
 * without persistence). Throws `KeyFileError` when the stored JSON is invalid, and the
 * client's error when Redis does not answer.
 */
export async function readRedisRegistry(client: RedisClient): Promise<StoredRegistry | undefined> {
  const raw = await client.get(KEY_REGISTRY_KEY);
  if (raw === null) return undefined;
  return { data: parseKeyFile(raw), raw };
}

/**
 * As `readRedisRegistry`, but 'unchanged' when the stored text equals `inForce`: the periodic
 * resync mostly finds the registry in force and skips the parse (and its garbage).
 */
export async function readRedisRegistryIfChanged(
  client: RedisClient,
  inForce: string | undefined,
): Promise<StoredRegistry | 'unchanged' | undefined> {
  const raw = await client.get(KEY_REGISTRY_KEY);
  if (raw === null) return undefined;
  if (raw === inForce) return 'unchanged';
  return { data: parseKeyFile(raw), raw };
}

/** The registry's text as stored in Redis: compact, and checked as every stored registry is. */
export function serializeRegistry(data: KeyRegistryData): string {
  return serializeKeyFile(data, 'compact');
}

/**
 * Replaces the registry with `data` if the stored text still equals `expectedRaw` (null: if
 * none is stored), and publishes a change event in the same atomic step. Resolves with the
 * text stored (the next compare-and-set token), or undefined on a conflict (someone else saved
 * since `expectedRaw` was read). Throws `KeyFileError` for a registry replicas would refuse.
 */
export async function compareAndSetRedisRegistry(
  client: RedisClient,
  expectedRaw: string | null,
  data: KeyRegistryData,
): Promise<string | undefined> {
  const script = defineScript(client, 'radarKeysCompareAndSet', 1, COMPARE_AND_SET_LUA);
  const text = serializeRegistry(data);
  const revision = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const result = await script(
    [KEY_REGISTRY_KEY],
    [expectedRaw === null ? '0' : '1', expectedRaw ?? '', text, KEY_EVENTS_CHANNEL, revision],
  );
  return result === 1 ? text : undefined;
}
