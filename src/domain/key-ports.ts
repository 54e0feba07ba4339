/**
 * The key ports: the serving side's one question, and what `npm run keys` reads and writes. Each
 * has a key-file and a Redis implementation (`adapters/fs/key-*`, `adapters/redis/key-*`),
 * opened only by `wiring/keys.ts`, so the CLI and the replicas agree on where keys live.
 */
import type { KeyRegistryData } from './key-records';
import type { OriginPolicy } from './origin-policy';

/** Result of checking a request's credentials. */
export type AuthDecision =
  | { readonly outcome: 'unauthenticated'; readonly reason: 'unknown-key' }
  | {
      readonly outcome: 'unauthenticated';
      readonly reason: 'unknown-app';
      /** The key is known (its hash matched): usage counts the refusal for it. */
      readonly keyId: string;
    }
  | {
      readonly outcome: 'forbidden';
      readonly reason: 'key-disabled' | 'app-disabled' | 'app-not-bound';
      readonly keyId: string;
    }
  | {
      readonly outcome: 'allowed';
      readonly keyId: string;
      readonly appId: string;
      readonly limit: number;
      /** The key's allowed web origins; absent means any (docs/keys.md "Allowed origins"). */
      readonly originPolicy?: OriginPolicy;
    };

/** Credential lookup. Keys are compared as SHA-256 hashes in constant time. */
export interface KeyStore {
  /**
   * A decision from the registry held in memory comes back synchronously, so the core can
   * answer without a promise; a store may still answer asynchronously.
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
