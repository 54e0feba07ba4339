/**
 * Leadership for the ingest worker: several workers may run for availability, one publishes.
 * The lease is a port so the worker loop stays testable; Redis implements it.
 */
export interface LeaderLease {
  /** Takes or renews the lease; resolves whether this worker holds it now. */
  acquire(): Promise<boolean>;
  /** Gives the lease up if held (shutdown), so another worker takes over at once. */
  release(): Promise<void>;
}
