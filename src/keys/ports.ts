/**
 * The two key ports: `KeyStore` answers the serving side's one question (may this key use this
 * app?), `KeyAdminStore` is what `npm run keys` reads and writes. Each has a key-file and a
 * Redis implementation (`adapters/fs/key-*`, `adapters/redis/key-*`), opened only by
 * `wiring/keys.ts`, so the CLI and the replicas always agree on where the registry lives.
 */
import type { KeyRegistryData } from '../domain/key-registry';
import type { AuthDecision } from '../domain/ports';

/** Credential lookup. Keys are compared as SHA-256 hashes in constant time. */
export interface KeyStore {
  /**
   * A decision from the registry held in memory comes back synchronously, so the request
   * fast path can decide without a promise; a store may still answer asynchronously.
   */
  authenticate(apiKey: string, appId: string): AuthDecision | Promise<AuthDecision>;
  close(): Promise<void>;
}

/** A registry store for administration (the serving side reads through `KeyStore`). */
export interface KeyAdminStore {
  /** The current registry; an empty one when none exists yet. */
  load(): Promise<KeyRegistryData>;
  /**
   * Stores `data`. Stores that can detect concurrent changes reject with
   * `KeyAdminConflictError` when the registry changed since this store's last `load()`.
   */
  save(data: KeyRegistryData): Promise<void>;
  /**
   * Loads, applies `edit` and saves, retrying on a conflict, so two administrators never lose
   * each other's change. `edit` may throw (an operator error); nothing is saved then.
   */
  update(edit: (data: KeyRegistryData) => KeyRegistryData): Promise<KeyRegistryData>;
}

/** The registry changed between load and save; the edit should be made again on fresh data. */
export class KeyAdminConflictError extends Error {
  override readonly name = 'KeyAdminConflictError';
}
