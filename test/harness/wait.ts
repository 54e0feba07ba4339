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

/** Prints a measured figure (`[figure] what: 12 ms`) for the test report. */
export function reportFigure(what: string, value: number, unit = 'ms'): void {
  console.info(`[figure] ${what}: ${Math.round(value * 10) / 10} ${unit}`);
}
