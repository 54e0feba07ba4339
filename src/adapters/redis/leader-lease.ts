/**
 * Redis leader lease: `SET key owner NX PX ttl` to take it, a compare-and-extend script to
 * renew it, compare-and-delete to release it. An owner that stops renewing loses it after
 * `ttlMs`, so a crashed leader is replaced within one lease period.
 */
import type { Cluster, Redis } from 'ioredis';
import type { LeaderLease } from '../../domain/ports';

const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

export function createRedisLeaderLease(options: {
  readonly client: Redis | Cluster;
  readonly key: string;
  readonly owner: string;
  readonly ttlMs: number;
}): LeaderLease {
  const { client, key, owner, ttlMs } = options;
  return {
    async acquire() {
      const renewed = (await client.eval(RENEW, 1, key, owner, String(ttlMs))) as number;
      if (renewed === 1) return true;
      return (await client.set(key, owner, 'PX', ttlMs, 'NX')) === 'OK';
    },
    async release() {
      await client.eval(RELEASE, 1, key, owner);
    },
  };
}
