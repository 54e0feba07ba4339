/**
 * The stored form of a {@link FileVerdict}: JSON, read back defensively (a store edited by hand
 * or written by another version never yields a malformed verdict, only none).
 */
import type { FileVerdict } from '../domain/producer-ports';

/** A verdict from stored JSON, or `undefined` when the value is not one. */
export function decodeVerdict(value: unknown): FileVerdict | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { version, attempts, refused } = value as Record<string, unknown>;
  if (!Number.isInteger(attempts) || (attempts as number) < 0) return undefined;
  if (version !== undefined && typeof version !== 'string') return undefined;
  if (refused !== undefined && typeof refused !== 'string') return undefined;
  return { version, attempts: attempts as number, refused };
}

/** `text` parsed as JSON, or `undefined`. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
