/**
 * Answers requests Node's HTTP parser rejects before the core sees them (malformed request line,
 * bad header syntax, oversized head, unknown or lower-case methods, header timeout) with the
 * same JSON error record and `nosniff` as every other error, then closes the connection.
 */
import type { Socket } from 'node:net';
import {
  BadRequestError,
  errorBody,
  HeaderFieldsTooLargeError,
  RequestTimeoutError,
  type HttpError,
} from '../errors';
import { NOSNIFF } from './answer-writer';

function errorFor(code: string | undefined): HttpError {
  if (code === 'HPE_HEADER_OVERFLOW') return new HeaderFieldsTooLargeError();
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new RequestTimeoutError();
  return new BadRequestError();
}

/** A complete raw HTTP/1.1 error response (error record, nosniff, connection closed). */
export function rawErrorResponse(error: HttpError): string {
  const { status, message } = error;
  const body = errorBody(error);
  const extra = Object.entries(error.headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (
    `HTTP/1.1 ${status} ${message}\r\n` +
    'Content-Type: application/json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `${NOSNIFF[0]}: ${NOSNIFF[1]}\r\n` +
    extra +
    'Connection: close\r\n\r\n' +
    body
  );
}

/** The raw HTTP/1.1 response for a parser error code. */
export function clientErrorResponse(code: string | undefined): string {
  return rawErrorResponse(errorFor(code));
}

/** The `clientError` listener for an http.Server. */
export function onClientError(err: Error & { code?: string }, socket: Socket): void {
  // A reset or a half-written response leaves nothing to answer.
  if (
    err.code === 'ECONNRESET' ||
    !socket.writable ||
    (socket as Socket & { _httpMessage?: unknown })._httpMessage
  ) {
    socket.destroy();
    return;
  }
  socket.end(clientErrorResponse(err.code));
}
