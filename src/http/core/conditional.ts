/**
 * Conditional request evaluation (RFC 9110 §13) for immutable archives and the status
 * document. Order follows §13.2.2: If-Match, If-Unmodified-Since, If-None-Match,
 * If-Modified-Since; If-Range is evaluated separately when a Range is present. A date field
 * that is not exactly an HTTP-date (see `parseHttpDate`) is ignored, never guessed at.
 */
import { parseHttpDate } from './http-date';

export interface Validators {
  /** Strong ETag with quotes. */
  readonly etag: string;
  /** Omitted for resources without a modification date (the status document). */
  readonly lastModified?: Date;
}

export type PreconditionOutcome = 'proceed' | 'not-modified' | 'precondition-failed';

type Headers = Record<string, string | string[] | undefined>;

const ENTITY_TAG = /(W\/)?"[^"]*"/g;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}

/** Whether an If-Match / If-None-Match list matches `etag` (`*` matches any). */
function listMatches(value: string, etag: string, strong: boolean): boolean {
  if (value.trim() === '*') return true;
  for (const tag of value.match(ENTITY_TAG) ?? []) {
    if (strong ? tag === etag && !tag.startsWith('W/') : opaque(tag) === opaque(etag)) return true;
  }
  return false;
}

function seconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/** Evaluates the preconditions of a GET/HEAD against the current validators. */
export function evaluatePreconditions(headers: Headers, current: Validators): PreconditionOutcome {
  const ifMatch = header(headers, 'if-match');
  if (ifMatch !== undefined) {
    if (!listMatches(ifMatch, current.etag, true)) return 'precondition-failed';
  } else if (current.lastModified !== undefined) {
    const since = parseHttpDate(header(headers, 'if-unmodified-since'));
    if (since !== undefined && seconds(current.lastModified) > since) return 'precondition-failed';
  }
  const ifNoneMatch = header(headers, 'if-none-match');
  if (ifNoneMatch !== undefined) {
    return listMatches(ifNoneMatch, current.etag, false) ? 'not-modified' : 'proceed';
  }
  if (current.lastModified !== undefined) {
    const since = parseHttpDate(header(headers, 'if-modified-since'));
    if (since !== undefined && seconds(current.lastModified) <= since) return 'not-modified';
  }
  return 'proceed';
}

/**
 * Whether a Range may be honoured given If-Range: absent, the current strong ETag, or an
 * HTTP-date equal to Last-Modified. Anything else, a value that is no HTTP-date included, makes
 * the condition false (§13.1.5): the range is ignored and the whole representation is sent.
 */
export function ifRangeAllows(headers: Headers, current: Validators): boolean {
  const ifRange = header(headers, 'if-range')?.trim();
  if (ifRange === undefined) return true;
  if (ifRange.startsWith('"') || ifRange.startsWith('W/')) return ifRange === current.etag;
  const date = parseHttpDate(ifRange);
  return (
    date !== undefined &&
    current.lastModified !== undefined &&
    date === seconds(current.lastModified)
  );
}
