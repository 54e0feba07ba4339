/**
 * The core's view of a node:http request: the request's own fields, the client address read
 * on demand, and an abort signal that fires when the response closes before it is finished
 * (the client left, or the send timeout cut it).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientAddressOf, type CoreRequest } from './core/request';

export function nodeRequest(
  req: IncomingMessage,
  res: ServerResponse,
  trustProxy: boolean,
): CoreRequest {
  let abort: AbortController | undefined;
  return {
    method: req.method ?? 'GET',
    target: req.url ?? '/',
    headers: req.headers,
    rawHeaders: req.rawHeaders,
    httpVersionMajor: req.httpVersionMajor,
    httpVersionMinor: req.httpVersionMinor,
    clientAddress: () => clientAddressOf(req.headers, req.socket.remoteAddress, trustProxy),
    signal() {
      if (abort === undefined) {
        const controller = new AbortController();
        abort = controller;
        // Aborting after a finished response would cost a DOMException for nothing.
        res.once('close', () => {
          if (!res.writableFinished) controller.abort();
        });
      }
      return abort.signal;
    },
    gone: () => req.socket.destroyed,
  };
}
