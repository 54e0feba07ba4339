/**
 * ioredis clients for standalone, Sentinel and Cluster deployments from one `REDIS_URL`, with
 * the failure behaviour the request path needs: a command never waits for a connection (no
 * offline queue) nor longer than the command timeout, reconnection goes on forever with a
 * capped backoff, and connection errors are logged at a bounded rate and never crash the
 * process. Topology handling is ioredis's own (sentinels, slot maps, failover).
 */
import Redis, { Cluster, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Logger } from '../../logger';
import { describeRedisTarget, parseRedisUrl, type RedisAuth, type RedisTarget } from './url';

/** A connection to any of the supported topologies; both share the command API. */
export type RedisClient = Redis | Cluster;

/** Options shared by command clients and subscribers. */
export interface RedisConnectionOptions {
  /** Names the connection (`CLIENT LIST` shows `radar-<role>`) and its log lines: api, ingest, keys… */
  readonly role: string;
  readonly logger: Logger;
  /** Upper bound of the reconnect backoff; Redis is back in use within about this long. Default 1000. */
  readonly maxReconnectDelayMs?: number;
  /** TCP connect plus handshake deadline; a hung server is abandoned after it. Default 2000. */
  readonly connectTimeoutMs?: number;
}

/** Options of a command (request-path) client. */
export interface RedisClientOptions extends RedisConnectionOptions {
  /** Longest wait for any reply (`RADAR_REDIS_TIMEOUT_MS`); bounds a request's wait on Redis. */
  readonly commandTimeoutMs: number;
}

/** At most one connection-error line per this long per client; the rest are counted. */
const ERROR_LOG_INTERVAL_MS = 10_000;

function backoff(maxDelayMs: number): (attempt: number) => number {
  return (attempt) => {
    const exponential = Math.min(maxDelayMs, 50 * 2 ** Math.min(Math.max(attempt - 1, 0), 16));
    // Jitter spreads the reconnects of many replicas after a Redis restart.
    return Math.max(10, Math.round(exponential * (0.75 + Math.random() * 0.25)));
  };
}

/** After a Sentinel failover the old master answers READONLY; reconnecting finds the new one. */
const reconnectOnReadOnly = (err: Error): boolean => err.message.startsWith('READONLY');

function attachConnectionLog(
  client: RedisClient,
  role: string,
  target: RedisTarget,
  logger: Logger,
): void {
  const redis = describeRedisTarget(target);
  let lastLoggedAt = -Infinity;
  let suppressed = 0;
  let downSince: number | undefined;
  const onError = (err: Error) => {
    const now = Date.now();
    downSince ??= now;
    if (now - lastLoggedAt < ERROR_LOG_INTERVAL_MS) {
      suppressed += 1;
      return;
    }
    logger.warn({ role, redis, err: err.message, suppressed }, 'redis connection error; retrying');
    lastLoggedAt = now;
    suppressed = 0;
  };
  client.on('error', onError);
  if (client instanceof Cluster) client.on('node error', onError);
  client.on('ready', () => {
    if (downSince === undefined) {
      logger.info({ role, redis }, 'redis connection ready');
    } else {
      logger.info({ role, redis, downMs: Date.now() - downSince }, 'redis connection restored');
      downSince = undefined;
      lastLoggedAt = -Infinity;
      suppressed = 0;
    }
  });
}

/** What a connection is for: request-path commands, or pub/sub. */
export type RedisConnectionPurpose =
  { readonly kind: 'command'; readonly commandTimeoutMs: number } | { readonly kind: 'subscriber' };

/** The ioredis constructor arguments for a URL and purpose; pure, so the mapping is testable. */
export type RedisConnectionPlan =
  | { readonly kind: 'redis'; readonly url: string | undefined; readonly options: RedisOptions }
  | {
      readonly kind: 'cluster';
      readonly nodes: ReadonlyArray<{ host: string; port: number }>;
      readonly options: ClusterOptions;
    };

/**
 * Maps a `REDIS_URL` and purpose onto ioredis options. Command connections: no offline queue,
 * bounded command time, one retry across a reconnect. Subscribers: queue while disconnected
 * and never give up on a command (SUBSCRIBE waits for Redis). Both reconnect forever.
 */
export function planRedisConnection(
  url: string,
  options: RedisConnectionOptions,
  purpose: RedisConnectionPurpose,
): RedisConnectionPlan {
  const target = parseRedisUrl(url);
  const retry = backoff(options.maxReconnectDelayMs ?? 1000);
  const command = purpose.kind === 'command';
  const common: RedisOptions = {
    connectionName: `radar-${options.role}`,
    connectTimeout: options.connectTimeoutMs ?? 2000,
    maxRetriesPerRequest: command ? 1 : null,
    reconnectOnError: reconnectOnReadOnly,
    // How long a closing socket may linger before it is destroyed (shutdown stays quick).
    disconnectTimeout: 500,
    // No auto-pipelining: it would save a syscall per limiter call (~20% of a replica's CPU
    // under load, measured), but a frozen Redis then held requests about twice the command
    // timeout (1,027 ms against the 500 ms bound, test/stack/fault-redis.test.ts).
    ...(purpose.kind === 'command' ? { commandTimeout: purpose.commandTimeoutMs } : {}),
  };
  const auth = (t: RedisAuth) => ({
    ...(t.username !== undefined ? { username: t.username } : {}),
    ...(t.password !== undefined ? { password: t.password } : {}),
  });
  switch (target.kind) {
    case 'standalone':
      return {
        kind: 'redis',
        url: target.url,
        options: { ...common, enableOfflineQueue: !command, retryStrategy: retry },
      };
    case 'sentinel':
      return {
        kind: 'redis',
        url: undefined,
        options: {
          ...common,
          enableOfflineQueue: !command,
          retryStrategy: retry,
          sentinels: target.sentinels.map((s) => ({ host: s.host, port: s.port })),
          name: target.masterName,
          db: target.db,
          sentinelRetryStrategy: retry,
          ...auth(target),
          ...(target.sentinelUsername !== undefined
            ? { sentinelUsername: target.sentinelUsername }
            : {}),
          ...(target.sentinelPassword !== undefined
            ? { sentinelPassword: target.sentinelPassword }
            : {}),
          ...(target.tls ? { tls: {}, enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
        },
      };
    case 'cluster':
      return {
        kind: 'cluster',
        nodes: target.nodes.map((n) => ({ host: n.host, port: n.port })),
        options: {
          enableOfflineQueue: !command,
          clusterRetryStrategy: retry,
          slotsRefreshTimeout: Math.max(
            1000,
            purpose.kind === 'command' ? purpose.commandTimeoutMs : 1000,
          ),
          redisOptions: { ...common, ...auth(target), ...(target.tls ? { tls: {} } : {}) },
        },
      };
  }
}

function connect(
  url: string,
  options: RedisConnectionOptions,
  purpose: RedisConnectionPurpose,
): RedisClient {
  const plan = planRedisConnection(url, options, purpose);
  let client: RedisClient;
  if (plan.kind === 'cluster') client = new Cluster([...plan.nodes], plan.options);
  else if (plan.url !== undefined) client = new Redis(plan.url, plan.options);
  else client = new Redis(plan.options);
  attachConnectionLog(client, options.role, parseRedisUrl(url), options.logger);
  return client;
}

/**
 * A command client for the request path and ingest: commands fail at once while disconnected
 * (no offline queue), time out after `commandTimeoutMs`, and are retried at most once across a
 * reconnect, so a Redis outage costs a request a bounded delay, never a hang. Connects at once
 * and reconnects forever; throws `RedisUrlError` only for an unusable URL.
 */
export function createRedisClient(url: string, options: RedisClientOptions): RedisClient {
  return connect(url, options, { kind: 'command', commandTimeoutMs: options.commandTimeoutMs });
}

/**
 * A connection for pub/sub only (a subscribed connection can run no other command). Its
 * SUBSCRIBE calls wait for a connection and ioredis resubscribes after every reconnect, so a
 * subscription made during an outage takes effect when Redis returns.
 */
export function createRedisSubscriber(url: string, options: RedisConnectionOptions): RedisClient {
  return connect(url, options, { kind: 'subscriber' });
}

/** Whether the client can run commands now (the request path checks before relying on it). */
export function isRedisReady(client: RedisClient): boolean {
  return client.status === 'ready';
}

/**
 * Resolves when the client is ready, rejects after `timeoutMs`. Start-up code uses it so its
 * first commands are not refused by the disabled offline queue merely because the TCP
 * handshake has not finished yet.
 */
export function waitForRedisReady(client: RedisClient, timeoutMs: number): Promise<void> {
  if (isRedisReady(client)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(new Error(`redis not ready within ${timeoutMs} ms (status ${client.status})`));
    }, timeoutMs);
    timer.unref();
    client.once('ready', onReady);
  });
}

/** Closes a client: a polite QUIT when connected (bounded by `timeoutMs`), else a disconnect. */
export async function closeRedisClient(client: RedisClient, timeoutMs = 1000): Promise<void> {
  if (client.status === 'end') return;
  if (isRedisReady(client)) {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.quit(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('quit timed out')), timeoutMs);
        }),
      ]);
      return;
    } catch {
      // fall through to a hard disconnect
    } finally {
      clearTimeout(timer);
    }
  }
  client.disconnect();
}
