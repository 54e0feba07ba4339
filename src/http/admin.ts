/**
 * Admin listener (`ADMIN_PORT`, never proxied): `/healthz` says the process is alive,
 * `/readyz` whether it should receive traffic, `/metrics` the Prometheus exposition when a
 * registry is wired. Plain node:http: it must keep answering when the API app is saturated.
 */
import http from 'node:http';
import {
  errorBody,
  InternalServerError,
  MethodNotAllowedError,
  NotFoundError,
  type HttpError,
} from '../errors';

export interface AdminDeps {
  /** Readiness with a short reason when not ready. */
  readonly readiness: () => { ready: boolean; reason?: string };
  /** Prometheus text and its content type; omitted until metrics exist. */
  readonly metrics?: () => Promise<{ contentType: string; body: string }>;
}

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  send(res, status, JSON.stringify(body));
}

function send(res: http.ServerResponse, status: number, text: string, headers = {}): void {
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache',
  });
  res.end(text);
}

/** An error record answer (the same record and headers the API sends). */
function fail(res: http.ServerResponse, error: HttpError): void {
  send(res, error.status, errorBody(error), error.headers);
}

export function createAdminServer(deps: AdminDeps): http.Server {
  return http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return fail(res, new MethodNotAllowedError('GET, HEAD'));
    }
    if (path === '/healthz') return reply(res, 200, { status: 'ok' });
    if (path === '/readyz') {
      const { ready, reason } = deps.readiness();
      return reply(
        res,
        ready ? 200 : 503,
        ready ? { status: 'ready' } : { status: 'not ready', reason },
      );
    }
    if (path === '/metrics' && deps.metrics) {
      deps.metrics().then(
        ({ contentType, body }) => {
          res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-cache' });
          res.end(body);
        },
        () => fail(res, new InternalServerError()),
      );
      return;
    }
    return fail(res, new NotFoundError());
  });
}
