/**
 * Coalesces triggers of an async job: never two runs at once, and a trigger that arrives
 * during a run causes exactly one more run afterwards (no event is lost, none is doubled).
 */
export interface SerialTrigger {
  trigger(): void;
  /** Resolves when no run is in progress or pending. */
  idle(): Promise<void>;
}

export function createSerialTrigger(
  job: () => Promise<void>,
  onError: (err: unknown) => void,
): SerialTrigger {
  let running: Promise<void> | undefined;
  let again = false;

  const loop = async () => {
    do {
      again = false;
      try {
        await job();
      } catch (err) {
        onError(err);
      }
    } while (again);
    running = undefined;
  };

  return {
    trigger() {
      if (running) {
        again = true;
        return;
      }
      running = loop();
    },
    async idle() {
      while (running) await running;
    },
  };
}
