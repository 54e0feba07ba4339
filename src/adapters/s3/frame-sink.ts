/**
 * Simulator frames uploaded to the bucket: the S3 `FrameSink`. One PUT per archive, so the
 * object appears complete or not at all (S3 never shows a partial single-part upload); a
 * published key is never overwritten (archives are immutable): the key is checked first and the PUT
 * carries `If-None-Match: *`, which S3 and MinIO enforce atomically (s3rver ignores it, so
 * there only the check guards).
 */
import type { FrameSink } from '../../domain/producer-ports';
import { objectKey, type S3Client } from './client';
import { isS3NotFound, isS3PreconditionFailed } from './errors';

/** Content type stored with every archive, the one the API serves. */
export const PMTILES_MEDIA_TYPE = 'application/vnd.pmtiles';

export interface S3FrameSinkOptions {
  readonly client: S3Client;
  readonly bucket: string;
  /** Object key prefix; keys are `{prefix}{YYYYMMDDHHmm}.pmtiles`. */
  readonly prefix: string;
}

/** Creates the sink. It shares the client; closing the client is the caller's job. */
export function createS3FrameSink(options: S3FrameSinkOptions): FrameSink {
  const { client, bucket, prefix } = options;

  const has = async (timestamp: string): Promise<boolean> => {
    try {
      await client.minio.statObject(bucket, objectKey(prefix, timestamp));
      return true;
    } catch (err) {
      if (isS3NotFound(err)) return false;
      throw err;
    }
  };

  return {
    has,
    async put(timestamp, bytes) {
      if (await has(timestamp)) return;
      try {
        await client.minio.putObject(bucket, objectKey(prefix, timestamp), bytes, bytes.length, {
          'Content-Type': PMTILES_MEDIA_TYPE,
          'If-None-Match': '*',
        });
      } catch (err) {
        if (isS3PreconditionFailed(err)) return; // published meanwhile: the first archive wins
        throw err;
      }
    },
  };
}
