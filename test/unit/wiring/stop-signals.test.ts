/**
 * Stop signals: one Ctrl-C under `npm run` arrives twice (terminal and npm) and is one request;
 * the same signal sent again later forces; each kind counts on its own.
 */
import { createStopSignalClassifier, SIGNAL_REPEAT_MS } from '../../../src/wiring/stop-signals';

function classifierAt(start: number) {
  const clock = { now: start };
  return { clock, classify: createStopSignalClassifier(() => clock.now) };
}

it('takes the echo of a signal as the same request and a later repeat as insisting', () => {
  const { clock, classify } = classifierAt(5_000);
  expect(classify('SIGINT')).toBe('stop');
  clock.now += 3; // npm's forwarded copy of the terminal's Ctrl-C
  expect(classify('SIGINT')).toBe('repeat');
  clock.now += SIGNAL_REPEAT_MS - 4;
  expect(classify('SIGINT')).toBe('repeat');
  clock.now += 1; // a second Ctrl-C, pressed after the window
  expect(classify('SIGINT')).toBe('force');
  expect(classify('SIGINT')).toBe('force');
});

it('counts each signal on its own: a SIGTERM after a SIGINT is a first SIGTERM', () => {
  const { clock, classify } = classifierAt(0);
  expect(classify('SIGINT')).toBe('stop');
  clock.now += 2 * SIGNAL_REPEAT_MS;
  expect(classify('SIGTERM')).toBe('stop');
  expect(classify('SIGTERM')).toBe('repeat');
  clock.now += SIGNAL_REPEAT_MS;
  expect(classify('SIGTERM')).toBe('force');
});
