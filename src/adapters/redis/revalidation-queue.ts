/**
 * The re-validation queue in Redis: a set of timestamps (so a report repeated by several
 * replicas is one request), added to by replicas and emptied by the ingest leader with SPOP.
 * Bounded: a replica only reports timestamps it lists, and the leader takes them all every pass;
 * a member that is not a timestamp (written by hand) is dropped on the way out.
 */
import type { RevalidationQueue } from '../../domain/ports';
import { hasTimestampShape } from '../../domain/timestamps';
import type { RedisClient } from './client';
import { REVALIDATE_KEY } from './keys';

/** Members taken per SPOP; more wait for the next pass. */
const TAKE_BATCH = 1000;

export function createRedisRevalidationQueue(client: RedisClient): RevalidationQueue {
  return {
    async request(timestamp) {
      await client.sadd(REVALIDATE_KEY, timestamp);
    },
    async take() {
      const members = await client.spop(REVALIDATE_KEY, TAKE_BATCH);
      return members.filter(hasTimestampShape);
    },
  };
}
