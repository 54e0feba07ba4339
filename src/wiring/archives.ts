/**
 * The archive ports of one backend, as the technology wirings (`fs.ts`, `s3.ts`) return them.
 * Each port is created on first use, so a process builds only what it needs (the simulator
 * only a sink, the ingest worker only a source). `open-archives.ts` picks the backend.
 */
import type { ArchiveSource, ArchiveStore } from '../domain/ports';
import type { FrameSink } from '../domain/producer-ports';
import type { Component } from './component';

export interface ArchivesWiring {
  /** Where archives are, for start-up lines. */
  readonly describe: string;
  /** Makes the backend usable before anything reads it (creates the data directory). */
  prepare(): Promise<void>;
  /** Range reads for the HTTP layer (not yet cached or measured). */
  store(): ArchiveStore;
  /** Listing and head reads for ingest. */
  source(): ArchiveSource;
  /** Where the simulator publishes. */
  frameSink(): FrameSink;
  /** True while the store's circuit breaker fails fast (S3 only). */
  breakerOpen(): boolean;
  /** Pushes new-object hints to ingest (bucket notifications), when the backend has them. */
  readonly changes?: (onChange: () => void) => Component;
  /** Clients to close last. */
  readonly connections: Component;
}
