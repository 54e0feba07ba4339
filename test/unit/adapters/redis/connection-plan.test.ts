/**
 * Connection planning: how URLs and roles turn into ioredis options. Pure; the clients these
 * options build are exercised against sockets in test/stack/redis-client.test.ts.
 */
import { planRedisConnection } from '../../../../src/adapters/redis/client';
import { createSilentLogger } from '../../../../src/logger';

const logger = createSilentLogger();

describe('planRedisConnection', () => {
  it('gives request-path clients fail-fast options and a bounded reconnect delay', () => {
    const plan = planRedisConnection(
      'redis://127.0.0.1:6379',
      { role: 'api', logger },
      { kind: 'command', commandTimeoutMs: 300 },
    );
    expect(plan).toMatchObject({
      kind: 'redis',
      options: {
        enableOfflineQueue: false,
        commandTimeout: 300,
        maxRetriesPerRequest: 1,
        connectionName: 'radar-api',
      },
    });
  });

  it('maps Sentinel URLs onto ioredis sentinel options', () => {
    const plan = planRedisConnection(
      'redis+sentinel://:pw@10.0.0.1:26379,10.0.0.2/mymaster/1?sentinelPassword=sp',
      { role: 'api', logger },
      { kind: 'command', commandTimeoutMs: 500 },
    );
    expect(plan).toMatchObject({
      kind: 'redis',
      url: undefined,
      options: {
        sentinels: [
          { host: '10.0.0.1', port: 26379 },
          { host: '10.0.0.2', port: 26379 },
        ],
        name: 'mymaster',
        db: 1,
        password: 'pw',
        sentinelPassword: 'sp',
        enableOfflineQueue: false,
        commandTimeout: 500,
        maxRetriesPerRequest: 1,
      },
    });
    expect(plan.options).not.toHaveProperty('tls');
  });

  it('maps Cluster URLs onto ioredis Cluster options', () => {
    const plan = planRedisConnection(
      'rediss+cluster://:pw@10.0.0.1:7000,10.0.0.2:7001',
      { role: 'ingest', logger },
      { kind: 'command', commandTimeoutMs: 500 },
    );
    expect(plan).toMatchObject({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ],
      options: {
        enableOfflineQueue: false,
        redisOptions: {
          password: 'pw',
          tls: {},
          commandTimeout: 500,
          maxRetriesPerRequest: 1,
          connectionName: 'radar-ingest',
        },
      },
    });
  });

  it('subscribers queue while disconnected (SUBSCRIBE waits for the connection)', () => {
    const plan = planRedisConnection(
      'redis://127.0.0.1:1',
      { role: 'api', logger },
      { kind: 'subscriber' },
    );
    expect(plan.options).toMatchObject({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    expect(plan.options).not.toHaveProperty('commandTimeout');
  });
});
