/**
 * A memo for hot per-request decisions keyed by a short string (auth per key and app, range
 * selections, Accept-Encoding values): a repeat costs one Map lookup. Its keys come from
 * clients, so it is bounded in bytes, not only in entries: a key longer than `maxKeyLength`
 * is computed every time and never kept, and when the memo holds `maxEntries` it is cleared.
 * Whatever a client sends, it holds at most `maxEntries × maxKeyLength` key characters, and a
 * flood of invented keys costs recomputation, never memory.
 */
export interface BoundedMemoLimits<V> {
  /** Entries kept at most; a new entry past this clears the memo first. */
  readonly maxEntries: number;
  /** Longest key kept, in UTF-16 code units; longer keys are computed, never kept. */
  readonly maxKeyLength: number;
  /**
   * Whether a computed value is worth keeping (default: all). Lets a caller keep only what
   * repeats for real clients, e.g. decisions about known keys rather than invented ones.
   */
  readonly keep?: (value: V) => boolean;
}

/** What a memo holds now: with its limits, the memory it can cost. */
export interface BoundedMemoSize {
  readonly entries: number;
  /** Characters of all keys held (about two bytes each at most). */
  readonly keyChars: number;
}

export interface BoundedMemo<V> {
  /** The value for `key`, computed by `compute` on a miss and kept when the limits allow. */
  get(key: string, compute: () => V): V;
  /** Entries and key characters held now. */
  size(): BoundedMemoSize;
}

export function boundedMemo<V>(limits: BoundedMemoLimits<V>): BoundedMemo<V> {
  const { maxEntries, maxKeyLength, keep } = limits;
  const values = new Map<string, V>();
  let keyChars = 0;
  return {
    get(key, compute) {
      if (key.length > maxKeyLength) return compute();
      let value = values.get(key);
      if (value === undefined) {
        value = compute();
        if (keep !== undefined && !keep(value)) return value;
        if (values.size >= maxEntries) {
          values.clear();
          keyChars = 0;
        }
        values.set(key, value);
        keyChars += key.length;
      }
      return value;
    },
    size: () => ({ entries: values.size, keyChars }),
  };
}
