/**
 * Replicas with per-key usage counting off (`RADAR_USAGE=0`) behind their own edge, and the
 * usage flushes replicas have made: what the bench needs to set usage's Redis traffic apart.
 */
import { httpGet } from './processes';
import type { Endpoint } from './runner';
import type { ScenarioContext } from './scenarios';
import type { Replica } from './service';

/** Usage flushes the replicas acknowledged so far (their `radar_usage_flushes_total{outcome="ok"}`). */
export async function usageFlushes(replicas: readonly Replica[]): Promise<number> {
  let sum = 0;
  for (const r of replicas) {
    const text = (await httpGet(`http://127.0.0.1:${r.adminPort}/metrics`)).body.toString();
    const m = /^radar_usage_flushes_total\{outcome="ok"\} (\S+)$/m.exec(text);
    sum += m ? Number(m[1]) : 0;
  }
  return sum;
}

export interface UsageOffEdge {
  readonly replicas: readonly Replica[];
  /** The edge over them; `against` names the row. */
  readonly endpoint: Omit<Endpoint, 'against'>;
  /** Stops the replicas (the edge stops with the topology). */
  stop(): Promise<void>;
}

/** Two replicas `${prefix}-1`/`-2` with `RADAR_USAGE=0` and an edge `nginx-${prefix}` over them. */
export async function startUsageOffEdge(
  ctx: ScenarioContext,
  prefix: string,
): Promise<UsageOffEdge> {
  const { topo, frames } = ctx;
  const names = [`api-${prefix}-1`, `api-${prefix}-2`];
  const replicas: Replica[] = [];
  for (const name of names) {
    replicas.push(await topo.replica(name, topo.redis.url, frames.length, { RADAR_USAGE: '0' }));
  }
  const edge = await topo.edgeOver(`nginx-${prefix}`, replicas);
  return {
    replicas,
    endpoint: { kind: 'service', url: edge.url, shown: [`nginx-${prefix}`, ...names, 'redis'] },
    async stop() {
      for (const [i, r] of replicas.entries()) await topo.stopReplica(names[i]!, r);
    },
  };
}
