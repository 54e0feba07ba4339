/**
 * The environment that points a service process (replica, ingest worker, MRMS producer) at a
 * Redis and an S3 bucket, in the variable names `src/config.ts` reads: written once for the
 * local stack, the bench and the test harness, so a renamed setting changes in one place.
 */

/** An S3 bucket and the credentials to reach it; `region` only where the endpoint needs one. */
export interface S3Target {
  readonly endpoint: string;
  readonly accessKey: string;
  readonly secretKey: string;
  readonly bucket: string;
  readonly region?: string;
}

/** `REDIS_URL` and the `S3_*` settings of a production-mode process. */
export function backendEnv(redisUrl: string, s3: S3Target): Record<string, string> {
  return {
    REDIS_URL: redisUrl,
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY: s3.accessKey,
    S3_SECRET_KEY: s3.secretKey,
    S3_BUCKET: s3.bucket,
    ...(s3.region === undefined ? {} : { S3_REGION: s3.region }),
  };
}
