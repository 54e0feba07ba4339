/**
 * S3 wiring: one client per process and the S3 implementations of the archive ports over it
 * (store for the HTTP layer, source for ingest, frame sink for the simulator), plus MinIO
 * bucket notifications for the ingest worker.
 */
import {
  watchBucketNotifications,
  type BucketNotifications,
} from '../adapters/s3/bucket-notifications';
import { createS3ArchiveSource } from '../adapters/s3/archive-source';
import { createS3ArchiveStore } from '../adapters/s3/archive-store';
import { createS3Client } from '../adapters/s3/client';
import { createS3FrameSink } from '../adapters/s3/frame-sink';
import type { ArchivesBackend } from '../config';
import type { Logger } from '../logger';
import { closer } from './component';
import type { ArchivesWiring } from './archives';

type S3Backend = Extract<ArchivesBackend, { kind: 's3' }>;

/** How the archive ports are used: timeouts the caller may set for its own purpose. */
export interface ArchivesOptions {
  /** First-byte timeout of store reads; default the backend's (`RADAR_S3_TIMEOUT_MS`). */
  readonly timeoutMs?: number;
  /** `RADAR_SEND_TIMEOUT_S` in ms: a client that stopped reading is cut before its read idles out. */
  readonly sendTimeoutMs?: number;
}

export function s3Archives(
  backend: S3Backend,
  logger: Logger,
  options: ArchivesOptions = {},
): ArchivesWiring {
  const timeoutMs = options.timeoutMs ?? backend.timeoutMs;
  const client = createS3Client(backend, { timeoutMs });
  const { bucket, prefix } = backend;
  let store: ReturnType<typeof createS3ArchiveStore> | undefined;
  return {
    describe: `s3 bucket ${bucket} at ${backend.endpoint}`,
    prepare: async () => {},
    store: () =>
      (store ??= createS3ArchiveStore({
        client,
        bucket,
        prefix,
        timeoutMs,
        logger: logger.child({ component: 's3' }),
        // The send timeout cuts a client that stopped reading before its upstream idles out.
        ...(options.sendTimeoutMs !== undefined
          ? { bodyIdleTimeoutMs: options.sendTimeoutMs + timeoutMs }
          : {}),
      })),
    source: () => createS3ArchiveSource({ client, bucket, prefix, timeoutMs }),
    frameSink: () => createS3FrameSink({ client, bucket, prefix }),
    breakerOpen: () => store?.breakerOpen() ?? false,
    changes: (onChange) => {
      let notifications: BucketNotifications | undefined;
      return {
        name: 'bucket-notifications',
        start: async () => {
          notifications = await watchBucketNotifications({
            client,
            bucket,
            prefix,
            logger: logger.child({ component: 'notifications' }),
            onObjectCreated: onChange,
          });
        },
        stop: async () => notifications?.stop(),
      };
    },
    connections: closer('s3', () => client.close()),
  };
}
