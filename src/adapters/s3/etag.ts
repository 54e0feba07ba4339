/**
 * ETags as the service publishes them: the store's strong ETag in its quoted form (`"abc"`),
 * identical on every replica. S3 listings, minio and raw headers disagree on quoting (minio
 * strips the quotes, s3rver's XML escapes them), so every S3 ETag passes through here.
 */

/** The quoted form of an S3 ETag, whatever quoting or escaping it arrived with. */
export function normalizeEtag(raw: string): string {
  const inner = raw
    .trim()
    .replace(/&quot;/g, '"')
    .replace(/^"+|"+$/g, '');
  return `"${inner}"`;
}
