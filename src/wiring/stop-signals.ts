/**
 * Stop signals as people and supervisors send them. A supervisor sends SIGTERM once. A
 * terminal's Ctrl-C signals the whole foreground process group, and `npm run` forwards the
 * SIGINT it got to its child as well, so under npm one Ctrl-C reaches the service twice within
 * milliseconds. Treating that echo as a second Ctrl-C ("quit now") would cut the drain, so a
 * repeat of the same signal within {@link SIGNAL_REPEAT_MS} counts as the first one again, and
 * only a later one forces the exit.
 */
import { performance } from 'node:perf_hooks';

/** A repeat of the same stop signal within this many ms is the same request delivered again. */
export const SIGNAL_REPEAT_MS = 1000;

/** What a received stop signal means: stop gracefully, nothing new, or stop at once. */
export type StopSignalMeaning = 'stop' | 'repeat' | 'force';

/**
 * Classifies each received stop signal: the first of each kind is `stop`, the same kind again
 * within {@link SIGNAL_REPEAT_MS} of that first one is `repeat`, and later `force`. Each kind
 * counts on its own: the SIGTERM a parent sends after the terminal's SIGINT is no second
 * request. `now` (ms, monotonic) is a parameter so the rule is testable without waiting.
 */
export function createStopSignalClassifier(
  now: () => number = () => performance.now(),
): (signal: NodeJS.Signals) => StopSignalMeaning {
  const firstAt = new Map<NodeJS.Signals, number>();
  return (signal) => {
    const at = firstAt.get(signal);
    if (at === undefined) {
      firstAt.set(signal, now());
      return 'stop';
    }
    return now() - at < SIGNAL_REPEAT_MS ? 'repeat' : 'force';
  };
}

/** Handlers of {@link onStopSignals}. */
export interface StopSignalHandlers {
  /** The first SIGTERM, and the first SIGINT: begin a graceful stop (may run once per kind). */
  readonly stop: (signal: NodeJS.Signals) => void;
  /** The same signal again, after the repeat window: the sender insists; exit now. */
  readonly force: (signal: NodeJS.Signals) => void;
}

/** Listens for SIGTERM and SIGINT for the rest of the process's life, classified as above. */
export function onStopSignals(handlers: StopSignalHandlers): void {
  const classify = createStopSignalClassifier();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      const meaning = classify(signal);
      if (meaning === 'stop') handlers.stop(signal);
      else if (meaning === 'force') handlers.force(signal);
    });
  }
}
