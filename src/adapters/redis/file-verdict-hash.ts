/**
 * The MRMS producers' verdicts on feed files in one Redis hash (`MRMS_VERDICTS_KEY`), beside
 * their leader lease: a file that killed or was refused by one leader stays refused for the
 * next. Fields are feed keys, values JSON verdicts.
 */
import type { Cluster, Redis } from 'ioredis';
import type { FileVerdictStore } from '../../domain/producer-ports';
import { decodeVerdict, parseJson } from '../../shared/file-verdict-codec';

export function createRedisFileVerdicts(client: Redis | Cluster, key: string): FileVerdictStore {
  return {
    async get(file) {
      const text = await client.hget(key, file);
      return text === null ? undefined : decodeVerdict(parseJson(text));
    },
    async set(file, verdict) {
      await client.hset(key, file, JSON.stringify(verdict));
    },
    async delete(file) {
      await client.hdel(key, file);
    },
    async retain(keep) {
      const stale = (await client.hkeys(key)).filter((field) => !keep.has(field));
      if (stale.length > 0) await client.hdel(key, ...stale);
    },
  };
}
