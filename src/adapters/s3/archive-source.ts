/**
 * The ingest worker's view of the bucket: the production `ArchiveSource`. Names are relative
 * to the prefix (the same names the directory source gives), ETags are in the quoted form the
 * HTTP layer publishes, and reads return exactly the asked bytes even from a store that
 * mishandles ranges (s3rver answers `bytes=0-0` with the whole object and never
 * finishes a ranged read of an empty object).
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { BucketItem } from 'minio';
import type { ArchiveSource, StoredObject } from '../../domain/ports';
import { S3TimeoutError, type S3Client } from './client';
import { isS3InvalidRange, translateS3Error } from './errors';
import { normalizeEtag } from './etag';
import { planRangeBody } from './range-response';
import { createWindowStream } from './window-stream';

export interface S3ArchiveSourceOptions {
  readonly client: S3Client;
  readonly bucket: string;
  /** Object key prefix; only objects directly under it are listed. */
  readonly prefix: string;
  /** Longest wait for any single answer of the store (also bounds a whole head read). */
  readonly timeoutMs: number;
}

/** Creates the source. It shares the client; closing the client is the caller's job. */
export function createS3ArchiveSource(options: S3ArchiveSourceOptions): ArchiveSource {
  const { client, bucket, prefix, timeoutMs } = options;

  const list = () =>
    new Promise<StoredObject[]>((resolve, reject) => {
      const objects: StoredObject[] = [];
      // Non-recursive: "folders" under the prefix come back as prefixes and are skipped.
      const stream = client.minio.listObjectsV2(bucket, prefix, false);
      stream.on('data', (item: BucketItem) => {
        if (item.name === undefined || !item.name.startsWith(prefix)) return;
        const name = item.name.slice(prefix.length);
        if (name === '' || name.includes('/')) return;
        objects.push({
          name,
          size: item.size,
          etag: normalizeEtag(item.etag),
          lastModified: item.lastModified,
        });
      });
      stream.on('error', reject);
      stream.on('end', () => resolve(objects));
    });

  /** `length` bytes at `offset` (fewer for a shorter object), within `timeoutMs` overall. */
  const readWindow = async (name: string, offset: number, length: number): Promise<Buffer> => {
    if (length <= 0) return Buffer.alloc(0);
    let request: ClientRequest | undefined;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      request?.destroy(new S3TimeoutError(timeoutMs));
    }, timeoutMs);
    try {
      let response: IncomingMessage;
      try {
        response = (await client.withRequestScope(
          {
            onRequest: (req) => {
              request = req;
              if (timedOut) req.destroy(new S3TimeoutError(timeoutMs));
            },
          },
          () => client.minio.getPartialObject(bucket, `${prefix}${name}`, offset, length),
        )) as IncomingMessage;
      } catch (err) {
        // An object that ends before `offset` (an empty one has no byte 0): nothing to read.
        if (isS3InvalidRange(err)) return Buffer.alloc(0);
        throw translateS3Error(name, err);
      }
      let plan;
      try {
        plan = planRangeBody(response.statusCode ?? 0, response.headers, {
          offset,
          length,
          size: undefined,
          etag: undefined,
        });
      } catch (err) {
        response.destroy();
        throw translateS3Error(name, err);
      }
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of createWindowStream(response, plan)) chunks.push(chunk as Buffer);
      } catch (err) {
        throw translateS3Error(name, err);
      }
      return Buffer.concat(chunks);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    list,
    readHead: (name, length) => readWindow(name, 0, length),
    readRange: readWindow,
    async remove(name) {
      await client.minio.removeObject(bucket, `${prefix}${name}`).catch((err: unknown) => {
        throw translateS3Error(name, err);
      });
    },
  };
}
