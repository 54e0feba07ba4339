/**
 * Ending a process without losing what it wrote. `process.exit` ends the process at once, and
 * on a pipe Node's stdout and stderr queue what the reader has not taken yet (a pipe holds
 * 64 KiB): a command whose reader is slower than it (`keys usage --json | (sleep 1; wc -c)`)
 * lost everything past the first 64 KiB and still exited 0. Every entry point ends through
 * {@link exitWhenWritten}, which waits until both streams have handed everything to the
 * operating system; a stream that cannot be written (the reader went away: `EPIPE`) makes the
 * exit status {@link OUTPUT_FAILED_EXIT_CODE} rather than a silent success.
 */

/** `EX_IOERR` of sysexits.h: the command's output could not be written. */
export const OUTPUT_FAILED_EXIT_CODE = 74;

type Output = NodeJS.WriteStream;

let failed: Error | undefined;
let watching = false;

/**
 * Notes a write error on stdout or stderr instead of letting it crash the process (an `error`
 * event with no listener is thrown). Idempotent; {@link exitWhenWritten} calls it.
 */
export function watchOutputErrors(): void {
  if (watching) return;
  watching = true;
  for (const stream of [process.stdout, process.stderr] as Output[])
    stream.on('error', (error) => void (failed ??= error));
}

/** Calls `done` once everything written to `stream` so far has left the process (or failed). */
function whenFlushed(stream: Output, done: () => void): void {
  if (stream.destroyed || !stream.writable) {
    done();
    return;
  }
  // Writes complete in order: this empty one's callback runs after every earlier chunk's.
  stream.write('', (error) => {
    if (error) failed ??= error;
    done();
  });
}

/**
 * Exits with `code` once stdout and stderr have written everything queued on them. When
 * output was lost, exits {@link OUTPUT_FAILED_EXIT_CODE} instead of a 0 that would claim the
 * output is whole (a failing `code` is kept: it says more). Waits as long as the reader takes,
 * as a blocking write would.
 */
export function exitWhenWritten(code: number): void {
  watchOutputErrors();
  process.exitCode = code;
  let waiting = 2;
  const finish = () => {
    if (--waiting > 0) return;
    // A failed write's `error` event comes a turn later than its callback.
    setImmediate(() =>
      process.exit(failed !== undefined && code === 0 ? OUTPUT_FAILED_EXIT_CODE : code),
    );
  };
  whenFlushed(process.stdout as Output, finish);
  whenFlushed(process.stderr as Output, finish);
}
