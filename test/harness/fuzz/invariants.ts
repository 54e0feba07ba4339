/**
 * The invariants every response of the API must satisfy, whatever the request: checked after
 * each generated case. A violation throws with the request shown, so fast-check reports (and
 * shrinks to) the offending input together with its seed.
 *
 * - an answer within the per-request timeout (no hang), never a 5xx;
 * - `X-Content-Type-Options: nosniff`;
 * - exact framing: `Content-Length` present and equal to the body length, never chunked;
 * - every 4xx is the error record `{"error":{"code":N,"message":<reason phrase>}}` with
 *   `application/json`, and carries no representation validators;
 * - every 206 body is byte-identical to the archive slice its `Content-Range` names, every
 *   200 archive body is the whole archive, identified by its ETag;
 * - the archive store is only ever asked for published timestamps, for windows inside the
 *   archive, only for a GET answered 200/206, and with exactly the window that was sent;
 * - the sentinel bytes of unpublished files never appear in a response.
 */
import { tally } from './fuzz-run';
import { ERROR_MESSAGES, errorRecordText, type HostileApi } from './hostile-api';
import type { RawHttpResponse, RawOutcome } from '../raw-socket';

export interface CaseExpectation {
  /** Method as the server will see it (upper case for HEAD detection). */
  readonly method: string;
  /** A closed connection without a response is acceptable (e.g. CONNECT without a handler). */
  readonly allowClose?: boolean;
  /** Store reads cannot be attributed to one response (pipelined requests): the caller checks them. */
  readonly skipStoreCalls?: boolean;
  /** Set by the checker: the answer is a tile or TileJSON built from the archive's directories. */
  readonly readsDirectories?: boolean;
}

export class InvariantViolation extends Error {}

function fail(what: string, request: Buffer | string, detail = ''): never {
  const shown = JSON.stringify(
    (Buffer.isBuffer(request) ? request.toString('latin1') : request).slice(0, 600),
  );
  throw new InvariantViolation(`${what}${detail ? `: ${detail}` : ''}\n  request: ${shown}`);
}

function describe(res: RawHttpResponse): string {
  const head = res.headerLines.map(([n, v]) => `${n}: ${v}`).join(' | ');
  return `${res.status} ${res.reason} [${head}] body=${JSON.stringify(res.body.subarray(0, 200).toString('latin1'))}`;
}

/** Checks one outcome against every invariant; returns the response when there was one. */
export function checkOutcome(
  api: HostileApi,
  request: Buffer | string,
  outcome: RawOutcome,
  expectation: CaseExpectation,
): RawHttpResponse | undefined {
  tally(outcome.kind === 'response' ? outcome.response.status : outcome.kind);
  if (outcome.kind === 'timeout') fail(`no answer within ${outcome.elapsedMs} ms (hang)`, request);
  if (outcome.kind === 'closed') {
    if (expectation.allowClose) {
      checkStoreCalls(api, request, undefined, expectation);
      return undefined;
    }
    fail(
      'connection closed without a response',
      request,
      JSON.stringify(outcome.received.toString('latin1')),
    );
  }
  const res = outcome.response;
  checkResponse(api, request, res, expectation);
  return res;
}

export function checkResponse(
  api: HostileApi,
  request: Buffer | string,
  res: RawHttpResponse,
  expectation: CaseExpectation,
): void {
  const head = expectation.method.toUpperCase() === 'HEAD';
  const d = describe(res);
  if (res.status >= 500) fail('5xx answer', request, d);
  if (res.header('x-content-type-options') !== 'nosniff')
    fail('missing X-Content-Type-Options: nosniff', request, d);

  for (const hay of [
    res.body,
    Buffer.from(res.headerLines.map(([n, v]) => `${n}:${v}`).join('\n'), 'latin1'),
  ]) {
    if (hay.includes(api.sentinel))
      fail('response contains bytes of a file that must never be served', request, d);
  }

  const bodiless = res.status === 204 || res.status === 304;
  const length = res.header('content-length');
  if (res.chunked)
    fail('chunked response (every response has an exact Content-Length)', request, d);
  if (!bodiless) {
    if (length === undefined || !/^\d+$/.test(length)) fail('no exact Content-Length', request, d);
    if (!head && res.body.length !== Number(length))
      fail('Content-Length differs from the body length', request, d);
  } else if (res.body.length !== 0) {
    fail(`${res.status} with a body`, request, d);
  }

  if (res.status >= 400) {
    if (ERROR_MESSAGES[res.status] === undefined)
      fail(`unexpected status ${res.status}`, request, d);
    if (!/^application\/json\b/.test(res.header('content-type') ?? ''))
      fail('error without application/json', request, d);
    const record = errorRecordText(res.status);
    if (head) {
      if (Number(length) !== Buffer.byteLength(record))
        fail('HEAD error Content-Length is not the error record length', request, d);
    } else if (res.body.toString('utf8') !== record) {
      fail('error body is not the exact error record', request, `expected ${record}; got ${d}`);
    }
    for (const name of ['etag', 'last-modified', 'accept-ranges']) {
      if (res.header(name) !== undefined) fail(`error response carries ${name}`, request, d);
    }
    if (res.status === 416) {
      const sizes = [...api.archives.values()].map((a) => `bytes */${a.length}`);
      if (!sizes.includes(res.header('content-range') ?? ''))
        fail('416 without Content-Range: bytes */size', request, d);
    } else if (res.header('content-range') !== undefined) {
      fail('error other than 416 carries Content-Range', request, d);
    }
  }

  let servedWindow: { offset: number; length: number } | undefined;
  const isArchive = /^application\/vnd\.pmtiles\b/.test(res.header('content-type') ?? '');
  if (res.status === 206 || (res.status === 200 && isArchive)) {
    const archive = api.byEtag.get(res.header('etag') ?? '');
    if (!archive) fail('archive response with an ETag of no published archive', request, d);
    if (!isArchive)
      fail(`${res.status} archive response without application/vnd.pmtiles`, request, d);
    if (res.status === 206) {
      const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(res.header('content-range') ?? '');
      if (!match) fail('206 without a valid Content-Range', request, d);
      const [start, end, size] = [Number(match[1]), Number(match[2]), Number(match[3])];
      if (size !== archive.length)
        fail('Content-Range size differs from the archive size', request, d);
      if (!(start <= end && end < size)) fail('Content-Range outside the archive', request, d);
      if (Number(length) !== end - start + 1)
        fail('Content-Length differs from the Content-Range length', request, d);
      if (!head && !res.body.equals(archive.subarray(start, end + 1)))
        fail('206 body differs from the archive slice', request, d);
      servedWindow = { offset: start, length: end - start + 1 };
    } else {
      if (Number(length) !== archive.length)
        fail('200 Content-Length differs from the archive size', request, d);
      if (!head && !res.body.equals(archive))
        fail('200 body differs from the whole archive', request, d);
      servedWindow = { offset: 0, length: archive.length };
    }
  } else if (res.header('content-range') !== undefined && res.status !== 416) {
    fail('Content-Range on a response that is neither 206 nor 416', request, d);
  }
  // A tile or TileJSON answer reads the archive's header and directories to
  // build its body: those reads are still held to published archives and their bounds below.
  const readsDirectories =
    (res.status === 200 || res.status === 304) &&
    /^(application\/json|image\/png)\b/.test(res.header('content-type') ?? '') &&
    res.header('etag') !== undefined;
  if (!expectation.skipStoreCalls)
    checkStoreCalls(
      api,
      request,
      head ? undefined : servedWindow,
      { ...expectation, readsDirectories },
      d,
    );
}

/** Store reads: published timestamps only, inside the archive, and only the window served. */
function checkStoreCalls(
  api: HostileApi,
  request: Buffer | string,
  servedWindow: { offset: number; length: number } | undefined,
  expectation: CaseExpectation,
  d = '',
): void {
  for (const call of api.storeCalls) {
    const archive = api.archives.get(call.timestamp);
    if (!/^[0-9]{12}$/.test(call.timestamp) || !archive) {
      fail(
        `archive store asked for ${JSON.stringify(call.timestamp)}, which is not published`,
        request,
        d,
      );
    }
    if (!(call.offset >= 0 && call.length > 0 && call.offset + call.length <= archive.length)) {
      fail(
        `archive store asked for a window outside the archive ${JSON.stringify(call)}`,
        request,
        d,
      );
    }
  }
  if (expectation.readsDirectories) return;
  if (servedWindow === undefined) {
    if (api.storeCalls.length > 0)
      fail('archive store read for a response that sends no archive bytes', request, d);
    return;
  }
  if (api.storeCalls.length !== 1)
    fail(`expected one store read, saw ${api.storeCalls.length}`, request, d);
  const [call] = api.storeCalls;
  if (call!.offset !== servedWindow.offset || call!.length !== servedWindow.length) {
    fail(
      `store read ${JSON.stringify(call)} differs from the window sent ${JSON.stringify(servedWindow)}`,
      request,
      d,
    );
  }
}
