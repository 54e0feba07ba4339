/**
 * A small window of an upstream S3 response read into one Buffer: exactly the planned bytes or
 * an error, never a short or padded result. Used for windows small enough to arrive in one or
 * two socket reads (see `BUFFERED_WINDOW_BYTES`), where a stream would only add per-read cost.
 */
import type { Readable } from 'node:stream';
import { ClientGoneError } from '../../domain/archive-errors';
import type { BodyPlan } from './range-response';
import { UpstreamTruncatedError } from './window-stream';

/**
 * Resolves with bytes `[plan.skip, plan.skip + plan.length)` of `upstream`. When the upstream
 * has more (a whole object sent for a small range) it is destroyed once the window is complete;
 * when the window is its whole body it is read to its end, so the keep-alive connection is
 * reused. `signal` (the client left) destroys the upstream and rejects with `ClientGoneError`;
 * an upstream that ends, errs or closes early rejects with `UpstreamTruncatedError`.
 * `onData` is called for every chunk (store activity).
 */
export function readWindow(
  upstream: Readable,
  plan: BodyPlan,
  signal: AbortSignal,
  onData: () => void,
): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const out = Buffer.allocUnsafe(plan.length);
    const trailing = plan.bodyLength > plan.skip + plan.length;
    let toSkip = plan.skip;
    let filled = 0;
    let done = false;

    const finish = (err: Error | undefined) => {
      if (done) return;
      done = true;
      upstream.off('data', onChunk);
      upstream.off('end', onEnd);
      upstream.off('close', onClose);
      signal.removeEventListener('abort', onAbort);
      if (err !== undefined || trailing) upstream.destroy();
      if (err !== undefined) reject(err);
      else resolve(out);
    };
    const onChunk = (chunk: Buffer) => {
      onData();
      let start = 0;
      if (toSkip > 0) {
        start = Math.min(toSkip, chunk.length);
        toSkip -= start;
      }
      const take = Math.min(chunk.length - start, plan.length - filled);
      if (take > 0) filled += chunk.copy(out, filled, start, start + take);
      // Whole body wanted: resolve at its end, so the socket goes back to the pool first.
      if (filled === plan.length && trailing) finish(undefined);
    };
    const onEnd = () =>
      finish(filled === plan.length ? undefined : new UpstreamTruncatedError(filled, plan.length));
    const onClose = () => finish(new UpstreamTruncatedError(filled, plan.length));
    const onAbort = () => finish(new ClientGoneError());

    // Errors surface through 'close'; this listener keeps them from being unhandled.
    upstream.on('error', (err) => {
      if (!done) finish(new UpstreamTruncatedError(filled, plan.length, err));
    });
    if (signal.aborted) return finish(new ClientGoneError());
    signal.addEventListener('abort', onAbort, { once: true });
    upstream.on('data', onChunk);
    upstream.on('end', onEnd);
    upstream.on('close', onClose);
    if (plan.length === 0 && trailing) finish(undefined);
  });
}
