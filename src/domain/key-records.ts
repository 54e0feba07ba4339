/**
 * The key and app registry as data: what the key file holds and the Redis registry stores
 * (keys only as SHA-256 hashes), shared by the key ports, the 401/403 decision and the CLI.
 */

export interface AppRecord {
  readonly id: string;
  readonly disabled: boolean;
}

export interface KeyRecord {
  readonly id: string;
  /** Lower-case hex SHA-256 of the API key. */
  readonly sha256: string;
  readonly apps: readonly string[];
  /** Per-key limit per window; falls back to the configured default when absent. */
  readonly limit?: number;
  readonly disabled: boolean;
  /** Allowed web origins (exact, or `https://*.domain`); absent or empty: any origin. */
  readonly origins?: readonly string[];
  /** Refuse requests that name no origin (neither `Origin` nor `Referer`). */
  readonly requireOrigin?: boolean;
}

export interface KeyRegistryData {
  readonly apps: readonly AppRecord[];
  readonly keys: readonly KeyRecord[];
}
