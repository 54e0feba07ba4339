import net from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { Cluster } from 'ioredis';
/**
 * Redis clients against real sockets: a port nobody listens on, so the disconnected paths
 * (fail fast, reconnect forever, bounded error logging) run for real without a server.
 */
import { createRedisClient, type RedisClient } from '../../src/adapters/redis/client';
import { createSilentLogger } from '../../src/logger';
import { reportFigure } from '../harness/wait';

const logger = createSilentLogger();
const opened: RedisClient[] = [];
/** Disconnects and waits for the socket to close, so no connect attempt outlives the test. */
afterEach(async () => {
  const ending = opened.splice(0).map(
    (c) =>
      new Promise((resolve) => {
        // Between reconnect attempts there is no socket: disconnect() just cancels the timer.
        const idle = c.status === 'end' || c.status === 'reconnecting';
        if (!idle) c.once('end', resolve);
        c.disconnect();
        if (idle) resolve(undefined);
      }),
  );
  await Promise.all(ending);
});

function open(client: RedisClient): RedisClient {
  opened.push(client);
  return client;
}

/** A loopback port with nothing listening (connections are refused at once). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

describe('createRedisClient', () => {
  it('configures request-path clients to fail fast and reconnect forever', async () => {
    const port = await closedPort();
    const client = open(
      createRedisClient(`redis://127.0.0.1:${port}`, {
        role: 'api',
        logger,
        commandTimeoutMs: 300,
      }),
    );
    expect(client).not.toBeInstanceOf(Cluster);
    const options = (client as unknown as { options: Record<string, unknown> }).options;
    expect(options).toMatchObject({
      enableOfflineQueue: false,
      commandTimeout: 300,
      maxRetriesPerRequest: 1,
      connectionName: 'radar-api',
    });
    const retry = options['retryStrategy'] as (attempt: number) => number;
    for (const attempt of [1, 5, 50, 5000]) {
      expect(retry(attempt)).toBeGreaterThan(0);
      expect(retry(attempt)).toBeLessThanOrEqual(1000);
    }
    // Disconnected: a command is refused by the client (no offline queue), not held until the
    // 300 ms command timeout; the wait is reported, not asserted.
    const started = Date.now();
    await expect(client.get('x')).rejects.toThrow(/enableOfflineQueue/);
    reportFigure('redis command refused while disconnected', Date.now() - started);
  });

  it('builds an ioredis Cluster for cluster URLs', () => {
    const client = open(
      createRedisClient('redis+cluster://127.0.0.1:1', {
        role: 'api',
        logger,
        commandTimeoutMs: 500,
      }),
    );
    expect(client).toBeInstanceOf(Cluster);
  });

  it('logs connection errors at a bounded rate and never throws them', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const port = await closedPort();
    const client = open(
      createRedisClient(`redis://127.0.0.1:${port}`, {
        role: 'api',
        logger: pino({ level: 'info' }, sink),
        commandTimeoutMs: 300,
        maxReconnectDelayMs: 20,
      }),
    );
    let errors = 0;
    client.on('error', () => (errors += 1));
    await new Promise((r) => setTimeout(r, 400));
    expect(errors).toBeGreaterThan(3);
    const warnings = lines.filter((l) => l['msg'] === 'redis connection error; retrying');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ role: 'api', redis: `standalone 127.0.0.1:${port}` });
  });
});
