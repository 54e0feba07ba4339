/**
 * Checks an upstream answer to a ranged GET before a byte of it is used. The response to our
 * client already carries a fixed Content-Length and Content-Range, so the upstream bytes must
 * be exactly the ones asked for. Stores do not always honour a range (s3rver 3.7.1 answers
 * `bytes=0-0` with the whole object as 206, some stores answer 200 with the whole object);
 * when the answer still contains the window and says where, the window is cut out of it
 * locally. Any other disagreement is an error: never send wrong bytes.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ArchiveObjectReason } from '../../domain/archive-errors';
import { normalizeEtag } from './etag';

/** Which part of the upstream body to deliver: skip `skip` bytes, then pass `length`. */
export interface BodyPlan {
  readonly skip: number;
  readonly length: number;
  /** Bytes the upstream announced; more than `skip + length` means the rest is not needed. */
  readonly bodyLength: number;
}

/** What was asked of the store. */
export interface RangeRequest {
  readonly offset: number;
  readonly length: number;
  /**
   * The object size the caller relies on. Known: exactly `length` bytes must come back and the
   * upstream size must agree. Unknown (`undefined`): up to `length` bytes, fewer when the
   * object is shorter (a head read).
   */
  readonly size: number | undefined;
  /** The ETag the caller relies on; a different upstream ETag means a different object. */
  readonly etag: string | undefined;
}

/** The upstream answer does not provably contain the requested bytes. */
export class RangeMismatchError extends Error {
  constructor(
    /** What disagreed, for counting by reason. */
    readonly reason: ArchiveObjectReason,
    readonly detail: string,
  ) {
    super(`upstream range answer rejected: ${detail}`);
    this.name = 'RangeMismatchError';
  }
}

interface ContentRange {
  readonly start: number;
  readonly end: number;
  readonly total: number | undefined;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseLength(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

function parseContentRange(value: string | undefined): ContentRange | undefined {
  const match = value === undefined ? null : /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(value.trim());
  if (!match) return undefined;
  const [, start, end, total] = match as unknown as [string, string, string, string];
  return {
    start: Number(start),
    end: Number(end),
    total: total === '*' ? undefined : Number(total),
  };
}

/**
 * Plans the body of an upstream answer to `request`, or throws `RangeMismatchError`. The plan
 * never reaches past what the upstream announced, so a correct plan plus an exact-length
 * reader gives exactly the requested bytes or an error.
 */
export function planRangeBody(
  status: number,
  headers: IncomingHttpHeaders,
  request: RangeRequest,
): BodyPlan {
  const { offset, length, size } = request;
  const upstreamEtag = header(headers, 'etag');
  if (request.etag !== undefined && upstreamEtag !== undefined) {
    if (normalizeEtag(upstreamEtag) !== normalizeEtag(request.etag)) {
      throw new RangeMismatchError('etag', `ETag ${upstreamEtag}, expected ${request.etag}`);
    }
  }
  const contentLength = parseLength(header(headers, 'content-length'));

  if (status === 206) {
    const range = parseContentRange(header(headers, 'content-range'));
    if (range === undefined)
      throw new RangeMismatchError('range', `206 without a usable Content-Range`);
    const { start, end, total } = range;
    if (size !== undefined && total !== size) {
      throw new RangeMismatchError('size', `object size ${total ?? '*'}, expected ${size}`);
    }
    // An empty object has no byte to range over; s3rver still answers `bytes 0-0/0`.
    if (size === undefined && total === 0)
      return { skip: 0, length: 0, bodyLength: contentLength ?? 0 };
    if (end < start || (total !== undefined && end >= total)) {
      throw new RangeMismatchError(
        'range',
        `invalid Content-Range bytes ${start}-${end}/${total ?? '*'}`,
      );
    }
    if (contentLength !== undefined && contentLength !== end - start + 1) {
      throw new RangeMismatchError(
        'range',
        `Content-Length ${contentLength} for bytes ${start}-${end}`,
      );
    }
    const wantEnd =
      size === undefined && total !== undefined
        ? Math.min(offset + length, total) - 1
        : offset + length - 1;
    if (start > offset || end < wantEnd) {
      throw new RangeMismatchError(
        'range',
        `got bytes ${start}-${end}, asked ${offset}-${offset + length - 1}`,
      );
    }
    return { skip: offset - start, length: wantEnd - offset + 1, bodyLength: end - start + 1 };
  }

  if (status === 200) {
    // The whole object: usable only when its size is announced (and agrees).
    if (contentLength === undefined)
      throw new RangeMismatchError('range', '200 without Content-Length');
    if (size !== undefined && contentLength !== size) {
      throw new RangeMismatchError('size', `200 with ${contentLength} bytes, expected ${size}`);
    }
    const available = Math.max(0, Math.min(offset + length, contentLength) - offset);
    if (size !== undefined && available !== length) {
      throw new RangeMismatchError(
        'size',
        `window ${offset}+${length} outside ${contentLength} bytes`,
      );
    }
    return { skip: offset, length: available, bodyLength: contentLength };
  }

  throw new RangeMismatchError('status', `status ${status}`);
}
