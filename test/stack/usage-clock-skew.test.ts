/**
 * A replica whose clock runs hours ahead counts usage in the hour Redis is in, not a future
 * hour no report reads: the usage clock trusts the local clock only within a bound of Redis
 * `TIME` (on a real Redis), logs the skew once, and trusts the local clock again once it agrees.
 */
import { hourOf } from '../../src/domain/usage';
import { createTrustedClock } from '../../src/serving/trusted-clock';
import { createUsageMeter } from '../../src/serving/usage-meter';
import { MAX_USAGE_CLOCK_SKEW_MS } from '../../src/wiring/usage';
import { useRedis } from '../harness/redis-fixture';
import { loggedLines } from '../harness/log-lines';

const redis = useRedis({ flushAfterEach: true });
const HOUR_MS = 3_600_000;

it('a clock hours ahead counts usage in the hour Redis is in, and says so once', async () => {
  let aheadMs = 5 * HOUR_MS;
  const { lines, logger } = loggedLines();
  const client = redis.admin();
  const clock = createTrustedClock({
    storeTime: async () => {
      const [seconds, micros] = await client.time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    },
    maxSkewMs: MAX_USAGE_CLOCK_SKEW_MS,
    refreshMs: 60_000,
    logger,
    localNow: () => Date.now() + aheadMs,
  });
  await clock.start();
  try {
    expect(Math.abs(clock.now() - Date.now())).toBeLessThan(MAX_USAGE_CLOCK_SKEW_MS);
    const meter = createUsageMeter({ maxEntries: 10, now: clock.now });
    meter.count('acme', 'tile', 200, 100);
    const counted = meter.take();
    expect(counted.map((e) => e.hour)).toEqual([hourOf(Date.now())]);
    const warnings = lines.filter(
      (l) => l['msg'] === 'clock differs from the store; counting by store time',
    );
    expect(warnings).toHaveLength(1);
    expect(Number(warnings[0]!['skewMs'])).toBeLessThan(-4 * HOUR_MS);

    // Within the bound the local clock is used as it is.
    aheadMs = 10_000;
    await clock.start(); // measures again
    expect(clock.now() - Date.now()).toBeGreaterThanOrEqual(9_000);
    expect(lines.some((l) => l['msg'] === 'clock agrees with the store again')).toBe(true);
  } finally {
    clock.stop();
  }
});
