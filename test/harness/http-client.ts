/**
 * Minimal raw HTTP client for tests: any method, exact headers (including odd or duplicate
 * ones), and the raw response bytes, with no decompression or header normalisation. Requests
 * Node's client refuses to send (bad bytes, pipelining, split writes) go through `raw-socket.ts`.
 */
import http from 'node:http';

export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
  json<T = unknown>(): T;
}

/** Options of `request`: everything is sent exactly as given. */
export interface RequestOptions {
  method?: string;
  headers?: http.OutgoingHttpHeaders | [string, string][];
  /** Source address (any 127.0.0.0/8 address on Linux: another client IP for nginx limits). */
  localAddress?: string;
  body?: string | Buffer;
  /** Default: a fresh connection per request. */
  agent?: http.Agent;
  timeoutMs?: number;
}

export function request(
  baseUrl: string,
  path: string,
  options: RequestOptions = {},
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers as http.OutgoingHttpHeaders,
        localAddress: options.localAddress,
        agent: options.agent ?? false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            json: <T>() => JSON.parse(body.toString('utf8')) as T,
          });
        });
        res.on('error', reject);
        res.on('aborted', () => reject(new Error('response aborted')));
      },
    );
    req.setTimeout(options.timeoutMs ?? 10_000, () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(options.body);
  });
}
