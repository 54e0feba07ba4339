/**
 * The protocol step, before anything else: requests Node's parser lets through but this
 * HTTP/1.x server cannot honour. All are the client's fault, so 4xx with the error record,
 * never a 5xx and never Node's bare answers:
 * - another major version than 1; an HTTP/1.1 request without `Host`, with two `Host` lines,
 *   or with a `Host` that is no `uri-host[:port]` (RFC 9112 §3.2: 400);
 * - a `Transfer-Encoding` whose final coding is not `chunked` (`identity`, `xchunked`): the
 *   body's length is unknown (RFC 9112 §6.3: 400), and Node let it through to a response
 *   that closed with zero bytes after a rate-limit point and usage were spent;
 * - an `Expect` other than `100-continue`, which Node answers itself with `100 Continue`
 *   (RFC 9110 §10.1.1: 417);
 * - more than {@link MAX_HEADER_FIELDS} header fields (431). Node's parser would otherwise keep
 *   the first ones and drop the rest without a word (an `Authorization` after them made a 401),
 *   so the listener keeps every field (`maxHeadersCount` 0; the head's byte limit still bounds
 *   them) and the count is refused here.
 */
import type { HttpError } from '../../errors';
import { BadRequestError, ExpectationFailedError, HeaderFieldsTooLargeError } from '../../errors';
import { isIpv6Literal } from '../../shared/public-host';
import type { CoreRequest } from './request';

/**
 * RFC 3986 `host [ ":" port ]`: an IP literal in brackets, or a reg-name (unreserved,
 * pct-encoded and sub-delims characters; an IPv4 address is one too), then an optional port
 * of at most 5 digits, checked against 65535 below. Empty is allowed (RFC 9112 §3.2). An IP
 * literal must be an IPv6 address (`[::::]` is none).
 */
const HOST_FIELD =
  /^(?:\[([0-9A-Fa-f:.]+)\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*)(?::([0-9]{0,5}))?$/;

/** Whether a `Host` field value is a valid `uri-host[:port]` (port at most 65535). */
export function isValidHostField(value: string): boolean {
  const found = HOST_FIELD.exec(value);
  if (found === null) return false;
  const [, literal, port] = found;
  if (literal !== undefined && !isIpv6Literal(literal)) return false;
  return port === undefined || port === '' || Number(port) <= 65535;
}

function hostLines(raw: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') count++;
  }
  return count;
}

/** The most header fields a request may carry (Node's parser kept 1,000 and dropped the rest). */
export const MAX_HEADER_FIELDS = 1000;

/** The error to answer, or undefined when the request may go on. */
export function checkProtocol(request: CoreRequest): HttpError | undefined {
  if (request.httpVersionMajor !== 1) return new BadRequestError();
  if (request.rawHeaders.length / 2 > MAX_HEADER_FIELDS) return new HeaderFieldsTooLargeError();
  const host = request.headers.host;
  if (host === undefined) {
    if (request.httpVersionMinor >= 1) return new BadRequestError();
  } else if (hostLines(request.rawHeaders) > 1 || !isValidHostField(host)) {
    return new BadRequestError();
  }
  const codings = request.headers['transfer-encoding'];
  if (codings !== undefined && !/(?:^|,)[ \t]*chunked[ \t]*$/i.test(codings))
    return new BadRequestError();
  const expect = request.headers.expect;
  if (expect !== undefined && expect.toLowerCase() !== '100-continue')
    return new ExpectationFailedError();
  return undefined;
}
