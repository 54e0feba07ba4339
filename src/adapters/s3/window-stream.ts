/**
 * The body handed to the HTTP layer: exactly the planned window of an upstream S3 response,
 * or an error. The HTTP response has already promised a Content-Length, so a short upstream
 * body must surface as a stream error (the connection is cut, never padded or overrun), and
 * destroying this stream - the client went away - must destroy the upstream response so its
 * socket is released at once.
 */
import { Readable } from 'node:stream';
import type { BodyPlan } from './range-response';

/** Raised when the upstream body ends or breaks before the window was delivered. */
export class UpstreamTruncatedError extends Error {
  constructor(delivered: number, expected: number, cause?: unknown) {
    super(`upstream body ended after ${delivered} of ${expected} bytes`, { cause });
    this.name = 'UpstreamTruncatedError';
  }
}

/**
 * Streams bytes `[plan.skip, plan.skip + plan.length)` of `upstream`. When the upstream has
 * more than that (a whole object sent for a small range), it is destroyed once the window is
 * complete rather than downloaded to the end; when the window is its whole body, it is left
 * to finish so a keep-alive connection can be reused.
 */
export function createWindowStream(upstream: Readable, plan: BodyPlan): Readable {
  let toSkip = plan.skip;
  let remaining = plan.length;
  let delivered = 0;
  let upstreamEnded = false;
  const hasTrailing = plan.bodyLength > plan.skip + plan.length;

  const detach = () => {
    upstream.off('data', onData);
    upstream.off('end', onEnd);
    upstream.off('close', onClose);
  };

  const out = new Readable({
    read() {
      if (!upstreamEnded) upstream.resume();
    },
    destroy(err, callback) {
      detach();
      // Complete and nothing left upstream: let it finish so its connection is reused.
      if (!upstreamEnded && (remaining > 0 || hasTrailing)) upstream.destroy();
      else if (!upstreamEnded) upstream.resume();
      callback(err);
    },
  });

  const complete = () => {
    out.push(null);
    if (hasTrailing) {
      detach();
      upstream.destroy();
    }
  };

  function onData(chunk: Buffer) {
    if (remaining === 0) return;
    let piece = chunk;
    if (toSkip > 0) {
      const skipped = Math.min(toSkip, piece.length);
      toSkip -= skipped;
      piece = piece.subarray(skipped);
    }
    if (piece.length === 0) return;
    if (piece.length > remaining) piece = piece.subarray(0, remaining);
    remaining -= piece.length;
    delivered += piece.length;
    const more = out.push(piece);
    if (remaining === 0) complete();
    else if (!more) upstream.pause();
  }

  function onEnd() {
    upstreamEnded = true;
    if (remaining > 0) out.destroy(new UpstreamTruncatedError(delivered, plan.length));
  }

  function onClose() {
    if (!upstreamEnded && remaining > 0)
      out.destroy(new UpstreamTruncatedError(delivered, plan.length));
  }

  // Errors surface through 'close' (and the truncation error); a listener keeps an upstream
  // error from being unhandled after this stream is gone.
  upstream.on('error', (err) => {
    if (remaining > 0 && !out.destroyed)
      out.destroy(new UpstreamTruncatedError(delivered, plan.length, err));
  });
  upstream.on('data', onData);
  upstream.on('end', onEnd);
  upstream.on('close', onClose);
  if (plan.length === 0) complete();
  return out;
}
