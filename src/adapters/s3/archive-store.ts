/**
 * Archive bytes from an S3-compatible bucket: the production `ArchiveStore`. Each range is one
 * plain GET of absolute offsets computed by the service (never a suffix range) on a presigned
 * URL cached per object, over the client's keep-alive pool: no signing or SDK plumbing per read.
 * Status, Content-Range, size and ETag are checked before the stream is returned: the response
 * has fixed its Content-Length and must never carry wrong bytes. Only what says the store is
 * failing counts against it (the breaker): a refused or hanging connection, no first byte within
 * `timeoutMs` of getting a socket while it delivered nothing to other reads either (else it is
 * busy: `store-busy`), a 5xx. A missing, replaced or forbidden object is a fact about that
 * object (`ArchiveNotFoundError`, `ArchiveObjectError`); waiting for a free local socket is
 * local (`StoreBusyError`); a client that leaves is the client's (`ClientGoneError`). None of
 * those moves the breaker.
 */
import type { ClientRequest } from 'node:http';
import type { Readable } from 'node:stream';
import {
  ArchiveNotFoundError,
  ArchiveObjectError,
  ClientGoneError,
  StoreUnavailableError,
} from '../../domain/archive-errors';
import type { ArchiveBody, ArchiveMeta, ArchiveStore, ByteWindow } from '../../domain/ports';
import type { Logger } from '../../logger';
import { createCircuitBreaker, type BreakerPermit } from './circuit-breaker';
import { objectKey, S3TimeoutError, type S3Client } from './client';
import { createPresignedUrls } from './presigned-urls';
import { createStoreActivity } from './store-activity';
import { planRangeBody, RangeMismatchError } from './range-response';
import { readWindow } from './window-buffer';
import { createWindowStream, UpstreamTruncatedError } from './window-stream';
import {
  errorCode,
  objectProblemReporter,
  RequestCancelled,
  type Upstream,
  type Verdict,
} from './upstream';
import { createWindowRequester } from './window-request';

/**
 * Windows up to this size come back as one Buffer, read to the end before `openRange`
 * resolves; larger ones stream. A small window (a client's 16 KiB header read, a tile, a 64 KiB
 * cache block) arrives from the store in one or two socket reads, so waiting for all of it costs
 * no latency, while a stream costs every read a Readable, a pipeline into the response (its own
 * AbortController, end-of-stream listeners, a DOMException when it finishes), separate writes of
 * headers and body and a share of the read gate held until the client has the bytes. As a Buffer
 * the HTTP layer answers with one `end()`. Equal to the block cache's largest cached window.
 */
export const BUFFERED_WINDOW_BYTES = 256 * 1024;

/** `ArchiveStore` plus the breaker state, for metrics and health. */
export interface S3ArchiveStore extends ArchiveStore {
  /** A Buffer for windows up to `BUFFERED_WINDOW_BYTES`, a stream for larger ones. */
  openRange(meta: ArchiveMeta, window: ByteWindow, signal: AbortSignal): Promise<ArchiveBody>;
  /** True while the circuit breaker refuses requests (or its trial request is pending). */
  breakerOpen(): boolean;
}

export interface S3ArchiveStoreOptions {
  readonly client: S3Client;
  readonly bucket: string;
  /** Object key prefix; keys are `{prefix}{YYYYMMDDHHmm}.pmtiles`. */
  readonly prefix: string;
  /**
   * Longest wait for the upstream response headers, counted from the moment the request has a
   * socket (connecting included, queueing for a pooled socket not), before a 503.
   */
  readonly timeoutMs: number;
  readonly logger: Logger;
  /** Consecutive store failures that open the breaker (default 5). */
  readonly breakerThreshold?: number;
  /** How often an open breaker probes the store; it closes on the first answer (default 1000 ms). */
  readonly breakerCooldownMs?: number;
  /**
   * Longest gap in an upstream body once it flows (default 30000 ms). Longer than the
   * first-byte limit because a slow client legitimately pauses the upstream; the HTTP layer's
   * send timeout cuts a client that stops reading before this fires.
   */
  readonly bodyIdleTimeoutMs?: number;
  /** Longest wait for a free pooled socket before the read is refused (default 5000 ms). */
  readonly socketWaitMs?: number;
  /** Lifetime of the presigned URLs (default 3600 s; re-issued after half of it). */
  readonly presignExpirySeconds?: number;
}

/** Consecutive store failures that open the breaker, unless the options say otherwise. */
export const DEFAULT_BREAKER_THRESHOLD = 5;
/** How often an open breaker probes the store, unless the options say otherwise. */
export const DEFAULT_BREAKER_COOLDOWN_MS = 1_000;

/** Creates the store. The client's agent is destroyed by `close()`. */
export function createS3ArchiveStore(options: S3ArchiveStoreOptions): S3ArchiveStore {
  const { client, bucket, prefix, timeoutMs, logger } = options;
  const bodyIdleTimeoutMs = options.bodyIdleTimeoutMs ?? 30_000;
  const socketWaitMs = options.socketWaitMs ?? 5_000;
  // The breaker's trials use the store's own probe.
  const probe = async () => {
    let request: ClientRequest | undefined;
    const timer = setTimeout(() => request?.destroy(new S3TimeoutError(timeoutMs)), timeoutMs);
    try {
      const exists = await client.withRequestScope(
        { onRequest: (req) => (request = req), idleTimeoutMs: timeoutMs },
        () => client.minio.bucketExists(bucket),
      );
      if (!exists) throw new Error(`bucket ${bucket} does not exist`);
    } finally {
      clearTimeout(timer);
    }
  };
  const breaker = createCircuitBreaker({
    threshold: options.breakerThreshold ?? DEFAULT_BREAKER_THRESHOLD,
    cooldownMs: options.breakerCooldownMs ?? DEFAULT_BREAKER_COOLDOWN_MS,
    trial: probe,
    onChange: (open) => {
      if (open) logger.warn({ bucket }, 'object store circuit breaker opened; failing fast');
      else logger.info({ bucket }, 'object store circuit breaker closed');
    },
  });
  const urls = createPresignedUrls({
    minio: client.minio,
    bucket,
    expirySeconds: options.presignExpirySeconds,
  });
  const activity = createStoreActivity();

  const objectProblem = objectProblemReporter(logger);

  const fetchWindow = createWindowRequester({
    client,
    urls,
    activity,
    timeoutMs,
    socketWaitMs,
  });

  return {
    async openRange(meta, window, signal) {
      if (signal.aborted) throw new ClientGoneError();
      const permit: BreakerPermit | undefined = breaker.acquire();
      if (permit === undefined) {
        // Logged once when the breaker opened, not once per refused request.
        throw new StoreUnavailableError('circuit breaker open', {
          alreadyReported: true,
          retryAfterS: breaker.retryAfterMs() / 1000,
        });
      }
      const settle = (verdict: 'success' | Verdict) => permit[verdict]();
      const key = objectKey(prefix, meta.timestamp);
      let upstream: Upstream;
      try {
        upstream = await fetchWindow(key, window, signal);
      } catch (err) {
        if (err instanceof RequestCancelled && err.verdict === 'release') {
          settle('release');
          throw err.reason;
        }
        if (signal.aborted) {
          settle('release');
          throw new ClientGoneError();
        }
        settle('failure');
        const cause = err instanceof RequestCancelled ? err.reason : err;
        logger.warn({ key, err: (cause as Error).message }, 'object store read failed');
        throw new StoreUnavailableError((cause as Error).message, { cause });
      }
      const { response, request } = upstream;
      const status = response.statusCode ?? 0;

      if (status !== 200 && status !== 206) {
        const code = await errorCode(response).catch(() => undefined);
        if (status === 404 && code !== 'NoSuchBucket') {
          settle('success');
          throw new ArchiveNotFoundError(`${key} (${code ?? 'status 404'})`);
        }
        if (status === 403 || status === 416 || (status >= 400 && status < 500 && status !== 404)) {
          settle('success');
          const reason = status === 403 ? 'forbidden' : status === 416 ? 'size' : 'status';
          throw objectProblem(
            key,
            new ArchiveObjectError(reason, `status ${status} ${code ?? ''}`.trim()),
          );
        }
        settle('failure');
        const cause = new Error(`object store answered ${status} ${code ?? ''}`.trim());
        logger.warn({ key, err: cause.message }, 'object store read failed');
        throw new StoreUnavailableError(cause.message, { cause });
      }

      let plan;
      try {
        plan = planRangeBody(status, response.headers, {
          offset: window.offset,
          length: window.length,
          size: meta.size,
          etag: meta.etag,
        });
      } catch (err) {
        response.destroy();
        settle('success'); // the store answered; this object is not the published version
        const mismatch = err as RangeMismatchError;
        throw objectProblem(key, new ArchiveObjectError(mismatch.reason, mismatch.detail));
      }
      settle('success');

      if (window.length <= BUFFERED_WINDOW_BYTES) {
        // The client waits for headers until the whole window is in: a body that stalls counts
        // like a late first byte (`timeoutMs`), not like a slow client (`bodyIdleTimeoutMs`).
        request.setTimeout(timeoutMs, () => request.destroy(new S3TimeoutError(timeoutMs)));
        try {
          return await readWindow(response, plan, signal, activity.note);
        } catch (err) {
          if (err instanceof ClientGoneError) throw err;
          logger.warn({ key, err: (err as Error).message }, 'object store body failed');
          throw new StoreUnavailableError((err as Error).message, { cause: err });
        }
      }

      request.setTimeout(bodyIdleTimeoutMs, () =>
        request.destroy(new S3TimeoutError(bodyIdleTimeoutMs)),
      );
      const body = createWindowStream(response, plan);
      response.on('data', activity.note); // after the window stream's listener: flow unchanged
      if (signal.aborted) {
        body.destroy();
        throw new ClientGoneError();
      }
      const onAbort = () => body.destroy();
      signal.addEventListener('abort', onAbort, { once: true });
      body.once('close', () => signal.removeEventListener('abort', onAbort));
      // Stream errors are the consumer's; only a store that broke off mid-body is worth a warning.
      body.on('error', (err) => {
        if (err instanceof UpstreamTruncatedError)
          logger.warn({ key, err: err.message }, 'object store body failed');
      });
      return body as Readable;
    },

    probe,

    breakerOpen: () => breaker.isOpen(),

    async close() {
      breaker.close();
      client.close();
    },
  };
}
