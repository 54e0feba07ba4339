/**
 * Admin listener (`ADMIN_PORT`, never proxied): `/healthz` says the process is alive,
 * `/readyz` whether it should receive traffic, `/metrics` the Prometheus exposition when a
 * registry is wired, `/usage` the per-key usage report (the shape of `npm run keys -- usage
 * --json`, for billing jobs). Plain node:http: it must keep answering when the API app is
 * saturated.
 */
import http from 'node:http';
import { parseSince, type UsageQuestion, type UsageReport } from '../domain/usage-report';
import {
  BadRequestError,
  errorBody,
  InternalServerError,
  MethodNotAllowedError,
  NotFoundError,
  ServiceUnavailableError,
  type HttpError,
} from '../errors';
import { jsonText } from '../shared/json-text';

export interface AdminDeps {
  /** Readiness with a short reason when not ready. */
  readonly readiness: () => { ready: boolean; reason?: string };
  /** Prometheus text and its content type; omitted until metrics exist. */
  readonly metrics?: () => Promise<{ contentType: string; body: string }>;
  /** The usage report for a question; rejects when the usage store cannot be read. */
  readonly usage?: (question: UsageQuestion) => Promise<UsageReport>;
}

/** The parameters `/usage` takes; anything else is a 400. */
const USAGE_PARAMETERS = new Set(['since', 'key', 'app']);

/**
 * The question of a `/usage` query (`since` = `24h` by default, `key`, `app`), or undefined
 * when a parameter is unknown, repeated, empty or malformed.
 */
export function usageQuestion(query: string): UsageQuestion | undefined {
  const params = new URLSearchParams(query);
  const seen = new Set<string>();
  for (const [name, value] of params) {
    if (!USAGE_PARAMETERS.has(name) || seen.has(name) || value === '') return undefined;
    seen.add(name);
  }
  const hours = parseSince(params.get('since') ?? '24h');
  if (typeof hours === 'string') return undefined;
  const key = params.get('key');
  const app = params.get('app');
  return { hours, ...(key !== null ? { key } : {}), ...(app !== null ? { app } : {}) };
}

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  send(res, status, jsonText(body));
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
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    const path = mark < 0 ? url : url.slice(0, mark);
    const query = mark < 0 ? '' : url.slice(mark + 1);
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
    if (path === '/usage' && deps.usage) {
      const question = usageQuestion(query);
      if (question === undefined) return fail(res, new BadRequestError());
      deps.usage(question).then(
        (report) => reply(res, 200, report),
        (err: unknown) => fail(res, new ServiceUnavailableError({ cause: err, retryAfterS: 5 })),
      );
      return;
    }
    return fail(res, new NotFoundError());
  });
}
