/**
 * Admin listener (`ADMIN_PORT`, never proxied): `/healthz` says the process is alive,
 * `/readyz` whether it should receive traffic, `/metrics` the Prometheus exposition when a
 * registry is wired. Plain node:http: it must keep answering when the API app is saturated.
 */
import http from 'node:http';

export interface AdminDeps {
  /** Readiness with a short reason when not ready. */
  readonly readiness: () => { ready: boolean; reason?: string };
  /** Prometheus text and its content type; omitted until metrics exist. */
  readonly metrics?: () => Promise<{ contentType: string; body: string }>;
}

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache',
  });
  res.end(text);
}

export function createAdminServer(deps: AdminDeps): http.Server {
  return http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return reply(res, 405, { error: { code: 405, message: 'Method Not Allowed' } });
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
        () => reply(res, 500, { error: { code: 500, message: 'Internal Server Error' } }),
      );
      return;
    }
    return reply(res, 404, { error: { code: 404, message: 'Not Found' } });
  });
}
