/**
 * Redis's cost per request: every command it processed in a measured window (`INFO stats`,
 * the inner calls of Lua scripts included), over the responses of that window.
 */
import { closeRedisClient, waitForRedisReady } from '../../src/adapters/redis/client';
import type { PlannedRequest } from './load-job';
import { log, type Endpoint } from './runner';
import type { ScenarioContext } from './scenarios';
import { DEFAULT_LIMIT, DEFAULT_LIMIT_HEADERS, redisClient } from './service';
import { startUsageOffEdge, usageFlushes } from './usage-edge';

/** Commands Redis has processed so far (`INFO stats`), the limiter's inner script calls included. */
export async function redisCommandsProcessed(url: string): Promise<number> {
  const client = redisClient(url);
  try {
    await waitForRedisReady(client, 5000);
    const info = await client.info('stats');
    return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? Number.NaN);
  } finally {
    await closeRedisClient(client);
  }
}

/**
 * Requests of the default-limit run: 75 % of the key's 1,200 points per 60 s, so the measured
 * window never runs out of quota (every answer is allowed) and fits one rate window.
 */
export const DEFAULT_LIMIT_REQUESTS = Math.floor(DEFAULT_LIMIT * 0.75);

/**
 * Map clients through nginx and two replicas, with Redis's command count over the measured
 * window: once with the bench key (limit 10^9, warmed up, a fixed duration, usage counting on
 * as shipped) and once with a key at the default limit (1,200 per 60 s) that nothing touched
 * before: no warm-up (it would spend the quota), exactly DEFAULT_LIMIT_REQUESTS requests from
 * the key's first one, so the figure includes the leases' ramp-up from a fresh key and is
 * commands per *allowed* request, as the target says. That run prices the limiter, so its
 * replicas run with `RADAR_USAGE=0`: its 900 requests take about a second, and whether a usage
 * flush (a few commands per replica every 5 s, priced by the `usage` rows) falls into that
 * second would decide the figure more than the leases do.
 */
export async function redisCommandsScenario(
  ctx: ScenarioContext,
  sequences: PlannedRequest[][],
): Promise<void> {
  const { topo, runner } = ctx;
  const measure = async (
    endpoint: Endpoint,
    replicas: Parameters<typeof usageFlushes>[0],
    amount?: number,
  ) => {
    const flushesBefore = await usageFlushes(replicas);
    const before = await redisCommandsProcessed(topo.redis.url);
    const run = await runner.measure('redis commands', endpoint, {
      sequences,
      // A 429 would mean the leases stranded points before the quota ran out: an error here.
      expect: [206],
      connections: sequences.length,
      ...(amount !== undefined ? { amount, skipWarmup: true } : {}),
    });
    // The INFO call of `before` is counted in `after`.
    const commands = (await redisCommandsProcessed(topo.redis.url)) - before - 1;
    const flushes = (await usageFlushes(replicas)) - flushesBefore;
    const counts = run.result.statusCounts;
    const allowed = run.result.responses - (counts['429'] ?? 0);
    Object.assign(run, {
      redisCommandsPerAllowed: commands / Math.max(1, allowed),
      usageFlushes: flushes,
    });
    log(
      `${run.id}: ${commands} Redis commands for ${allowed} allowed responses (${(commands / Math.max(1, allowed)).toFixed(4)} per allowed), ${counts['429'] ?? 0} refused, ${flushes} usage flushes`,
    );
  };

  await measure({ ...topo.endpoints.edge, against: 'nginx + 2 replicas, key limit 10^9' }, [
    topo.api1,
    topo.api2,
  ]);
  const off = await startUsageOffEdge(ctx, 'lim');
  await measure(
    {
      ...off.endpoint,
      against: `nginx + 2 replicas, RADAR_USAGE=0, fresh key at the default limit, ${DEFAULT_LIMIT_REQUESTS} requests`,
      headers: DEFAULT_LIMIT_HEADERS,
    },
    off.replicas,
    DEFAULT_LIMIT_REQUESTS,
  );
  await off.stop();
}
