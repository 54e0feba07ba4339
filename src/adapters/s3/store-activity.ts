/**
 * When the object store last delivered anything to this replica (a response head or body
 * bytes). A read without its first byte in time while the store keeps delivering to other reads
 * meets a busy store (usually busy with this replica's own long streams), not a failing one, so
 * that timeout must not feed the circuit breaker: a store that stopped answering delivers
 * nothing to anyone.
 *
 * Only a delivery strictly after a read got its socket counts, on a clock finer than a
 * millisecond: the last bytes of the previous read on a kept-alive socket arrive just before
 * that socket is handed to the next read, often within the same millisecond (Node 24 hands it
 * over that fast), and must not make a store that then stops answering look busy.
 */
import { performance } from 'node:perf_hooks';

export interface StoreActivity {
  /** Records a delivery now. */
  note(): void;
  /** Now, on the clock `deliveredSince` compares with (ms, monotonic, sub-millisecond). */
  now(): number;
  /** Whether the store delivered anything strictly after `sinceMs` (a value of `now()`). */
  deliveredSince(sinceMs: number): boolean;
}

export function createStoreActivity(now: () => number = () => performance.now()): StoreActivity {
  let last = Number.NEGATIVE_INFINITY;
  return {
    note: () => {
      last = now();
    },
    now,
    deliveredSince: (sinceMs) => last > sinceMs,
  };
}
