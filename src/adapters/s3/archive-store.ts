/**
 * Archive bytes from an S3-compatible bucket: the production `ArchiveStore`. Each range is one
 * ranged GET of absolute offsets computed by the service (never a suffix range); the upstream
 * status, Content-Range, size and ETag are checked before the stream is returned, because the
 * HTTP response has already fixed its Content-Length and must never carry wrong bytes.
 * Failures map to the service's errors where they are caught: a missing object is 404, every
 * other store failure 503 with the detail only in `cause`. A circuit breaker fails fast while
 * the store is down, and a client that goes away takes its upstream request with it.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { ArchiveMeta, ArchiveStore, ByteWindow } from '../../domain/ports';
import { AlreadyReportedError, NotFoundError, ServiceUnavailableError } from '../../errors';
import type { Logger } from '../../logger';
import { createCircuitBreaker, type BreakerPermit } from './circuit-breaker';
import { objectKey, S3TimeoutError, type S3Client } from './client';
import { describeS3Error, isS3NotFound } from './errors';
import { planRangeBody, RangeMismatchError } from './range-response';
import { createWindowStream, UpstreamTruncatedError } from './window-stream';

/** `ArchiveStore` plus the breaker state, for metrics and health. */
export interface S3ArchiveStore extends ArchiveStore {
  /** Always a stream: the bytes come from the network. */
  openRange(meta: ArchiveMeta, window: ByteWindow, signal: AbortSignal): Promise<Readable>;
  /** True while the circuit breaker refuses requests (or its trial request is pending). */
  breakerOpen(): boolean;
}

export interface S3ArchiveStoreOptions {
  readonly client: S3Client;
  readonly bucket: string;
  /** Object key prefix; keys are `{prefix}{YYYYMMDDHHmm}.pmtiles`. */
  readonly prefix: string;
  /** Longest wait for the upstream response headers (time to first byte) before a 503. */
  readonly timeoutMs: number;
  readonly logger: Logger;
  /** Consecutive store failures that open the breaker (default 5). */
  readonly breakerThreshold?: number;
  /** How long an open breaker fails fast before a trial request (default 5000 ms). */
  readonly breakerCooldownMs?: number;
  /**
   * Longest gap in an upstream body once it flows (default 30000 ms). Longer than the
   * first-byte limit because a slow client legitimately pauses the upstream.
   */
  readonly bodyIdleTimeoutMs?: number;
}

/** Why an upstream request was cut before its response arrived. */
class ClientGoneError extends Error {
  constructor() {
    super('client went away before the store answered');
    this.name = 'ClientGoneError';
  }
}

interface Upstream {
  readonly response: IncomingMessage;
  readonly request: ClientRequest | undefined;
}

function isConnectionReset(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

/** Creates the store. The client's agent is destroyed by `close()`. */
export function createS3ArchiveStore(options: S3ArchiveStoreOptions): S3ArchiveStore {
  const { client, bucket, prefix, timeoutMs, logger } = options;
  const bodyIdleTimeoutMs = options.bodyIdleTimeoutMs ?? 30_000;
  const breaker = createCircuitBreaker({
    threshold: options.breakerThreshold ?? 5,
    cooldownMs: options.breakerCooldownMs ?? 5_000,
  });
  let breakerWasOpen = false;
  /** Failures of a request written into a pooled connection the store had closed. */
  const staleSocketFailures = new WeakSet<object>();

  const noteBreaker = () => {
    const open = breaker.isOpen();
    if (open === breakerWasOpen) return;
    breakerWasOpen = open;
    if (open) logger.warn({ bucket }, 'object store circuit breaker opened; failing fast');
    else logger.info({ bucket }, 'object store circuit breaker closed');
  };

  /**
   * Sends a GET for the window and resolves with the response once its headers arrive. At
   * `timeoutMs`, or when `signal` aborts, the request is destroyed and the call rejects.
   */
  const requestOnce = (key: string, window: ByteWindow, signal: AbortSignal, budgetMs: number) =>
    new Promise<Upstream>((resolve, reject) => {
      let request: ClientRequest | undefined;
      let cancelled: Error | undefined;
      let settled = false;
      const settle = () => {
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      const cancel = (reason: Error) => {
        if (settled) return;
        settle();
        cancelled = reason;
        request?.destroy(reason);
        reject(reason);
      };
      const timer = setTimeout(() => cancel(new S3TimeoutError(timeoutMs)), budgetMs);
      const onAbort = () => cancel(new ClientGoneError());
      signal.addEventListener('abort', onAbort, { once: true });

      const scope = {
        onRequest: (req: ClientRequest) => {
          request = req;
          if (cancelled) req.destroy(cancelled);
        },
      };
      client
        .withRequestScope(scope, () =>
          client.minio.getPartialObject(bucket, key, window.offset, window.length),
        )
        .then(
          (res) => {
            if (settled) return void res.destroy(); // lost the race: release its socket
            settle();
            resolve({ response: res as IncomingMessage, request });
          },
          (err: unknown) => {
            if (settled) return;
            settle();
            if (request?.reusedSocket && isConnectionReset(err))
              staleSocketFailures.add(err as object);
            reject(err);
          },
        );
    });

  /**
   * One ranged GET within `timeoutMs`. A keep-alive connection the store closed just as it was
   * reused fails before any response; the GET is idempotent, so it is retried once on a fresh
   * connection within what is left of the time limit.
   */
  const requestWindow = async (
    key: string,
    window: ByteWindow,
    signal: AbortSignal,
  ): Promise<Upstream> => {
    const started = Date.now();
    try {
      return await requestOnce(key, window, signal, timeoutMs);
    } catch (err) {
      if (!staleSocketFailures.has(err as object) || signal.aborted) throw err;
      return requestOnce(key, window, signal, Math.max(1, timeoutMs - (Date.now() - started)));
    }
  };

  return {
    async openRange(meta, window, signal) {
      if (signal.aborted) throw new ServiceUnavailableError({ cause: new ClientGoneError() });
      const permit: BreakerPermit | undefined = breaker.acquire();
      if (permit === undefined) {
        throw new ServiceUnavailableError({
          // Logged once when the breaker opened (noteBreaker), not once per refused request.
          cause: new AlreadyReportedError('object store circuit breaker open'),
        });
      }
      const key = objectKey(prefix, meta.timestamp);
      let response: IncomingMessage;
      let request: ClientRequest | undefined;
      try {
        ({ response, request } = await requestWindow(key, window, signal));
      } catch (err) {
        if (signal.aborted) {
          permit.release();
          throw new ServiceUnavailableError({ cause: err });
        }
        if (isS3NotFound(err)) {
          permit.success();
          noteBreaker();
          throw new NotFoundError({ cause: err });
        }
        permit.failure();
        noteBreaker();
        logger.warn({ key, err: describeS3Error(err) }, 'object store read failed');
        throw new ServiceUnavailableError({ cause: err });
      }

      let plan;
      try {
        plan = planRangeBody(response.statusCode ?? 0, response.headers, {
          offset: window.offset,
          length: window.length,
          size: meta.size,
          etag: meta.etag,
        });
      } catch (err) {
        response.destroy();
        permit.failure();
        noteBreaker();
        logger.error(
          { key, err: (err as RangeMismatchError).message },
          'object store answered the wrong bytes',
        );
        throw new ServiceUnavailableError({ cause: err });
      }
      permit.success();
      noteBreaker();

      request?.setTimeout(bodyIdleTimeoutMs);
      const body = createWindowStream(response, plan);
      if (signal.aborted) {
        body.destroy();
        throw new ServiceUnavailableError({ cause: new ClientGoneError() });
      }
      const onAbort = () => body.destroy();
      signal.addEventListener('abort', onAbort, { once: true });
      body.once('close', () => signal.removeEventListener('abort', onAbort));
      // The consumer handles stream errors (the HTTP layer cuts the connection). Here only a
      // store that broke off mid-body is worth a warning; a client leaving is routine.
      body.on('error', (err) => {
        if (err instanceof UpstreamTruncatedError)
          logger.warn({ key, err: err.message }, 'object store body failed');
      });
      return body as Readable;
    },

    async probe() {
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
    },

    breakerOpen: () => breaker.isOpen(),

    async close() {
      client.close();
    },
  };
}
