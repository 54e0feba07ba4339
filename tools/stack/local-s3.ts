/**
 * An in-process S3 endpoint (s3rver, a dev dependency) with the bucket created, for
 * `npm run stack` on machines without MinIO. s3rver accepts the access key `S3RVER` and does
 * not verify signatures. Its known gaps (3.7.1): `bytes=0-0` and suffix ranges come back wrong
 * and it sends no bucket notifications; the service never depends on either (it asks for
 * absolute ranges and checks the upstream `Content-Range`).
 */
import type http from 'node:http';

export interface LocalS3 {
  readonly endpoint: string;
  readonly accessKey: string;
  readonly secretKey: string;
  readonly bucket: string;
  readonly httpServer: http.Server;
  stop(): Promise<void>;
}

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
  readonly httpServer: http.Server;
}
type S3rverConstructor = new (options: Record<string, unknown>) => S3rverInstance;

/** Starts s3rver on `port` (0: any) storing objects under `directory`. */
export async function startLocalS3(options: {
  directory: string;
  bucket: string;
  port?: number;
}): Promise<LocalS3> {
  let S3rver: S3rverConstructor;
  try {
    // s3rver ships no types and is a dev dependency: loaded only when a local stack needs it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    S3rver = require('s3rver') as S3rverConstructor;
  } catch {
    throw new Error('s3rver is not installed; run npm ci (it is a dev dependency)');
  }
  const server = new S3rver({
    address: '127.0.0.1',
    port: options.port ?? 0,
    silent: true,
    directory: options.directory,
    configureBuckets: [{ name: options.bucket }],
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    accessKey: 'S3RVER',
    secretKey: 'S3RVER',
    bucket: options.bucket,
    httpServer: server.httpServer,
    async stop() {
      server.httpServer.closeAllConnections();
      await server.close();
    },
  };
}
