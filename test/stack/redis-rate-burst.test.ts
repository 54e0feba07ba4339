/**
 * Concurrent bursts against two replicas (built by `buildReplica` on a real Redis) while Redis
 * answers, answers late, is slower than the command timeout, frozen (throughout, or resumed
 * mid-window) or stopped. A key with
 * limit 5 and a 10 s window gets bursts of 40 concurrent requests on each replica every
 * 700 ms for 8 s (all inside one window): exactly the limit is admitted while Redis answers
 * (also when it pauses for less than the command timeout), and between the limit (the service
 * fails open) and replicas x limit while the insurance limiter decides.
 */
import http from 'node:http';
import Redis from 'ioredis';
import { request } from '../harness/http-client';
import { startProductionStack, stackAuth, type ProductionStack } from '../harness/production-stack';
import { reportFigure } from '../harness/wait';

jest.setTimeout(120_000);

const LIMIT = 5;
const WINDOW_S = 10;
/** The replicas' Redis command timeout: freezes are set well under or well over it. */
const TIMEOUT_MS = 1000;
const BURST = 40;
const EVERY_MS = 700;
const DURATION_MS = 8000;
/** A request that costs one point and touches no archive: 404 when allowed, 429 when not. */
const PATH = '/tiles/200001010000.pmtiles';

const SCENARIOS = ['answering', 'paused', 'slow', 'frozen', 'resumed', 'stopped'] as const;
const apiKey = (scenario: string) => `rk_burst-${scenario}-0123456789`;

let stack: ProductionStack;
const agents: http.Agent[] = [];

beforeAll(async () => {
  stack = await startProductionStack({
    replicas: 2,
    env: { RADAR_RATE_WINDOW_S: String(WINDOW_S), RADAR_REDIS_TIMEOUT_MS: String(TIMEOUT_MS) },
  });
  // One registry update: once its canary key answers on a replica, every key of it does.
  await stack.addKeys([
    ...SCENARIOS.map((s) => ({ id: `burst-${s}`, apiKey: apiKey(s), limit: LIMIT })),
    { id: 'burst-canary', apiKey: apiKey('canary') },
  ]);
  for (const url of stack.baseUrls) {
    const deadline = Date.now() + 15_000;
    const canary = { headers: stackAuth(apiKey('canary')) };
    while ((await request(url, '/status.json', canary)).status === 401) {
      if (Date.now() > deadline) throw new Error(`keys not loaded on ${url}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
});

afterAll(async () => {
  agents.forEach((a) => a.destroy());
  await stack?.stop();
});

interface BurstFigures {
  admitted: number;
  refused: number;
  other: number[];
}

/**
 * Bursts of `BURST` concurrent requests on every replica every `EVERY_MS` for `DURATION_MS`,
 * one key. `during(round)` runs before each round (to pause Redis, for instance).
 */
async function bursts(scenario: string, during?: (round: number) => Promise<void>) {
  const figures: BurstFigures = { admitted: 0, refused: 0, other: [] };
  const started = Date.now();
  const perReplica = stack.baseUrls.map(() => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: BURST });
    agents.push(agent);
    return agent;
  });
  for (let round = 0; Date.now() - started < DURATION_MS; round += 1) {
    const roundStart = Date.now();
    const sent = during?.(round);
    await Promise.all(
      stack.baseUrls.flatMap((url, r) =>
        Array.from({ length: BURST }, async () => {
          const res = await request(url, PATH, {
            headers: stackAuth(apiKey(scenario)),
            agent: perReplica[r]!,
            timeoutMs: 15_000,
          });
          if (res.status === 404) figures.admitted += 1;
          else if (res.status === 429) figures.refused += 1;
          else figures.other.push(res.status);
        }),
      ),
    );
    await sent;
    const wait = roundStart + EVERY_MS - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  reportFigure(`admitted in one window, Redis ${scenario}`, figures.admitted, 'requests');
  return figures;
}

const freeze = (ms: number) => async () => {
  await stack.redis.pause();
  try {
    await new Promise((r) => setTimeout(r, ms));
  } finally {
    await stack.redis.resume();
  }
};

it('Redis answering: exactly the limit per window', async () => {
  const f = await bursts('answering');
  expect(f.other).toEqual([]);
  expect(f.admitted).toBe(LIMIT);
});

it('Redis frozen for less than the command timeout before each burst: exactly the limit', async () => {
  const f = await bursts('paused', freeze(TIMEOUT_MS / 5));
  expect(f.other).toEqual([]);
  expect(f.admitted).toBe(LIMIT);
});

it('Redis slower than the command timeout (busy scripts): at most replicas x limit', async () => {
  const admin = new Redis(stack.redis.url, { maxRetriesPerRequest: 0 });
  let busy = true;
  // Back-to-back scripts that each hold Redis for twice the timeout; other clients' commands
  // run only between them.
  const hog = (async () => {
    while (busy) {
      await admin.eval(
        `local t = redis.call('TIME')
         local s = t[1] * 1000 + t[2] / 1000
         while true do
           local u = redis.call('TIME')
           if u[1] * 1000 + u[2] / 1000 - s > tonumber(ARGV[1]) then return 1 end
         end`,
        0,
        String(TIMEOUT_MS * 2),
      );
    }
  })();
  let f: BurstFigures;
  try {
    f = await bursts('slow');
  } finally {
    busy = false;
    await hog;
    await admin.quit();
  }
  expect(f.other).toEqual([]);
  expect(f.admitted).toBeGreaterThanOrEqual(LIMIT);
  expect(f.admitted).toBeLessThanOrEqual(stack.replicas.length * LIMIT);
});

it('Redis frozen (SIGSTOP) throughout: at most replicas x limit', async () => {
  let f: BurstFigures;
  await stack.redis.pause();
  try {
    f = await bursts('frozen');
  } finally {
    await stack.redis.resume();
  }
  expect(f.other).toEqual([]);
  expect(f.admitted).toBeGreaterThanOrEqual(LIMIT);
  expect(f.admitted).toBeLessThanOrEqual(stack.replicas.length * LIMIT);
});

it('Redis frozen (SIGSTOP), then resumed mid-window: at most replicas x limit in the window', async () => {
  let f: BurstFigures;
  let resume: NodeJS.Timeout | undefined;
  await stack.redis.pause();
  try {
    // Half the bursts on a frozen Redis, the rest after SIGCONT: what the replicas admitted in
    // memory counts in Redis when it returns, and late lease calls take nothing.
    resume = setTimeout(() => void stack.redis.resume(), DURATION_MS / 2);
    f = await bursts('resumed');
  } finally {
    clearTimeout(resume);
    await stack.redis.resume();
  }
  expect(f.other).toEqual([]);
  expect(f.admitted).toBeGreaterThanOrEqual(LIMIT);
  expect(f.admitted).toBeLessThanOrEqual(stack.replicas.length * LIMIT);
});

it('Redis stopped (connection refused): at most replicas x limit', async () => {
  let f: BurstFigures;
  await stack.redis.kill();
  try {
    f = await bursts('stopped');
  } finally {
    await stack.redis.restart();
  }
  expect(f.other).toEqual([]);
  expect(f.admitted).toBeGreaterThanOrEqual(LIMIT);
  expect(f.admitted).toBeLessThanOrEqual(stack.replicas.length * LIMIT);
});
