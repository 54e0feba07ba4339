/**
 * The S3 endpoint of the bench (s3rver via `startLocalS3`, the same one `npm run stack`
 * uses) in its own process, so its CPU and memory are measured apart and it never shares an
 * event loop with anything else. Prints one JSON line `{endpoint, accessKey, secretKey,
 * bucket}` once listening; stops on SIGTERM. Args: <directory> <bucket>.
 */
import { startLocalS3 } from '../../stack/local-s3';

async function main(): Promise<void> {
  const [directory, bucket = 'radar'] = process.argv.slice(2);
  if (!directory) throw new Error('usage: s3-server.ts <directory> [bucket]');
  const s3 = await startLocalS3({ directory, bucket });
  process.stdout.write(
    `${JSON.stringify({ endpoint: s3.endpoint, accessKey: s3.accessKey, secretKey: s3.secretKey, bucket: s3.bucket })}\n`,
  );
  const stop = () => void s3.stop().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`s3-server: ${(err as Error).message}\n`);
  process.exit(1);
});
