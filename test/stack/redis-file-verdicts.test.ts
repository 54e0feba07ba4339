/**
 * The MRMS producers' verdicts on feed files in a real Redis hash: what one follower records
 * (a conversion begun, a refusal) a second follower over the same hash reads, so a file whose
 * conversions never ended twice is refused by the next leader; stored garbage reads as no
 * verdict; `retain` forgets files that left the feed
 * (src/adapters/redis/file-verdict-hash.ts, src/sources/mrms/file-verdicts.ts).
 */
import type { RedisClient } from '../../src/adapters/redis/client';
import { createRedisFileVerdicts } from '../../src/adapters/redis/file-verdict-hash';
import type { FeedFile } from '../../src/domain/producer-ports';
import { createFileBook } from '../../src/sources/mrms/file-verdicts';
import { useRedis } from '../harness/redis-fixture';

const redis = useRedis();
let client: RedisClient;
beforeAll(async () => {
  client = await redis.client('test-verdicts', 1000);
});

const file = (key: string, version: string): FeedFile => ({ key, name: key, timeMs: 0, version });

it('a file whose conversions never ended twice is refused by the next book over the hash', async () => {
  const key = 'verdicts:crash';
  const killer = file('feed/killer.grib2.gz', '10:1');
  for (let run = 1; run <= 2; run++) {
    const book = createFileBook(createRedisFileVerdicts(client, key));
    expect(await book.begin(killer)).toBeUndefined(); // the process then dies
  }
  expect(JSON.parse((await client.hget(key, killer.key))!)).toEqual({
    version: '10:1',
    attempts: 2,
  });
  const third = createFileBook(createRedisFileVerdicts(client, key));
  expect(await third.begin(killer)).toEqual({
    reason: expect.stringMatching(/2 conversions of it never ended/),
    fresh: true,
  });
  expect(third.settled(killer)).toBe(true);
  const fourth = createFileBook(createRedisFileVerdicts(client, key));
  expect((await fourth.begin(killer))?.fresh).toBe(false); // already counted
  // A new version of the file (rewritten) is tried again.
  expect(await fourth.begin(file(killer.key, '20:2'))).toBeUndefined();
});

it('reads garbage as no verdict, and retain forgets files that left the feed', async () => {
  const key = 'verdicts:retain';
  const store = createRedisFileVerdicts(client, key);
  await client.hset(key, 'feed/garbage', '{"attempts":"many"');
  expect(await store.get('feed/garbage')).toBeUndefined();
  const book = createFileBook(store);
  await book.refuse(file('feed/a', '1'), 'bad');
  await book.published(file('feed/b', '1'));
  await book.retain([file('feed/a', '1')]);
  expect(await client.hkeys(key)).toEqual(['feed/a']);
});
