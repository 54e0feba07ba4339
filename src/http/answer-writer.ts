/**
 * The one writer of answers: every response of the public listener, decided by the core or by
 * the Koa app, leaves through `write`, and the headers all responses share are written here and
 * nowhere else: `X-Request-Id`, `X-Content-Type-Options: nosniff`, `Vary`, the CORS headers,
 * `X-RateLimit-*` (from the answer's rate decision), `Content-Length` (from its length) and
 * `Connection: close` while the server drains. Each response is recorded once (log line and
 * metrics): a body in memory as soon as it is handed to the socket, a stream when it ends or
 * is cut.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Writable } from 'node:stream';
import type { Answer } from './core/answer';
import { clientAddressOf } from './core/request';
import type { CorsPolicy } from './core/cors';
import { RATE_LIMIT_LIMIT, RATE_LIMIT_REMAINING, RATE_LIMIT_RESET } from './core/rate-headers';
import type { RequestRecorder } from './request-recorder';

/**
 * The header every response carries so browsers never sniff a type; also written by the raw
 * answers to requests Node's parser refused (`client-error.ts`), which have no `Answer`.
 */
export const NOSNIFF = ['X-Content-Type-Options', 'nosniff'] as const;

export interface AnswerWriterDeps {
  readonly cors: CorsPolicy;
  readonly recorder: RequestRecorder;
  /** True while the server drains: every answer closes its connection after it. */
  readonly draining: () => boolean;
  /** Behind one trusted proxy: the logged address is the last `X-Forwarded-For` hop. */
  readonly trustProxy: boolean;
}

/**
 * The request as the writer reads it: what a node:http `IncomingMessage` has, and what the
 * in-process `inject` gives.
 */
export interface WrittenRequest {
  readonly method?: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly socket: { readonly remoteAddress?: string | undefined; readonly destroyed: boolean };
}

/**
 * Where the writer sends: a node:http `ServerResponse`, or the in-process response `inject`
 * collects, so both run the same tail (head, body or none, the request record).
 */
export type ResponseSink = Writable & {
  writeHead(status: number, lines: string[]): unknown;
  readonly socket?: { readonly bytesWritten: number } | null;
};

export interface AnswerWriter {
  /**
   * Writes `answer` to `res` (its request id, header lines and body: none for HEAD, a stream
   * body destroyed unread) and records the request once (log line, metrics, usage) when its
   * body is handed over or cut; `started` is `performance.now()`. The listener, the Koa app
   * and `inject` all write through it, so an in-process answer is the written one.
   */
  write(req: WrittenRequest, res: ResponseSink, answer: Answer, started: number): void;
}

/** A HEAD answer's body: none (a stream is destroyed unread, so its store read stops). */
function dropBody(body: Answer['body']): undefined {
  if (body !== undefined && !Buffer.isBuffer(body)) body.destroy();
  return undefined;
}

export function createAnswerWriter(deps: AnswerWriterDeps): AnswerWriter {
  const { cors, recorder } = deps;

  const head = (
    answer: Answer,
    method: string,
    headers: IncomingHttpHeaders,
    requestId: string,
  ): string[] => {
    const lines = answer.headers.slice();
    lines.push(
      'X-Request-Id',
      requestId,
      NOSNIFF[0],
      NOSNIFF[1],
      'Vary',
      answer.vary === undefined || answer.vary === '' ? 'Origin' : `Origin, ${answer.vary}`,
    );
    const corsLines = cors.headers(method, headers.origin, answer.preflight === true);
    for (let i = 0; i < corsLines.length; i++) lines.push(corsLines[i]!);
    const rate = answer.rate;
    if (rate !== undefined)
      lines.push(
        RATE_LIMIT_LIMIT,
        String(rate.limit),
        RATE_LIMIT_REMAINING,
        String(rate.remaining),
        RATE_LIMIT_RESET,
        String(rate.resetAtS),
      );
    if (answer.length !== undefined && answer.status !== 304 && answer.status !== 204)
      lines.push('Content-Length', String(answer.length));
    if (deps.draining()) lines.push('Connection', 'close');
    return lines;
  };

  const record = (
    req: WrittenRequest,
    res: ResponseSink,
    answer: Answer,
    requestId: string,
    started: number,
    finished: boolean,
    /** Body bytes handed to the response so far (a cut stream's part). */
    sent = 0,
  ) =>
    recorder.record({
      requestId,
      method: req.method ?? 'GET',
      route: answer.route,
      status: finished ? answer.status : 499, // 499: the client went away
      bytes: finished ? (answer.length ?? 0) : Math.min(sent, answer.length ?? sent),
      finished,
      seconds: (performance.now() - started) / 1000,
      caller: answer.caller,
      refusedKey: answer.refusedKey,
      ip: () => clientAddressOf(req.headers, req.socket.remoteAddress, deps.trustProxy),
      bytesWritten: () => res.socket?.bytesWritten ?? 0,
    });

  return {
    write(req, res, answer, started) {
      const method = req.method ?? 'GET';
      const requestId = recorder.requestId(req.headers['x-request-id']);
      const body = method === 'HEAD' ? dropBody(answer.body) : answer.body;
      // A client that left before its answer was decided: nothing to send, no head built.
      if (answer.abandoned === true || req.socket.destroyed) {
        if (body !== undefined && !Buffer.isBuffer(body)) body.destroy();
        res.destroy();
        return record(req, res, answer, requestId, started, false);
      }
      res.writeHead(answer.status, head(answer, method, req.headers, requestId));
      if (body === undefined || Buffer.isBuffer(body)) {
        res.end(body);
        // A body in memory is handed to the socket whole: recorded now, not at 'close'.
        return record(req, res, answer, requestId, started, true);
      }
      // A store read that fails midway cuts the connection (the head already promised every
      // byte, so a short body must not look complete); a response that closes early (client
      // gone, send timeout) destroys the read.
      const stream = body;
      // What the stream hands the response: the bytes a cut response counts (docs/usage.md).
      let sent = 0;
      stream.on('data', (chunk: Buffer) => {
        sent += chunk.length;
      });
      stream.once('error', (err) => res.destroy(err));
      res.once('close', () => {
        if (!stream.destroyed) stream.destroy();
        record(req, res, answer, requestId, started, res.writableFinished, sent);
      });
      stream.pipe(res);
    },
  };
}
