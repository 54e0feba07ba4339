/**
 * The price of per-key usage counting (docs/usage.md): hot 16 KiB ranges through nginx and two
 * replicas with usage on (the shipped default) and with `RADAR_USAGE=0`, counting every
 * command Redis processed in the measured window (`INFO stats`, the inner calls of Lua scripts
 * included, as the limiter's figure is counted) per response, and the usage flushes the
 * replicas made meanwhile; plus the hot-range row of a replica with usage off, beside the
 * hot-range row of the same run (usage on).
 */
import type { Replica } from './service';
import { redisCommandsProcessed } from './redis-commands';
import { log, type Endpoint } from './runner';
import type { ScenarioContext } from './scenarios';
import { startUsageOffEdge, usageFlushes as flushes } from './usage-edge';
import { hotWindows } from './windows';

/** The replicas' flush period: the production default of `RADAR_USAGE_FLUSH_S`. */
export const USAGE_FLUSH_S = 5;

export async function usageScenario(ctx: ScenarioContext): Promise<void> {
  const { opts, runner, topo, frames } = ctx;
  const sequences = [hotWindows(frames[0]!, 64)];
  // At least three flush intervals: a quick 2 s window would hold one flush per replica or none.
  const durationS = Math.max(opts.durationS, 3 * USAGE_FLUSH_S);
  const load = { sequences, expect: [206], connections: opts.connections, durationS };

  const measure = async (endpoint: Endpoint, replicas: readonly Replica[]) => {
    const flushesBefore = await flushes(replicas);
    const before = await redisCommandsProcessed(topo.redis.url);
    const run = await runner.measure('usage', endpoint, load);
    // The INFO call of `before` is counted in `after`.
    const commands = (await redisCommandsProcessed(topo.redis.url)) - before - 1;
    const usageFlushes = (await flushes(replicas)) - flushesBefore;
    const perRequest = commands / Math.max(1, run.result.responses);
    Object.assign(run, { redisCommandsPerRequest: perRequest, usageFlushes });
    log(
      `${run.id}: ${commands} Redis commands for ${run.result.responses} responses (${perRequest.toFixed(5)} per request), ${usageFlushes} usage flushes`,
    );
  };

  await measure({ ...topo.endpoints.edge, against: 'nginx + 2 replicas, usage on' }, [
    topo.api1,
    topo.api2,
  ]);

  const off = await startUsageOffEdge(ctx, 'off');
  await measure({ ...off.endpoint, against: 'nginx + 2 replicas, RADAR_USAGE=0' }, off.replicas);
  // The hot-range row of a replica without usage, beside the hot-range rows of this run.
  await runner.measure(
    'hot-range',
    {
      against: 'replica (direct), RADAR_USAGE=0',
      kind: 'service',
      url: off.replicas[0]!.url,
      shown: ['api-off-1', 'redis'],
    },
    { sequences, expect: [206], connections: opts.connections },
  );
  await off.stop();
}
