/**
 * Minimal raw HTTP client for tests: any method, exact headers (including odd or duplicate
 * ones), and the raw response bytes, with no decompression or header normalisation.
 */
import http from 'node:http';

export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
  json<T = unknown>(): T;
}

export function request(
  baseUrl: string,
  path: string,
  options: {
    method?: string;
    headers?: http.OutgoingHttpHeaders | [string, string][];
    timeoutMs?: number;
  } = {},
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
        agent: false,
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
      },
    );
    req.setTimeout(options.timeoutMs ?? 10_000, () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end();
  });
}
