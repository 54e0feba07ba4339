/**
 * A real Redis for one test file and the connections its tests open: the server starts before
 * all tests, every client made through the fixture is closed after all tests, and the server
 * stops last (resumed first, should a test have frozen it). What the Redis test files used to
 * write out by hand.
 */
import {
  closeRedisClient,
  createRedisClient,
  createRedisSubscriber,
  waitForRedisReady,
  type RedisClient,
} from '../../src/adapters/redis/client';
import { createSilentLogger, type Logger } from '../../src/logger';
import { startRedis, type RedisServer } from './redis-server';

/** How one connection behaves; what is left out keeps the default named on each field. */
export interface RedisConnectionSettings {
  /** Longest wait for a reply (command clients only). Default 500, production's. */
  readonly commandTimeoutMs?: number;
  /** Upper bound of the reconnect backoff (short makes restart tests quick). Client default. */
  readonly maxReconnectDelayMs?: number;
  /** Where the connection logs (a test may read its lines). Default silent. */
  readonly logger?: Logger;
}

/** Connections to one Redis URL, each remembered so that `closeAll` ends every one. */
export interface RedisConnections {
  /** A command client as a replica opens it: returned at once, not waited on. */
  connect(role: string, settings?: RedisConnectionSettings): RedisClient;
  /** A command client (`commandTimeoutMs` default 500), ready for commands. */
  client(role: string, commandTimeoutMs?: number): Promise<RedisClient>;
  /** A pub/sub connection, as a replica's subscriber. */
  subscriber(role: string, settings?: RedisConnectionSettings): RedisClient;
  /** Closes every connection opened so far. */
  closeAll(): Promise<void>;
}

/** Opens silent-logging connections to `url()` (read at each call, so it may start later). */
export function trackRedisConnections(url: () => string): RedisConnections {
  const silent = createSilentLogger();
  const clients: RedisClient[] = [];
  const connect = (role: string, settings: RedisConnectionSettings = {}) => {
    const { commandTimeoutMs = 500, maxReconnectDelayMs, logger = silent } = settings;
    const client = createRedisClient(url(), {
      role,
      logger,
      commandTimeoutMs,
      maxReconnectDelayMs,
    });
    clients.push(client);
    return client;
  };
  return {
    connect,
    async client(role, commandTimeoutMs = 500) {
      const client = connect(role, { commandTimeoutMs });
      await waitForRedisReady(client, 5000);
      return client;
    },
    subscriber(role, settings = {}) {
      const { maxReconnectDelayMs, logger = silent } = settings;
      const subscriber = createRedisSubscriber(url(), { role, logger, maxReconnectDelayMs });
      clients.push(subscriber);
      return subscriber;
    },
    async closeAll() {
      await Promise.all(clients.splice(0).map((c) => closeRedisClient(c)));
    },
  };
}

export interface RedisFixture extends Omit<RedisConnections, 'closeAll'> {
  /** The running server (after `beforeAll`). */
  server(): RedisServer;
  /** The client that flushes after each test (only with `flushAfterEach`), ready in tests. */
  admin(): RedisClient;
}

export interface RedisFixtureOptions {
  /** FLUSHALL after each test (through the admin client), so tests share no keys. */
  readonly flushAfterEach?: boolean;
  /** The admin client's settings; default a 5000 ms command timeout. */
  readonly admin?: RedisConnectionSettings;
  /** Runs after each test before the flush (stops what the test started on Redis). */
  readonly afterEachTest?: () => Promise<unknown>;
  /** Closed before the clients, after all tests (limiters hand points back, stores stop). */
  readonly beforeClose?: () => Promise<unknown>;
}

/** Registers the file's Redis with jest's `beforeAll`/`afterEach`/`afterAll`. */
export function useRedis(options: RedisFixtureOptions = {}): RedisFixture {
  let redis: RedisServer | undefined;
  let admin: RedisClient | undefined;
  const server = () => {
    if (redis === undefined) throw new Error('Redis is not started yet (use it inside tests)');
    return redis;
  };
  const connections = trackRedisConnections(() => server().url);
  const { closeAll, ...open } = connections;

  beforeAll(async () => {
    redis = await startRedis();
    if (options.flushAfterEach) {
      admin = connections.connect('test-admin', { commandTimeoutMs: 5000, ...options.admin });
      await waitForRedisReady(admin, 5000);
    }
  });
  if (options.afterEachTest !== undefined || options.flushAfterEach)
    afterEach(async () => {
      await options.afterEachTest?.();
      if (admin === undefined) return;
      await waitForRedisReady(admin, 5000);
      await admin.flushall();
    });
  afterAll(async () => {
    await redis?.resume();
    await options.beforeClose?.();
    await closeAll();
    await redis?.stop();
  });
  return {
    ...open,
    server,
    admin() {
      if (admin === undefined)
        throw new Error('no admin client: useRedis({ flushAfterEach: true })');
      return admin;
    },
  };
}
