/**
 * Waiting on events in tests. Tests never assert a stopwatch with little headroom (the machine
 * is shared and slow at times): they wait for the event with a wide bound and report the
 * figure, so a regression shows in the report and a slow moment does not fail the suite.
 */

/** Polls `check` every `intervalMs` until it returns true; resolves with the wait in ms. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what = 'condition',
  intervalMs = 20,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > timeoutMs)
      throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * `promise`'s outcome, or `onTimeout()`'s (its value, or what it throws) if `promise` has not
 * settled within `ms`. The timer is cleared as soon as either happens, so it never keeps the
 * test process alive.
 */
export async function settleWithin<T, F>(
  promise: Promise<T>,
  ms: number,
  onTimeout: () => F,
): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<F>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(onTimeout());
      } catch (err) {
        reject(err);
      }
    }, ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Prints a measured figure (`[figure] what: 12 ms`) for the test report. */
export function reportFigure(what: string, value: number, unit = 'ms'): void {
  console.info(`[figure] ${what}: ${Math.round(value * 10) / 10} ${unit}`);
}
