/**
 * A memo for hot per-request decisions keyed by a short string (auth per key and app, range
 * selections, Accept-Encoding values): a repeat costs one Map lookup. Bounded the simplest
 * way that cannot be gamed into growth: when it holds `limit` entries it is cleared, so a flood
 * of invented keys costs recomputation, never memory.
 */
export interface BoundedMemo<V> {
  /** The value for `key`, computed by `compute` on a miss and kept. */
  get(key: string, compute: () => V): V;
}

export function boundedMemo<V>(limit: number): BoundedMemo<V> {
  const values = new Map<string, V>();
  return {
    get(key, compute) {
      let value = values.get(key);
      if (value === undefined) {
        value = compute();
        if (values.size >= limit) values.clear();
        values.set(key, value);
      }
      return value;
    },
  };
}
