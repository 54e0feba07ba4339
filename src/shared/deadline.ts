/**
 * A deadline on a promise that cannot itself be cancelled (a file system call, a read from a
 * stuck mount): the caller stops waiting after `ms` and moves on; the operation is abandoned,
 * never awaited again, so a hang costs one pending call instead of a stuck loop.
 */

/** The error a missed deadline rejects with; `what` names the operation. */
export class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
  constructor(what: string, ms: number) {
    super(`${what} did not finish within ${ms} ms`);
  }
}

/** `work`'s outcome, or a {@link DeadlineError} after `ms`, whichever comes first. */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(what, ms)), ms);
    timer.unref();
  });
  work.catch(() => undefined); // an abandoned operation that fails later is no unhandled rejection
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
