/**
 * The validated configuration's shape, in slices: each part of the service gets the slice it
 * reads and nothing else. Which technology serves each port is a tagged union decided once by
 * `loadConfig` (every concern is chosen on its own), and a technology's own settings (its
 * timeout, its resync period) travel inside its branch, so the wiring switches on `kind` and
 * never re-derives a mode from optional fields or reaches into unrelated settings.
 */

/** A Redis deployment (standalone, Sentinel or Cluster URL) and its command timeout. */
export interface RedisBackend {
  readonly kind: 'redis';
  readonly url: string;
  /** `RADAR_REDIS_TIMEOUT_MS`: a command slower than this counts as a failure. */
  readonly timeoutMs: number;
}

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
      /** `RADAR_S3_TIMEOUT_MS`: first byte of a store answer. */
      readonly timeoutMs: number;
    };

/** Where the published timestamps live: this process (fed by in-process ingest) or Redis. */
export type CatalogBackend =
  | { readonly kind: 'memory' }
  | (RedisBackend & {
      /** `RADAR_RESYNC_S`: how often a replica re-reads the index besides the event channel. */
      readonly resyncS: number;
    });

/** Where keys live: the key file (reloaded on change) or the registry in Redis. */
export type KeysBackend =
  | { readonly kind: 'file'; readonly path: string }
  | (RedisBackend & {
      /** `RADAR_RESYNC_S`: how often a replica re-reads the registry besides the event channel. */
      readonly resyncS: number;
    });

/** Where rate-limit windows live: this process or Redis (shared by every replica). */
export type LimiterBackend = { readonly kind: 'memory' } | RedisBackend;

/** Where usage counts are added up: Redis (shared by every replica) or a file. */
export type UsageBackend = { readonly kind: 'file'; readonly path: string } | RedisBackend;

/** Per-key usage counting (docs/usage.md). */
export interface UsageSettings {
  /** `RADAR_USAGE`: count usage (the CLI and `/usage` read it either way). */
  readonly enabled: boolean;
  /** `RADAR_USAGE_FLUSH_S`: how often a replica hands its counts to the store. */
  readonly flushS: number;
  /** `RADAR_USAGE_RETENTION_DAYS`: days an hour's counts are kept after the hour ends. */
  readonly retentionDays: number;
  /** `RADAR_USAGE_MAX_ENTRIES`: key-hours a replica holds unflushed at most. */
  readonly maxEntries: number;
  /** Redis when `REDIS_URL` is set, else `RADAR_USAGE_FILE` (default `usage.json` beside the key file). */
  readonly store: UsageBackend;
}

/** The public listener and the HTTP behaviour around the core. */
export interface HttpSettings {
  readonly port: number;
  readonly host: string;
  /** `RADAR_CORS_ORIGINS`: `['*']` or the allowed origins. */
  readonly corsOrigins: readonly string[];
  readonly cacheControl: 'private' | 'public';
  /** Behind exactly one reverse proxy (nginx): X-Forwarded-For / -Proto are read. */
  readonly trustProxy: boolean;
  /**
   * `RADAR_PUBLIC_URL` without its trailing slash: the base URL documents name (TileJSON),
   * whatever the request says; undefined: the request's own host (`http/core/public-base-url.ts`).
   */
  readonly publicUrl: string | undefined;
  /** `RADAR_PUBLIC_HOSTS`: forwarded hosts (`X-Forwarded-Host`) that may be named, lower-case. */
  readonly publicHosts: readonly string[];
  /** Longest time a client may take to send its request head. */
  readonly requestTimeoutS: number;
  /** A response making no write progress this long is cut. */
  readonly sendTimeoutS: number;
  /** Longest wait for in-flight responses at shutdown. */
  readonly drainS: number;
  /**
   * During a drain, a kept-alive connection idle this long is closed; above the balancer's
   * upstream idle timeout, so the balancer has let go of it by then.
   */
  readonly drainIdleS: number;
}

/** The admin listener (`/metrics`, `/healthz`, `/readyz`); never proxied. */
export interface AdminSettings {
  readonly port: number;
  readonly host: string;
}

/** Per-key quota defaults. */
export interface RateSettings {
  /** `RADAR_RATE_LIMIT`: requests per window for keys without their own limit. */
  readonly limit: number;
  /** `RADAR_RATE_WINDOW_S`. */
  readonly windowS: number;
}

/** What is published and for how long, and when the newest frame counts as stale. */
export interface PublicationSettings {
  /** `RADAR_RETENTION_S`: timestamps older than this are unpublished. */
  readonly retentionS: number;
  /** `RADAR_STALE_AFTER_S`: `healthy` turns false past this age of `latest`. */
  readonly staleAfterS: number;
  /**
   * `RADAR_FORECAST_GRACE_S`: how long a forecast base stays readable (not listed) after a
   * newer base is listed; then it answers 404 and its archives are deleted.
   */
  readonly forecastGraceS: number;
}

/** Archive reads: the hot cache and each owner's share of open store reads. */
export interface ReadSettings {
  /** Hot archive block cache size per replica, MiB (0 disables it). */
  readonly cacheMb: number;
  /** Open archive reads (store sockets, files) one API key / one client address may hold. */
  readonly perKey: number;
  readonly perClient: number;
}

/** The producers' nowcast (docs/nowcast.md, "Publishing"). */
export interface NowcastSettings {
  /** `NOWCAST`: publish forecast frames after each observed frame. */
  readonly enabled: boolean;
  /** `NOWCAST_LEADS`: minutes ahead, ascending multiples of 2. */
  readonly leads: readonly number[];
}

/** The in-process radar simulator. */
export interface SimulatorSettings {
  readonly backfill: number;
  readonly cadenceS: number;
  readonly maxZoom: number;
}

/**
 * Where the MRMS follower reads NOAA's files: an S3 bucket laid out like NOAA's open-data
 * bucket (read anonymously), an HTTP(S) directory listing, or a local directory.
 */
export type MrmsSource =
  | {
      readonly kind: 's3';
      /** `MRMS_S3_ENDPOINT`, `http(s)://host[:port]`. */
      readonly endpoint: string;
      readonly region: string;
      readonly bucket: string;
      /** Key prefix of the product, ending in `/`; day folders `YYYYMMDD/` lie under it. */
      readonly prefix: string;
    }
  | { readonly kind: 'http'; readonly url: string }
  | { readonly kind: 'dir'; readonly dir: string };

/** The MRMS follower (`npm run mrms`, or in-process with `RADAR_SOURCE=mrms`). */
export interface MrmsSettings {
  readonly source: MrmsSource;
  /** `MRMS_PRODUCT`: product and level as in MRMS file names (`ReflectivityAtLowestAltitude_00.50`). */
  readonly productLevel: string;
  /** `MRMS_BACKFILL`: the newest files kept published (converted at start, then followed). */
  readonly backfill: number;
  /** `MRMS_POLL_S`: seconds between looks at the source. */
  readonly pollS: number;
  /** `MRMS_MAX_ZOOM`: deepest zoom rendered. */
  readonly maxZoom: number;
  /** `MRMS_WORKERS`: render threads, i.e. frames in flight (1 or 2). */
  readonly workers: number;
  /** `MRMS_TIMEOUT_S`: the longest a source request may wait for data. */
  readonly timeoutS: number;
  /** The flag product paired with each frame for its precipitation type; absent: untyped. */
  readonly types?: {
    /** `MRMS_TYPE_PRODUCT` (default `PrecipFlag_00.00`; `none` leaves frames untyped). */
    readonly productLevel: string;
    /** Where its files lie: the reflectivity's source, its sibling product folder if any. */
    readonly source: MrmsSource;
    /** `MRMS_TYPE_WAIT_S`: the longest a frame waits for its flag before going out untyped. */
    readonly waitS: number;
  };
}

/** Validated, frozen service configuration. */
export interface Config {
  /** No Redis and no object store: one process does everything (the `npm start` default). */
  readonly embedded: boolean;
  readonly http: HttpSettings;
  readonly admin: AdminSettings;
  readonly archives: ArchivesBackend;
  readonly catalog: CatalogBackend;
  readonly keys: KeysBackend;
  readonly limiter: LimiterBackend;
  readonly rate: RateSettings;
  readonly publication: PublicationSettings;
  readonly reads: ReadSettings;
  readonly usage: UsageSettings;
  /** `RADAR_INGEST_POLL_S`: the ingest worker's periodic listing. */
  readonly ingestPollS: number;
  /** The data directory (`RADAR_DATA_DIR`), absolute. */
  readonly dataDir: string;
  /** Run the simulator in this process (`RADAR_SIMULATE`). */
  readonly simulate: boolean;
  readonly simulator: SimulatorSettings;
  /**
   * `RADAR_SOURCE`: what the in-process producer (`RADAR_SIMULATE`) publishes: the simulator,
   * or live MRMS radar through the follower.
   */
  readonly radarSource: 'simulator' | 'mrms';
  readonly mrms: MrmsSettings;
  /** What the producers (simulator, MRMS follower) publish besides observed frames. */
  readonly nowcast: NowcastSettings;
  readonly logLevel: string;
}
