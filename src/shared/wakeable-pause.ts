/**
 * A pause a loop takes between passes that another event can cut short (leadership taken,
 * stop): `wake()` ends the pause in progress at once, and is a no-op when none is.
 */
export interface WakeablePause {
  /** Waits `ms`, or less when woken. */
  pause(ms: number): Promise<void>;
  /** Ends the pause in progress, if any. */
  wake(): void;
}

export function createWakeablePause(): WakeablePause {
  let wake: (() => void) | undefined;
  return {
    pause: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(finish, ms);
        function finish() {
          clearTimeout(timer);
          if (wake === finish) wake = undefined;
          resolve();
        }
        wake = finish;
      }),
    wake: () => wake?.(),
  };
}
