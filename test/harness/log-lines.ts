/**
 * A real pino logger whose JSON lines a test reads back: what a replica or adapter logs is
 * asserted as the records it wrote, not as mocked calls.
 */
import { Writable } from 'node:stream';
import pino from 'pino';

/** A logger at `level` and every line it has written so far, parsed. */
export interface LoggedLines {
  readonly logger: pino.Logger;
  /** The records in the order written; the array grows as the logger writes. */
  readonly lines: Array<Record<string, unknown>>;
}

/** A pino logger at `level` (default `info`) writing into {@link LoggedLines.lines}. */
export function loggedLines(level: pino.Level = 'info'): LoggedLines {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: pino({ level }, sink) };
}
