/**
 * The MRMS producer's wiring: the feed its configuration names (NOAA-style bucket, HTTP
 * listing or local directory), the render pool, the follower, its metrics, and, for
 * `npm run mrms`, the admin listener and the leader lease in Redis. Embedded replicas run the
 * same follower in-process with `RADAR_SOURCE=mrms`.
 */
import type { Registry } from 'prom-client';
import path from 'node:path';
import { createHttpDirectoryFeed } from '../sources/mrms/http-directory-feed';
import { createDirectoryFileFeed } from '../sources/mrms/directory-file-feed';
import { createFileVerdicts, VERDICT_FILE_NAME } from '../adapters/fs/file-verdict-file';
import { waitForRedisReady } from '../adapters/redis/client';
import { createRedisFileVerdicts } from '../adapters/redis/file-verdict-hash';
import { MRMS_LEADER_KEY, MRMS_VERDICTS_KEY } from '../adapters/redis/keys';
import { createBucketFileFeed } from '../sources/mrms/bucket-file-feed';
import { createS3Client } from '../adapters/s3/client';
import type { ArchivesBackend, Config, MrmsSettings, MrmsSource, NowcastSettings } from '../config';
import type { LeaderLease } from '../domain/ports';
import type { FileFeed, FileVerdictStore, FrameSink } from '../domain/producer-ports';
import { createLogger, type Logger } from '../logger';
import { createMrmsMetrics, mrmsGauges } from '../observability/mrms-metrics';
import { createRegistry } from '../observability/registry';
import { processInstanceName } from '../shared/process-name';
import { createFlagPairing } from '../sources/mrms/flag-pairing';
import {
  createMrmsFollower,
  DEFAULT_MAX_FILE_BYTES,
  type MrmsFollower,
} from '../sources/mrms/mrms-follower';
import {
  createMrmsPool,
  MRMS_FRAME_MODULE,
  movableMrmsInput,
  type MrmsFrameInput,
} from '../sources/mrms/mrms-frame';
import { startAdminServedProcess } from './admin-served-process';
import { closer, type Component } from './component';
import { openUploadArchives } from './open-archives';
import type { MrmsOverrides } from './overrides';
import { nowcastPublisher } from './nowcast';
import { BASELINE_MINUTES } from '../forecast/forecast-cycle';
import { connectRedis, LEADER_LEASE_TTL_MS, redisLeaderLease } from './redis';

/** The feed of `productLevel` files at `source`; its connections close last. */
export function openFileFeed(
  source: MrmsSource,
  productLevel: string,
  timeoutS: number,
): { feed: FileFeed; connections: Component } {
  const timeoutMs = timeoutS * 1000;
  switch (source.kind) {
    case 's3': {
      // NOAA's bucket is public: anonymous requests, no credentials to configure or leak.
      const client = createS3Client(
        { endpoint: source.endpoint, accessKey: '', secretKey: '', region: source.region },
        { timeoutMs, maxSockets: 4 },
      );
      return {
        feed: createBucketFileFeed({
          client,
          endpoint: source.endpoint,
          bucket: source.bucket,
          prefix: source.prefix,
          productLevel,
        }),
        connections: closer('mrms-source', () => client.close()),
      };
    }
    case 'http':
      return {
        feed: createHttpDirectoryFeed({ url: source.url, productLevel, timeoutMs }),
        connections: closer('mrms-source', () => {}),
      };
    case 'dir':
      return {
        feed: createDirectoryFileFeed({
          dir: source.dir,
          productLevel,
          walk: { timeoutMs },
          readTimeoutMs: timeoutMs,
        }),
        connections: closer('mrms-source', () => {}),
      };
  }
}

/**
 * Where verdicts on feed files outlive a producer without Redis: a hidden file beside the
 * archives when they are a directory; in memory (undefined) when they are in a bucket.
 */
export function localFileVerdicts(archives: ArchivesBackend): FileVerdictStore | undefined {
  return archives.kind === 'fs'
    ? createFileVerdicts(path.join(archives.dir, VERDICT_FILE_NAME))
    : undefined;
}

/** The follower over `sink`, with its render pool and feed, as one component. */
export function mrmsFollowerComponent(
  sink: FrameSink,
  mrms: MrmsSettings,
  logger: Logger,
  options: {
    readonly registry?: Registry;
    readonly lease?: LeaderLease;
    readonly leaseRenewMs?: number;
    /** Watches the feed's listings (an embedded replica's source watch). */
    readonly watchFeed?: (feed: FileFeed) => FileFeed;
    readonly verdicts?: FileVerdictStore;
    /** Forecast frames after each published frame (`NOWCAST`). */
    readonly nowcast?: NowcastSettings;
  } = {},
): { readonly follower: MrmsFollower; readonly component: Component } {
  const opened = openFileFeed(mrms.source, mrms.productLevel, mrms.timeoutS);
  const { types } = mrms;
  const flags = types && openFileFeed(types.source, types.productLevel, mrms.timeoutS);
  const feed = options.watchFeed?.(opened.feed) ?? opened.feed;
  const pool = createMrmsPool({ size: mrms.workers, maxZoom: mrms.maxZoom });
  const loader = { module: MRMS_FRAME_MODULE, options: { maxZoom: mrms.maxZoom } };
  const nowcast = nowcastPublisher(sink, options.nowcast, loader, logger, options.registry);
  const follower = createMrmsFollower({
    feed,
    sink,
    convert: (input: MrmsFrameInput) => {
      // With a nowcast the pool gets copies: the follower hands the input on after publishing.
      const moved = movableMrmsInput(input, nowcast !== undefined);
      return pool.render(moved.input, moved.transfer);
    },
    pairing:
      types &&
      flags &&
      createFlagPairing({
        feed: flags.feed,
        product: types.productLevel,
        waitMs: types.waitS * 1000,
        maxFileBytes: DEFAULT_MAX_FILE_BYTES,
        logger,
      }),
    concurrency: pool.size,
    logger,
    backfill: mrms.backfill,
    pollMs: mrms.pollS * 1000,
    lease: options.lease,
    leaseRenewMs: options.leaseRenewMs,
    verdicts: options.verdicts,
    events: options.registry ? createMrmsMetrics(options.registry) : undefined,
    onPublished:
      nowcast &&
      ((timestamp, input) => {
        const moved = movableMrmsInput(input);
        nowcast.observe(timestamp, moved.input, moved.transfer);
      }),
    // After a restart, the frames of the last baseline found published are read back for the
    // nowcast's echo images, so the first new frame gets its forecasts.
    recall: nowcast && {
      windowMs: BASELINE_MINUTES * 60_000,
      onRecalled: (timestamp, input) => {
        const moved = movableMrmsInput(input);
        nowcast.recall(timestamp, moved.input, moved.transfer);
      },
    },
  });
  if (options.registry) mrmsGauges(options.registry, follower);
  let stopping: Promise<void> | undefined;
  return {
    follower,
    component: {
      name: 'mrms',
      start: async () => {
        logger.info(
          {
            feed: feed.describe,
            product: mrms.productLevel,
            backfill: mrms.backfill,
            types: types && flags ? { feed: flags.feed.describe, waitS: types.waitS } : null,
          },
          'mrms follower starting',
        );
        await follower.start();
      },
      stop: () =>
        (stopping ??= (async () => {
          await follower.stop();
          await nowcast?.close();
          await pool.close();
          await opened.connections.stop();
          await flags?.connections.stop();
        })()),
    },
  };
}

/** The in-process MRMS follower of an embedded replica (`RADAR_SOURCE=mrms`): starts in the background. */
export function backgroundMrms(
  sink: FrameSink,
  mrms: MrmsSettings,
  logger: Logger,
  registry: Registry,
  watchFeed?: (feed: FileFeed) => FileFeed,
  verdicts?: FileVerdictStore,
  nowcast?: NowcastSettings,
): Component {
  const { component } = mrmsFollowerComponent(sink, mrms, logger.child({ component: 'mrms' }), {
    registry,
    watchFeed,
    verdicts,
    nowcast,
  });
  return {
    name: 'mrms',
    start: async () => {
      void component.start();
    },
    stop: () => component.stop(),
  };
}

/** A running `npm run mrms` follower. */
export interface RunningMrmsProducer {
  readonly adminPort: number;
  readonly owner: string;
  readonly follower: MrmsFollower;
  /** Settles once the first pass is over (the backfill), or at once as a waiting follower. */
  readonly firstPass: Promise<void>;
  readonly shutdown: () => Promise<void>;
}

/**
 * `npm run mrms` without `--file`: the follower publishing into the configured archive store,
 * with the leader lease when `REDIS_URL` is set (alone otherwise), metrics and health on the
 * admin port. Resolves once listening; the follower starts in the background (`firstPass`).
 */
export async function buildMrmsProducer(
  config: Config,
  overrides: MrmsOverrides = {},
): Promise<RunningMrmsProducer> {
  const logger = overrides.logger ?? createLogger(config.logLevel, { service: 'radar-mrms' });
  const owner = overrides.owner ?? processInstanceName();
  const registry = createRegistry();
  const archives = openUploadArchives(config.archives, logger);
  await archives.prepare();
  const redis =
    config.catalog.kind === 'redis' ? connectRedis(config.catalog, logger, 'mrms') : undefined;
  const ttlMs = overrides.leaseTtlMs ?? LEADER_LEASE_TTL_MS;
  const { follower, component } = mrmsFollowerComponent(archives.frameSink(), config.mrms, logger, {
    registry,
    lease: redis ? redisLeaderLease(redis, owner, ttlMs, MRMS_LEADER_KEY) : undefined,
    leaseRenewMs: ttlMs / 3,
    verdicts: redis
      ? createRedisFileVerdicts(redis.client, MRMS_VERDICTS_KEY)
      : localFileVerdicts(config.archives),
    nowcast: config.nowcast,
  });
  let firstPass: Promise<void> = Promise.resolve();
  const components: Component[] = [
    {
      name: 'mrms',
      // In the background: signals and the admin port work during a long backfill.
      start: async () => {
        firstPass = (async () => {
          // The first lease attempt must not race the connection handshake.
          if (redis) await waitForRedisReady(redis.client, 5000).catch(() => {});
          await component.start();
        })();
      },
      stop: async () => {
        await component.stop(); // interrupts a backfill after the frame in flight
        await firstPass.catch(() => undefined);
      },
    },
  ];

  const { adminPort, shutdown } = await startAdminServedProcess({
    logger,
    admin: config.admin,
    registry,
    components,
    clients: [archives.connections, ...(redis ? [redis.connections] : [])],
  });
  logger.info({ owner, adminPort, leader: follower.isLeader() }, 'mrms producer running');
  return { adminPort, owner, follower, firstPass, shutdown };
}
