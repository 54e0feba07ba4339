/**
 * The usage port: per-key counts by hour (`domain/usage.ts`), kept in Redis when `REDIS_URL` is
 * set (`adapters/redis/usage-store.ts`) and otherwise in a file beside the key file
 * (`adapters/fs/usage-file.ts`); opened only by `wiring/usage.ts`.
 */
import type { UsageBatch, UsageEntry } from './usage';

/** One key's place in the busiest keys of an hour. */
export interface UsageRank {
  readonly keyId: string;
  readonly requests: number;
}

/** Where usage counts are added up and read back, whichever replica counted them. */
export interface UsageStore {
  /**
   * Adds the batch's counts. At most once per (`source`, `seq`): a batch whose `seq` is not
   * above the highest applied for its source changes nothing, so a retry after a lost reply
   * never counts twice. Rejects when the store cannot be reached (the caller keeps the batch).
   */
  apply(batch: UsageBatch): Promise<void>;
  /**
   * Counts of the hours `fromHour`..`toHour` (inclusive), of every key or of `keyIds` only;
   * one entry per key and hour that has counts.
   */
  read(fromHour: number, toHour: number, keyIds?: readonly string[]): Promise<UsageEntry[]>;
  /** The `n` keys with the most requests in `hour`, busiest first. */
  top(hour: number, n: number): Promise<UsageRank[]>;
  close(): Promise<void>;
}
