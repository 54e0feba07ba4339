/**
 * A real Redis for one test file and the connections its tests open: the server starts before
 * all tests, every client made through the fixture is ready before it is handed out and closed
 * after all tests, and the server stops last (resumed first, should a test have frozen it).
 * What four and more Redis test files wrote out by hand.
 */
import {
  closeRedisClient,
  createRedisClient,
  createRedisSubscriber,
  waitForRedisReady,
  type RedisClient,
} from '../../src/adapters/redis/client';
import { createSilentLogger } from '../../src/logger';
import { startRedis, type RedisServer } from './redis-server';

export interface RedisFixture {
  /** The running server (after `beforeAll`). */
  server(): RedisServer;
  /** A command client (`commandTimeoutMs` default 500, production's), ready for commands. */
  client(role: string, commandTimeoutMs?: number): Promise<RedisClient>;
  /** A pub/sub connection, as a replica's subscriber. */
  subscriber(role: string): RedisClient;
}

export interface RedisFixtureOptions {
  /** FLUSHALL after each test (through an admin client), so tests share no keys. */
  readonly flushAfterEach?: boolean;
  /** Closed before the clients, after all tests (limiters hand points back, stores stop). */
  readonly beforeClose?: () => Promise<unknown>;
}

/** Registers the file's Redis with jest's `beforeAll`/`afterEach`/`afterAll`. */
export function useRedis(options: RedisFixtureOptions = {}): RedisFixture {
  const logger = createSilentLogger();
  let redis: RedisServer | undefined;
  let admin: RedisClient | undefined;
  const clients: RedisClient[] = [];
  const server = () => {
    if (redis === undefined) throw new Error('Redis is not started yet (use it inside tests)');
    return redis;
  };
  const fixture: RedisFixture = {
    server,
    async client(role, commandTimeoutMs = 500) {
      const client = createRedisClient(server().url, { role, logger, commandTimeoutMs });
      clients.push(client);
      await waitForRedisReady(client, 5000);
      return client;
    },
    subscriber(role) {
      const subscriber = createRedisSubscriber(server().url, { role, logger });
      clients.push(subscriber);
      return subscriber;
    },
  };

  beforeAll(async () => {
    redis = await startRedis();
    if (options.flushAfterEach) admin = await fixture.client('test-admin', 5000);
  });
  if (options.flushAfterEach)
    afterEach(async () => {
      await waitForRedisReady(admin!, 5000);
      await admin!.flushall();
    });
  afterAll(async () => {
    await redis?.resume();
    await options.beforeClose?.();
    await Promise.all(clients.map((c) => closeRedisClient(c)));
    await redis?.stop();
  });
  return fixture;
}
