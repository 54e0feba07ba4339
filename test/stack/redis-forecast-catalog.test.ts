/**
 * The forecast catalog on a real Redis: what the ingest leader writes reaches a replica by its
 * announcement; a replica that missed it finds a frame by re-reading the manifest; a malformed
 * manifest (written by hand) keeps the replica's last good view, logged once; a manifest Redis
 * lost is an empty one until the leader writes it again; the writer reads back what it wrote.
 */
import {
  createRedisForecastCatalog,
  createRedisForecastWriter,
  type RedisForecastCatalog,
} from '../../src/adapters/redis/forecast-catalog';
import { waitForRedisReady, type RedisClient } from '../../src/adapters/redis/client';
import { FORECASTS_KEY } from '../../src/adapters/redis/keys';
import type { ForecastManifest } from '../../src/domain/forecast-catalog';
import { createSilentLogger } from '../../src/logger';
import { loggedLines } from '../harness/log-lines';
import { useRedis } from '../harness/redis-fixture';
import { waitFor } from '../harness/wait';

const catalogs: RedisForecastCatalog[] = [];
const redis = useRedis({
  flushAfterEach: true,
  afterEachTest: () => Promise.all(catalogs.splice(0).map((c) => c.stop())),
});

const frame = (base: string, lead: number) => ({
  timestamp: `forecast-${base}-${String(lead).padStart(3, '0')}`,
  size: 2048,
  etag: `"etag-${base}-${lead}"`,
  lastModified: new Date(Date.UTC(2026, 10, 28, 12, lead)),
});
const manifest = (base: string, leads: number[], older?: string): ForecastManifest => ({
  bases: [
    { base, leads, frames: leads.map((lead) => frame(base, lead)) },
    ...(older === undefined
      ? []
      : [{ base: older, leads: [10], frames: [frame(older, 10)], supersededAtMs: 1_000 }]),
  ],
});

/** A connection once it is ready (commands are not queued while it connects). */
async function ready(role: string): Promise<RedisClient> {
  const client = redis.connect(role);
  await waitForRedisReady(client, 5000);
  return client;
}

function replica(logger = createSilentLogger()): RedisForecastCatalog & { client: RedisClient } {
  const client = redis.connect('replica');
  const catalog = createRedisForecastCatalog({
    client,
    subscriber: redis.subscriber('replica-sub'),
    logger,
    resyncMs: 60_000,
  });
  catalogs.push(catalog);
  return Object.assign(catalog, { client });
}

it('a written manifest reaches a replica by its announcement; the writer reads it back', async () => {
  const writer = createRedisForecastWriter(await ready('leader'));
  const reader = replica();
  await reader.start();
  expect(reader.current().listed).toEqual([]);
  const written = manifest('202611281200', [10, 20], '202611281158');
  await writer.write(written);
  await waitFor(() => reader.current().listedBase === '202611281200', 5000, 'announced', 10);
  expect(reader.current().listed).toEqual([
    { base: '202611281200', lead: 10, valid: '202611281210' },
    { base: '202611281200', lead: 20, valid: '202611281220' },
  ]);
  expect(reader.current().get('forecast-202611281158-010')).toEqual(frame('202611281158', 10));
  expect(await writer.read()).toEqual(written);
});

it('a replica that missed the announcement finds a newly listed frame by re-reading', async () => {
  const writer = createRedisForecastWriter(await ready('leader'));
  const reader = replica(); // never started: no subscription, no period
  await waitForRedisReady(reader.client, 5000);
  await writer.write(manifest('202611281200', [10]));
  expect(reader.current().get('forecast-202611281200-010')).toBeUndefined();
  expect(await reader.find!('forecast-202611281200-010')).toEqual(frame('202611281200', 10));
  expect(await reader.find!('forecast-202611281200-020')).toBeUndefined();
});

it('keeps the last good view over a malformed manifest (logged once); a lost one is empty', async () => {
  const writer = createRedisForecastWriter(await ready('leader'));
  const logged = loggedLines('warn');
  const reader = replica(logged.logger as never);
  await waitForRedisReady(reader.client, 5000);
  await writer.write(manifest('202611281200', [10]));
  await reader.refresh();
  const good = reader.current();
  const admin = await ready('admin');
  for (const junk of [
    '{not json',
    JSON.stringify({ bases: [{ base: '202611281200', leads: [10], frames: [{ key: '../x' }] }] }),
    JSON.stringify({ bases: [{ base: '2026', leads: [10], frames: [] }] }),
  ]) {
    await admin.set(FORECASTS_KEY, junk);
    await reader.refresh();
    expect(reader.current()).toBe(good);
  }
  expect(
    logged.lines.filter((l) => l.msg === 'forecast manifest not read; keeping the last good one'),
  ).toHaveLength(1);
  expect(await writer.read()).toEqual({ bases: [] });
  await admin.del(FORECASTS_KEY);
  await reader.refresh();
  expect(reader.current().listed).toEqual([]);
  expect(reader.current().get('forecast-202611281200-010')).toBeUndefined();
});
