/**
 * Reading the errors of the minio client and of raw S3 requests, so every S3 adapter draws
 * the same line between "the object is not there" (a 404 for one archive) and "the store is
 * failing" (a 503 for everything, counted by the circuit breaker).
 */

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * True when the store answered that the object does not exist. `NoSuchBucket` is not one of
 * them: a missing bucket is a broken deployment, not a missing archive.
 */
export function isS3NotFound(err: unknown): boolean {
  const code = errorCode(err);
  return code === 'NoSuchKey' || code === 'NotFound';
}

/** True when a conditional write was refused because the object already exists. */
export function isS3PreconditionFailed(err: unknown): boolean {
  return errorCode(err) === 'PreconditionFailed';
}

/** True when a ranged read asked beyond the end of the object (S3 answers 416). */
export function isS3InvalidRange(err: unknown): boolean {
  return errorCode(err) === 'InvalidRange';
}

/** A one-line description for logs: code and message, never credentials or signatures. */
export function describeS3Error(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = errorCode(err);
  return code !== undefined && !err.message.includes(code)
    ? `${code}: ${err.message}`
    : err.message;
}
