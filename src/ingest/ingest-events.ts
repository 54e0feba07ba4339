/**
 * What ingest reports as it works: the closed lists of reasons it refuses an object or
 * withdraws a timestamp (the metrics export each at 0 from the start, and a new reason cannot
 * be counted without being added here), and the events a pass emits.
 */
import { STRUCTURE_REJECTION_REASONS } from '../pmtiles/archive-check';
import { HEADER_REJECTION_REASONS } from '../pmtiles/validate';
import { FORECAST_REJECTION_REASONS } from './forecast-metadata';
import type { ReadFailureReason } from './read-failure';

/**
 * Every reason ingest refuses an object (a closed list: the rejection metric exports each at 0
 * from the start, and a new reason cannot be counted without being added here).
 */
export const INGEST_REJECTION_REASONS = [
  'bad-name',
  ...HEADER_REJECTION_REASONS,
  ...STRUCTURE_REJECTION_REASONS,
  'bad-size',
  'bad-etag',
  'bad-last-modified',
  ...FORECAST_REJECTION_REASONS,
] as const;
export type IngestRejectionReason = (typeof INGEST_REJECTION_REASONS)[number];

/**
 * Every reason ingest withdraws a published timestamp (a closed list, exported at 0 by the
 * metrics like the rejection reasons).
 */
export const UNPUBLISH_REASONS = [
  'replaced-invalid',
  'replaced-unreadable',
  'object-missing',
  'catalog-junk',
  'failed-revalidation',
] as const;
/** Why ingest withdrew a published timestamp. */
export type UnpublishReason = (typeof UNPUBLISH_REASONS)[number];

export interface IngestEvents {
  onPublished?(timestamp: string, lagMs: number): void;
  onRejected?(name: string, reason: IngestRejectionReason): void;
  /** A published timestamp got new metadata (its object was replaced by a valid archive). */
  onRepublished?(timestamp: string): void;
  onUnpublished?(timestamp: string, reason: UnpublishReason): void;
  /** One failed read (or delete) of one object; retried with backoff. */
  onReadFailed?(name: string, reason: ReadFailureReason): void;
}
