import * as keys from '../../../../src/adapters/redis/keys';

/** The part of a key Redis Cluster hashes: the first {…} with content, else the whole key. */
function hashedPart(key: string): string {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

describe('Redis key names', () => {
  it('puts every key used together by scripts into one hash slot', () => {
    const together = [
      keys.TIMESTAMPS_KEY,
      keys.archiveKey('202405011200'),
      keys.CATALOG_EVENTS_CHANNEL,
      keys.CATALOG_VERSION_KEY,
      keys.INGEST_LEADER_KEY,
      keys.KEY_REGISTRY_KEY,
      keys.KEY_EVENTS_CHANNEL,
      // The usage batch script touches these together.
      keys.usageHourKey('2026050113'),
      keys.usageRankKey('2026050113'),
      keys.usageAppliedKey('host:1:abcd'),
    ];
    expect(new Set(together.map(hashedPart))).toEqual(new Set(['radar']));
    expect(new Set(together).size).toBe(together.length);
  });

  it('spreads rate-limit counters over the cluster instead of one slot', () => {
    const counter = keys.rateLimitKey('acme');
    expect(counter).toBe('radar:rl:acme');
    expect(hashedPart(counter)).toBe(counter);
  });

  it('derives metadata keys from the prefix the prune script uses', () => {
    expect(keys.archiveKey('202405011200')).toBe(`${keys.ARCHIVE_KEY_PREFIX}202405011200`);
  });
});
