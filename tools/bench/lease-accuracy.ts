/**
 * Accuracy of the leased shared quota: 2 and 3 limiter replicas (each its own Redis
 * connection, as separate processes have) share one key, in two demand patterns:
 * - `rounds`: 1.5 x the limit spread evenly over them in concurrent rounds;
 * - `burst N`: exactly the limit, round-robin over the replicas (as nginx sends it) by N
 *   workers each waiting for its answer, so every point left stranded in a block is a refused
 *   request.
 * Reports allowed against the limit (over-admission must be 0, under-admission within max(1 %
 * of the limit, one point per replica)) and Redis commands per allowed request (`INFO stats`,
 * the lease script's inner calls included).
 */
import {
  closeRedisClient,
  createRedisClient,
  waitForRedisReady,
} from '../../src/adapters/redis/client';
import {
  createRedisRateLimiter,
  type RedisRateLimiter,
} from '../../src/adapters/redis/rate-limiter';
import { createLogger } from '../../src/logger';

export interface LeaseAccuracy {
  /** `rounds` (1.5 x the limit in rounds) or `burst N` (exactly the limit, N in flight). */
  readonly pattern: string;
  readonly replicas: number;
  readonly limit: number;
  readonly demand: number;
  readonly allowed: number;
  /** Allowed per replica. */
  readonly perReplica: number[];
  readonly over: number;
  readonly under: number;
  /** max(1 % of the limit, replicas): the documented bound of `under`. */
  readonly underBound: number;
  readonly redisCommandsPerAllowed: number;
}

const quiet = createLogger('silent');

async function commandsProcessed(client: ReturnType<typeof createRedisClient>): Promise<number> {
  const info = await client.info('stats');
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

const PATTERNS = ['rounds', 'burst 24', 'burst 64'];
const CASES = [2, 3].flatMap((n) => [10, 100, 1200, 100_000].map((limit) => [n, limit] as const));

/** 1.5 x the limit spread evenly in concurrent rounds; allowed per replica. */
async function inRounds(
  fleet: RedisRateLimiter[],
  keyId: string,
  limit: number,
  demand: number,
): Promise<number[]> {
  const perRound = Math.max(1, Math.min(16, Math.floor(limit / (10 * fleet.length))));
  const perReplica = fleet.map(() => 0);
  let made = 0;
  while (made < demand) {
    const round: Array<Promise<void>> = [];
    for (let r = 0; r < fleet.length; r += 1) {
      for (let i = 0; i < perRound && made < demand; i += 1, made += 1) {
        round.push(
          Promise.resolve(fleet[r]!.consume(keyId, limit)).then((d) => {
            if (d.allowed) perReplica[r]! += 1;
          }),
        );
      }
    }
    await Promise.all(round);
  }
  return perReplica;
}

/** Exactly `limit` requests round-robin, `inFlight` at a time; allowed per replica. */
async function inBurst(
  fleet: RedisRateLimiter[],
  keyId: string,
  limit: number,
  inFlight: number,
): Promise<number[]> {
  const perReplica = fleet.map(() => 0);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(inFlight, limit) }, async () => {
      while (next < limit) {
        const r = next % fleet.length;
        next += 1;
        if ((await fleet[r]!.consume(keyId, limit)).allowed) perReplica[r]! += 1;
      }
    }),
  );
  return perReplica;
}

export async function measureLeaseAccuracy(
  redisUrl: string,
  log: (line: string) => void,
): Promise<LeaseAccuracy[]> {
  const admin = createRedisClient(redisUrl, {
    role: 'bench',
    logger: quiet,
    commandTimeoutMs: 10_000,
  });
  const out: LeaseAccuracy[] = [];
  try {
    await waitForRedisReady(admin, 5000);
    for (const pattern of PATTERNS) {
      for (const [n, limit] of CASES) {
        const clients = Array.from({ length: n }, () =>
          createRedisClient(redisUrl, {
            role: 'bench-lease',
            logger: quiet,
            commandTimeoutMs: 2000,
          }),
        );
        await Promise.all(clients.map((c) => waitForRedisReady(c, 5000)));
        const fleet: RedisRateLimiter[] = clients.map((client) =>
          createRedisRateLimiter({ client, windowS: 60, logger: quiet, sweepMs: 0 }),
        );
        const keyId = `lease-accuracy-${n}-${limit}-${pattern}-${Date.now()}`;
        const demand = pattern === 'rounds' ? Math.ceil(limit * 1.5) : limit;
        const before = await commandsProcessed(admin);
        const perReplica =
          pattern === 'rounds'
            ? await inRounds(fleet, keyId, limit, demand)
            : await inBurst(fleet, keyId, limit, Number(pattern.split(' ')[1]));
        const commands = (await commandsProcessed(admin)) - before - 1;
        const allowed = perReplica.reduce((a, b) => a + b, 0);
        const row: LeaseAccuracy = {
          pattern,
          replicas: n,
          limit,
          demand,
          allowed,
          perReplica,
          over: Math.max(0, allowed - limit),
          under: Math.max(0, limit - allowed),
          underBound: Math.max(Math.floor(limit / 100), n),
          redisCommandsPerAllowed: Number((commands / Math.max(1, allowed)).toFixed(4)),
        };
        out.push(row);
        log(
          `lease ${pattern}: ${n} replicas, limit ${limit}: allowed ${allowed} (${perReplica.join('/')}), over ${row.over}, under ${row.under} (bound ${row.underBound}), ${row.redisCommandsPerAllowed} Redis commands per allowed`,
        );
        await Promise.all(fleet.map((l) => l.close()));
        await Promise.all(clients.map((c) => closeRedisClient(c)));
      }
    }
  } finally {
    await closeRedisClient(admin);
  }
  return out;
}
