/**
 * New-object events from the bucket, so a fresh archive is ingested at once rather than at the
 * next listing. Uses MinIO's ListenBucketNotification long poll (`s3:ObjectCreated:*`, suffix
 * `.pmtiles`) where the store offers it. It is only an accelerator: the ingest worker lists the
 * bucket periodically everywhere, so a store without notifications (AWS S3 without a queue,
 * s3rver) or a dropped stream loses nothing but latency. Stores that answer the request with
 * an error or an XML listing (s3rver ignores the query) are reported once as unsupported.
 *
 * minio's `NotificationPoller` is not used: its `stop()` leaves the long poll open until the
 * next event and an error ends it for good; this loop is that same request with an orderly
 * stop and reconnection.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { S3Client } from './client';
import { describeS3Error } from './errors';
import type { Logger } from '../../logger';

/** A running watch. */
export interface BucketNotifications {
  /** True while the store delivers notifications; false when unsupported or reconnecting. */
  supported(): boolean;
  /** Ends the long poll and any reconnection; resolves when nothing is left running. */
  stop(): Promise<void>;
}

export interface BucketNotificationOptions {
  readonly client: S3Client;
  readonly bucket: string;
  /** Only keys under this prefix are reported, relative to it (the `ArchiveSource` names). */
  readonly prefix: string;
  readonly logger: Logger;
  /** Called with the object name relative to `prefix` for each created `.pmtiles` object. */
  readonly onObjectCreated: (name: string) => void;
  /** How long `watchBucketNotifications` waits for the store's first answer (default: client timeout). */
  readonly startTimeoutMs?: number;
  /** Reconnection delay bounds after a failed or ended stream (defaults 1 s and 30 s). */
  readonly retryMinMs?: number;
  readonly retryMaxMs?: number;
}

/** MinIO writes keep-alive blanks into the stream; silence this long means a dead connection. */
const LISTEN_IDLE_MS = 60_000;
/** A notification line longer than this is not a notification: drop the stream. */
const MAX_LINE_CHARS = 1 << 20;
/** Error codes that mean the store does not offer this API (as opposed to being down). */
const UNSUPPORTED_CODES = new Set([
  'NotImplemented',
  'MethodNotAllowed',
  'InvalidArgument',
  'InvalidRequest',
  'AccessDenied',
]);

/** URI escaping as minio signs it (`encodeURIComponent` plus `!'()*`). */
function uriEscape(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

class UnsupportedError extends Error {}

interface NotificationRecord {
  readonly eventName?: string;
  readonly s3?: { readonly object?: { readonly key?: string } };
}

/**
 * Starts watching. Resolves once the store has answered the first request (or after
 * `startTimeoutMs`), so `supported()` is meaningful at once; never rejects.
 */
export async function watchBucketNotifications(
  options: BucketNotificationOptions,
): Promise<BucketNotifications> {
  const { client, bucket, prefix, logger } = options;
  const retryMinMs = options.retryMinMs ?? 1_000;
  const retryMaxMs = options.retryMaxMs ?? 30_000;
  const query = [`events=${uriEscape('s3:ObjectCreated:*')}`, `suffix=${uriEscape('.pmtiles')}`];
  if (prefix !== '') query.push(`prefix=${uriEscape(prefix)}`);
  query.sort();

  let state: 'connecting' | 'listening' | 'down' | 'unsupported' = 'connecting';
  let stopped = false;
  let request: ClientRequest | undefined;
  let response: IncomingMessage | undefined;
  let wake: (() => void) | undefined;
  let firstAnswer: () => void = () => {};
  const started = new Promise<void>((resolve) => (firstAnswer = resolve));

  const report = (name: string) => {
    try {
      options.onObjectCreated(name);
    } catch (err) {
      logger.error({ err, object: name }, 'bucket notification handler failed');
    }
  };

  const handleLine = (line: string) => {
    if (line.startsWith('<'))
      throw new UnsupportedError('the store answered with XML, not a notification stream');
    let parsed: { Records?: NotificationRecord[] };
    try {
      parsed = JSON.parse(line) as { Records?: NotificationRecord[] };
    } catch {
      logger.debug({ line: line.slice(0, 200) }, 'unparsable bucket notification line ignored');
      return;
    }
    for (const record of parsed.Records ?? []) {
      const rawKey = record.s3?.object?.key;
      if (!record.eventName?.startsWith('s3:ObjectCreated:') || rawKey === undefined) continue;
      let key: string;
      try {
        key = decodeURIComponent(rawKey.replace(/\+/g, '%20'));
      } catch {
        continue;
      }
      if (key.startsWith(prefix) && key.endsWith('.pmtiles')) report(key.slice(prefix.length));
    }
  };

  /** Reads the stream line by line until it ends; rejects on a broken or foreign stream. */
  const consume = (res: IncomingMessage) =>
    new Promise<void>((resolve, reject) => {
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        pending = (pending + chunk).trimStart();
        try {
          let newline: number;
          while ((newline = pending.indexOf('\n')) >= 0) {
            const line = pending.slice(0, newline).trim();
            pending = pending.slice(newline + 1).trimStart();
            if (line !== '') handleLine(line);
          }
          if (pending.startsWith('<')) handleLine(pending);
          if (pending.length > MAX_LINE_CHARS) throw new Error('notification line too long');
        } catch (err) {
          res.destroy();
          reject(err);
        }
      });
      res.on('end', () => resolve());
      res.on('error', reject);
      res.on('close', () => resolve()); // destroyed by stop(): nothing more to read
    });

  const markUnsupported = (reason: string) => {
    state = 'unsupported';
    logger.info(
      { bucket, reason },
      'bucket notifications unsupported; relying on periodic listing',
    );
    firstAnswer();
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const loop = async () => {
    let delay = retryMinMs;
    while (!stopped) {
      try {
        const res = await client.withRequestScope(
          { onRequest: (req) => (request = req), idleTimeoutMs: LISTEN_IDLE_MS },
          () =>
            client.minio.makeRequestAsync(
              { method: 'GET', bucketName: bucket, query: query.join('&') },
              '',
              [200],
            ),
        );
        response = res;
        if (stopped) break;
        if (/xml/i.test(String(res.headers['content-type'] ?? ''))) {
          res.destroy();
          throw new UnsupportedError(
            'the store answered with an XML document, not a notification stream',
          );
        }
        if (state !== 'listening')
          logger.info({ bucket, prefix }, 'listening for bucket notifications');
        state = 'listening';
        delay = retryMinMs;
        firstAnswer();
        await consume(res);
        if (!stopped && state === 'listening') state = 'connecting';
      } catch (err) {
        if (stopped) break;
        const code = (err as { code?: unknown }).code;
        if (err instanceof UnsupportedError) return markUnsupported(err.message);
        if (typeof code === 'string' && UNSUPPORTED_CODES.has(code))
          return markUnsupported(describeS3Error(err));
        if (state !== 'down') {
          logger.warn(
            { bucket, err: describeS3Error(err) },
            'bucket notification stream failed; reconnecting',
          );
        }
        state = 'down';
        firstAnswer();
      } finally {
        response = undefined;
        request = undefined;
      }
      if (stopped) break;
      await sleep(delay);
      delay = Math.min(delay * 2, retryMaxMs);
    }
  };

  const running = loop();
  const startTimer = setTimeout(firstAnswer, options.startTimeoutMs ?? client.timeoutMs);
  await started;
  clearTimeout(startTimer);

  return {
    supported: () => state === 'listening',
    async stop() {
      stopped = true;
      wake?.();
      response?.destroy();
      request?.destroy();
      await running;
    },
  };
}
