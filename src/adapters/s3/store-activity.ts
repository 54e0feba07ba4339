/**
 * When the object store last delivered anything to this replica (a response head or body
 * bytes). A read without its first byte in time while the store keeps delivering to other reads
 * meets a busy store (usually busy with this replica's own long streams), not a failing one, so
 * that timeout must not feed the circuit breaker: a store that stopped answering delivers
 * nothing to anyone.
 */
export interface StoreActivity {
  /** Records a delivery now. */
  note(): void;
  /** Whether the store delivered anything at or after `sinceMs` (epoch ms). */
  deliveredSince(sinceMs: number): boolean;
}

export function createStoreActivity(now: () => number = Date.now): StoreActivity {
  let last = Number.NEGATIVE_INFINITY;
  return {
    note: () => {
      last = now();
    },
    deliveredSince: (sinceMs) => last >= sinceMs,
  };
}
