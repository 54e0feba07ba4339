/**
 * Knobs a configuration does not carry: test-only periods, the logger, the viewer's and the API
 * description's assets and spies on the ports. Production passes none of them.
 */
import type { ArchiveStore, CatalogReader, RateLimiter } from '../domain/ports';
import type { KeyStore } from '../domain/key-ports';
import type { Logger } from '../logger';
import type { ViewerRoutesOptions } from '../viewer/viewer-routes';

/** The ports the HTTP layer reads. */
export interface ReplicaPorts {
  readonly catalog: CatalogReader;
  readonly store: ArchiveStore;
  readonly keys: KeyStore;
  readonly limiter: RateLimiter;
}

export interface ReplicaOverrides {
  /** Default: JSON logs at the configured level. */
  readonly logger?: Logger;
  /** Key-file stat polling period (default 500 ms). */
  readonly keysPollMs?: number;
  /** Safety-net scan period of the data-directory watcher. */
  readonly watchIntervalMs?: number;
  /** Usage flush period in ms (default `RADAR_USAGE_FLUSH_S`; tests shorten it). */
  readonly usageFlushMs?: number;
  /** Archive store probe period (default 10 s). */
  readonly probeIntervalMs?: number;
  /** Viewer assets and pre-filled credentials (default: the built page, embedded demo key). */
  readonly viewer?: ViewerRoutesOptions;
  /** Directory of the built API description and reference (default: this checkout's dist/). */
  readonly openApiAssetsDir?: string;
  /** Wraps the ports the HTTP layer is given (spies in tests); the originals keep running. */
  readonly decoratePorts?: (ports: ReplicaPorts) => ReplicaPorts;
  /**
   * Plain-words notices for the person at the terminal (`npm start` writes them to stderr),
   * such as an in-process MRMS source that does not answer. Default: logged only.
   */
  readonly notify?: (text: string) => void;
}

export interface IngestOverrides {
  readonly logger?: Logger;
  /** Lease owner name (default host:pid:random). */
  readonly owner?: string;
}

export interface MrmsOverrides {
  readonly logger?: Logger;
  /** Lease owner name (default host:pid:random). */
  readonly owner?: string;
  /** Lease TTL (default 15 s; tests shorten it to watch a takeover). */
  readonly leaseTtlMs?: number;
}
