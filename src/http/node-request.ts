/**
 * The core's view of a node:http request: the request's own fields, the client address read
 * on demand, and an abort signal that fires when the response closes before it is finished
 * (the client left, or the send timeout cut it). One object per request, its methods on the
 * prototype: the hot path allocates no closures for it.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { clientAddressOf, type CoreRequest } from './core/request';

class NodeRequest implements CoreRequest {
  readonly method: string;
  readonly target: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: readonly string[];
  readonly httpVersionMajor: number;
  readonly httpVersionMinor: number;
  private abort: AbortController | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly trustProxy: boolean,
  ) {
    this.method = req.method ?? 'GET';
    this.target = req.url ?? '/';
    this.headers = req.headers;
    this.rawHeaders = req.rawHeaders;
    this.httpVersionMajor = req.httpVersionMajor;
    this.httpVersionMinor = req.httpVersionMinor;
  }

  clientAddress(): string {
    return clientAddressOf(this.req.headers, this.req.socket.remoteAddress, this.trustProxy);
  }

  signal(): AbortSignal {
    if (this.abort === undefined) {
      const controller = new AbortController();
      this.abort = controller;
      const res = this.res;
      // Aborting after a finished response would cost a DOMException for nothing.
      res.once('close', () => {
        if (!res.writableFinished) controller.abort();
      });
    }
    return this.abort.signal;
  }

  gone(): boolean {
    return this.req.socket.destroyed;
  }
}

export function nodeRequest(
  req: IncomingMessage,
  res: ServerResponse,
  trustProxy: boolean,
): CoreRequest {
  return new NodeRequest(req, res, trustProxy);
}
