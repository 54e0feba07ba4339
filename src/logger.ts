/**
 * Structured JSON logs on stdout (pino). One logger per process, passed down as a dependency;
 * API keys are never logged, only key ids.
 */
import pino, { type Logger } from 'pino';

export type { Logger };

/** Creates the process logger at `level` (`LOG_LEVEL`). */
export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  return pino({
    level,
    base: { pid: process.pid, ...base },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['apiKey', '*.apiKey', 'req.headers.authorization', 'req.headers["x-app"]'],
      remove: true,
    },
  });
}

/** A logger that drops everything; for tests and tools that want silence. */
export function createSilentLogger(): Logger {
  return pino({ level: 'silent' });
}
