/**
 * The forecast catalog in Redis: one string key holding the manifest (`FORECASTS_KEY`),
 * written whole by the ingest leader together with an announcement on `FORECASTS_CHANNEL`
 * (one MULTI), and read whole by every replica on each announcement and every `resyncMs`
 * (a missed message costs at most one period). A replica whose read fails or finds junk
 * keeps its last good view; a missing key (Redis restarted empty) is an empty manifest until
 * the leader writes it again on its next pass.
 */
import {
  createForecastView,
  EMPTY_FORECAST_VIEW,
  EMPTY_MANIFEST,
  type ForecastCatalogReader,
  type ForecastCatalogWriter,
  type ForecastView,
} from '../../domain/forecast-catalog';
import { decodeManifest, encodeManifest } from '../../domain/forecast-manifest-codec';
import type { Logger } from '../../logger';
import type { RedisClient } from './client';
import { FORECASTS_CHANNEL, FORECASTS_KEY } from './keys';

/** The ingest leader's side: the stored manifest and its replacement, announced. */
export function createRedisForecastWriter(client: RedisClient): ForecastCatalogWriter {
  return {
    async read() {
      const text = await client.get(FORECASTS_KEY);
      return (text === null ? undefined : decodeManifest(text)) ?? EMPTY_MANIFEST;
    },
    async write(manifest) {
      const text = JSON.stringify(encodeManifest(manifest));
      await client.multi().set(FORECASTS_KEY, text).publish(FORECASTS_CHANNEL, '1').exec();
    },
  };
}

/** A miss re-reads the manifest at most this often (a flood of unknown frames costs little). */
export const FIND_INTERVAL_MS = 250;

export interface RedisForecastCatalogOptions {
  readonly client: RedisClient;
  /** The shared pub/sub connection. */
  readonly subscriber: RedisClient;
  readonly logger: Logger;
  /** Period of the re-read that covers a missed announcement. */
  readonly resyncMs: number;
  readonly now?: () => number;
}

export interface RedisForecastCatalog extends ForecastCatalogReader {
  /** Loads the manifest once, subscribes, and starts the periodic re-read. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Re-reads the manifest now (tests, and the announcement handler). */
  refresh(): Promise<void>;
}

/** A replica's forecast view, kept current from Redis. */
export function createRedisForecastCatalog(
  options: RedisForecastCatalogOptions,
): RedisForecastCatalog {
  const { client, subscriber, logger } = options;
  let view: ForecastView = EMPTY_FORECAST_VIEW;
  let lastText: string | null | undefined;
  let timer: NodeJS.Timeout | undefined;
  let complaint: string | undefined;
  const now = options.now ?? Date.now;
  let reading: Promise<void> | undefined;
  let lastFindMs = -Infinity;

  const complain = (problem: string) => {
    if (complaint !== problem)
      logger.warn({ problem }, 'forecast manifest not read; keeping the last good one');
    complaint = problem;
  };

  const refresh = async () => {
    let text: string | null;
    try {
      text = await client.get(FORECASTS_KEY);
    } catch (err) {
      return complain((err as Error).message);
    }
    if (text === lastText) return;
    const manifest = text === null ? EMPTY_MANIFEST : decodeManifest(text);
    if (manifest === undefined) return complain('malformed manifest');
    complaint = undefined;
    lastText = text;
    view = createForecastView(view.version + 1, manifest);
  };

  const onMessage = (channel: string) => {
    if (channel === FORECASTS_CHANNEL) void refresh();
  };

  /** One re-read at a time, and none within FIND_INTERVAL_MS of the last a miss asked for. */
  const find = async (key: string) => {
    if (reading === undefined && now() - lastFindMs >= FIND_INTERVAL_MS) {
      lastFindMs = now();
      reading = refresh().finally(() => {
        reading = undefined;
      });
    }
    await reading;
    return view.get(key);
  };

  return {
    current: () => view,
    find,
    refresh,
    async start() {
      subscriber.on('message', onMessage);
      await subscriber
        .subscribe(FORECASTS_CHANNEL)
        .catch((err: Error) =>
          logger.warn({ err: err.message }, 'forecast subscription failed; re-reading on a period'),
        );
      await refresh();
      timer = setInterval(() => void refresh(), options.resyncMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      subscriber.off('message', onMessage);
      if (subscriber.status === 'ready')
        await subscriber.unsubscribe(FORECASTS_CHANNEL).catch(() => undefined);
    },
  };
}
