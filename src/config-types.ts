/**
 * The validated configuration's shape. Which technology serves each port is a tagged union
 * decided once by `loadConfig` (DESIGN.md §3.2: every concern is chosen on its own), so the
 * wiring switches on `kind` and never re-derives a mode from optional fields.
 */

/** Where archives live: the data directory (embedded) or an S3-compatible bucket. */
export type ArchivesBackend =
  | { readonly kind: 'fs'; readonly dir: string }
  | {
      readonly kind: 's3';
      readonly endpoint: string;
      readonly accessKey: string;
      readonly secretKey: string;
      readonly bucket: string;
      readonly prefix: string;
      readonly region: string;
    };

/** Where the published timestamps live: this process (fed by in-process ingest) or Redis. */
export type CatalogBackend = { readonly kind: 'memory' } | RedisBackend;

/** Where keys live: the key file (reloaded on change) or the registry in Redis. */
export type KeysBackend = { readonly kind: 'file'; readonly path: string } | RedisBackend;

/** Where rate-limit windows live: this process or Redis (shared by every replica). */
export type LimiterBackend = { readonly kind: 'memory' } | RedisBackend;

export interface RedisBackend {
  readonly kind: 'redis';
  readonly url: string;
}

/** Validated, frozen service configuration. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly adminPort: number;
  /**
   * Admin listener address (`/metrics`, `/healthz`, `/readyz`). Loopback by default, so a
   * replica started anywhere never exposes its metrics to the network; deployments whose
   * Prometheus or kubelet probes come from another host set it (compose, Kubernetes: `0.0.0.0`)
   * and fence the port with their network (a NetworkPolicy in Kubernetes).
   */
  readonly adminHost: string;
  /** True when neither Redis nor S3 is configured: single process, local adapters. */
  readonly embedded: boolean;
  readonly archives: ArchivesBackend;
  readonly catalog: CatalogBackend;
  readonly keys: KeysBackend;
  readonly limiter: LimiterBackend;
  /** The data directory: fs archives, and where the stand-alone simulator writes by default. */
  readonly dataDir: string;
  readonly rateLimit: number;
  readonly rateWindowS: number;
  readonly staleAfterS: number;
  readonly retentionS: number;
  readonly simulate: boolean;
  readonly simulator: {
    readonly backfill: number;
    readonly cadenceS: number;
    readonly maxZoom: number;
  };
  /** `['*']` or explicit origins. */
  readonly corsOrigins: readonly string[];
  readonly drainS: number;
  /**
   * During a drain, a kept-alive connection idle this long is closed; above the balancer's
   * upstream idle timeout, so the balancer has let go of it by then.
   */
  readonly drainIdleS: number;
  readonly cacheControl: 'private' | 'public';
  /** ioredis command timeout; also bounds how long a request can wait on Redis. */
  readonly redisTimeoutMs: number;
  /** Time to first byte from the object store before a request answers 503. */
  readonly s3TimeoutMs: number;
  /** Period of the full catalog resync from Redis (heals missed events). */
  readonly resyncS: number;
  /** Period of the ingest worker's bucket listing (the reconciliation pass). */
  readonly ingestPollS: number;
  /** Longest time a client may take to send its request before it is cut off. */
  readonly requestTimeoutS: number;
  /** Longest time a response may make no write progress before it is destroyed (every mode). */
  readonly sendTimeoutS: number;
  /** Open archive reads (store sockets, files) one API key / one client address may hold. */
  readonly storeReadsPerKey: number;
  readonly storeReadsPerClient: number;
  /** Hot archive block cache size per replica, MiB (0 disables it). */
  readonly cacheMb: number;
  /** Behind exactly one reverse proxy (nginx): take the client address from X-Forwarded-For. */
  readonly trustProxy: boolean;
  /**
   * `RADAR_PUBLIC_URL`: the base URL documents name (TileJSON), whatever the request says;
   * undefined: the request's own host (see `http/core/public-base-url.ts`).
   */
  readonly publicUrl: string | undefined;
  /** `RADAR_PUBLIC_HOSTS`: forwarded hosts (`X-Forwarded-Host`) that may be named, lower-case. */
  readonly publicHosts: readonly string[];
  readonly logLevel: string;
}
