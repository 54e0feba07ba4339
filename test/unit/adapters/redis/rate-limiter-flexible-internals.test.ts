/**
 * The parts of rate-limiter-flexible that `adapters/redis/leasing-limiter.ts` reaches behind the
 * library's typings, held to the pinned release (docs/dependencies.md): the version, the two store
 * hooks it wraps (`_upsert`, `_getRateLimiterRes`), the command the library defines for its Lua
 * script (`rlflxIncr`) and the argument and reply layout the lease script and its guard extend.
 * A release that changes any of these fails here, before the leases silently lose their guard.
 * The client below is a recorder of the library's calls, not a Redis: the real round trip is
 * tested against Redis in test/stack/redis-rate-lease.test.ts.
 */
import fs from 'node:fs';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { repoPath } from '../../deploy/deploy-files';

const PINNED = '11.4.0';

/** What the library asks of its client: `defineCommand` at construction, the command per call. */
function recordingClient(reply: unknown[]) {
  const defined: { name: string; numberOfKeys: number; lua: string }[] = [];
  const calls: unknown[][] = [];
  const client = {
    status: 'ready',
    defineCommand(name: string, def: { numberOfKeys: number; lua: string }) {
      defined.push({ name, ...def });
    },
    rlflxIncr(args: unknown[]) {
      calls.push(args);
      return Promise.resolve(reply);
    },
  };
  return { client, defined, calls };
}

it('package.json pins the exact release that is installed', () => {
  const pkg = JSON.parse(fs.readFileSync(repoPath('package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  expect(pkg.dependencies['rate-limiter-flexible']).toBe(PINNED);
  const installed = JSON.parse(
    fs.readFileSync(repoPath('node_modules/rate-limiter-flexible/package.json'), 'utf8'),
  ) as { version: string };
  expect(installed.version).toBe(PINNED);
});

it('the store hooks the leasing limiter wraps keep their names and parameters', () => {
  const proto = RateLimiterRedis.prototype as unknown as Record<string, unknown>;
  const signature = (name: string) => {
    const fn = proto[name];
    expect(typeof fn).toBe('function');
    return /\(([^)]*)\)/.exec(String(fn))?.[1];
  };
  expect(signature('_upsert')).toBe('rlKey, points, msDuration, forceExpire = false');
  expect(signature('_getRateLimiterRes')).toBe('rlKey, changedPoints, result');
});

it('defines its script as the rlflxIncr command and calls it with the four arguments the guard follows', async () => {
  const { client, defined, calls } = recordingClient([3, 60_000, 1_700_000_060, 3]);
  const lua = 'return {0, 0}';
  const limiter = new RateLimiterRedis({
    storeClient: client,
    points: 10,
    duration: 60,
    customIncrTtlLuaScript: lua,
  });
  expect(defined).toEqual([{ name: 'rlflxIncr', numberOfKeys: 1, lua }]);
  const res = await limiter.consume('key-a', 3);
  // KEYS[1], then ARGV[1..4]: points, the call's duration (s), the limit, the window (s).
  expect(calls).toEqual([['rlflx:key-a', '3', '60', '10', '60']]);
  // The reply's first two elements are the library's (consumed, ttl ms); the lease script's
  // third and fourth (window end, granted) ride along for the leasing limiter's onReply.
  expect(res.consumedPoints).toBe(3);
  expect(res.remainingPoints).toBe(7);
  expect(res.msBeforeNext).toBe(60_000);
});
