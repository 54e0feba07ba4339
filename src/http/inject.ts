/**
 * In-process requests: a request given as plain data goes through the core and comes back as
 * the response the server writes, with no socket and no server. Tests of HTTP behaviour use
 * it, as fastify's `inject` is used: the core's answer goes through the real writer's `write`
 * into an in-memory response, so the head lines, HEAD without a body and the request record
 * (log line, metrics, usage) are the listener's own, not a copy of them.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Writable } from 'node:stream';
import type { AnswerWriter, ResponseSink } from './answer-writer';
import type { Answer } from './core/answer';
import type { Core } from './core/core';
import type { CoreRequest } from './core/request';

export interface InjectRequest {
  readonly method?: string;
  /** Request-target, e.g. `/status.json?x=1`. */
  readonly url: string;
  /** Header lines in order; repeated names stay repeated (`[name, value][]` or a record). */
  readonly headers?: Record<string, string | string[]> | readonly (readonly [string, string])[];
  /** `1.1` unless given. */
  readonly httpVersion?: '1.0' | '1.1' | '2.0';
  readonly remoteAddress?: string;
  /** Aborts store reads as a client leaving would. */
  readonly signal?: AbortSignal;
}

export interface InjectResponse {
  readonly status: number;
  /** Response headers by lower-case name, repeated lines joined as a client would read them. */
  readonly headers: IncomingHttpHeaders;
  /** The header lines as written, `[name, value, ...]`. */
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  /** Whether the core decided without a promise (everything it needed was in memory). */
  readonly synchronous: boolean;
  readonly answer: Answer;
  json<T = unknown>(): T;
}

/** Fields of which Node keeps only the first line (its documented `message.headers` rules). */
const FIRST_ONLY = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

/** Header lines folded the way Node's parser folds them into `message.headers`. */
export function foldHeaders(raw: readonly string[]): IncomingHttpHeaders {
  const folded: Record<string, string | string[]> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!;
    const seen = folded[name];
    if (seen === undefined) folded[name] = name === 'set-cookie' ? [value] : value;
    else if (name === 'set-cookie') (seen as string[]).push(value);
    else if (FIRST_ONLY.has(name)) continue;
    else folded[name] = `${seen as string}${name === 'cookie' ? '; ' : ', '}${value}`;
  }
  return folded;
}

/** An in-memory response: the status and head lines the writer wrote, the body it sent. */
class CollectedResponse extends Writable {
  status = 0;
  head: string[] = [];
  readonly chunks: Buffer[] = [];
  readonly socket = { bytesWritten: 0 };
  failure: Error | undefined;

  writeHead(status: number, lines: string[]): this {
    this.status = status;
    this.head = lines;
    return this;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error) => void): void {
    this.chunks.push(chunk);
    this.socket.bytesWritten += chunk.length;
    done();
  }
}

/**
 * Answers `request` in-process; undefined when it is a GET or HEAD of a page (the Koa app
 * serves pages, over a socket). Resolves once the writer has finished (or cut) the response
 * and recorded the request; a body stream that fails midway rejects, as the cut connection
 * would show a client.
 */
export async function inject(
  core: Core,
  writer: AnswerWriter,
  request: InjectRequest,
): Promise<InjectResponse | undefined> {
  const started = performance.now();
  const lines = Array.isArray(request.headers)
    ? (request.headers as readonly (readonly [string, string])[])
    : Object.entries(request.headers ?? {}).flatMap(([name, value]) =>
        (Array.isArray(value) ? value : [value]).map((v) => [name, v] as const),
      );
  const rawHeaders = lines.flatMap(([name, value]) => [name, value]);
  const headers = foldHeaders(rawHeaders);
  const [major, minor] = (request.httpVersion ?? '1.1').split('.').map(Number) as [number, number];
  const signal = request.signal ?? new AbortController().signal;
  const method = request.method ?? 'GET';
  const remoteAddress = request.remoteAddress ?? '127.0.0.1';
  const coreRequest: CoreRequest = {
    method,
    target: request.url,
    headers,
    rawHeaders,
    httpVersionMajor: major,
    httpVersionMinor: minor,
    clientAddress: () => remoteAddress,
    signal: () => signal,
    gone: () => signal.aborted,
  };
  const decided = core.handle(coreRequest);
  if (decided === undefined) return undefined;
  const synchronous = !(decided instanceof Promise);
  const answer = await decided;
  const res = new CollectedResponse();
  res.on('error', (err) => {
    res.failure = err;
  });
  const closed = new Promise<void>((resolve) => res.once('close', resolve));
  const socket = {
    remoteAddress,
    get destroyed() {
      return signal.aborted;
    },
  };
  writer.write({ method, headers, socket }, res as ResponseSink, answer, started);
  await closed;
  if (res.failure !== undefined) throw res.failure;
  const body = Buffer.concat(res.chunks);
  return {
    // An abandoned answer writes no head: its status is the record's (499).
    status: res.status === 0 ? answer.status : res.status,
    headers: foldHeaders(res.head),
    rawHeaders: res.head,
    body,
    synchronous,
    answer,
    json: <T>() => JSON.parse(body.toString('utf8')) as T,
  };
}
