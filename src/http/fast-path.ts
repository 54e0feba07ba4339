/**
 * The request fast path: `GET`/`HEAD` of `/status.json`, of an archive window the block cache
 * holds and of a z/x/y tile whose directories are decoded in memory, answered from the plain
 * node:http listener with one `writeHead` + `end`. It runs the same steps as the Koa pipeline,
 * in the same order and through the same functions (protocol check, credentials, per-key
 * origin, rate limit, negotiation, preconditions, ranges); it only skips Koa's context,
 * middleware chain and router, which cost a replica 3-4x the CPU of node:http per request
 * (test/bench/FINDINGS.md). Everything else (any error answer, preflights, query strings,
 * bytes not in memory, a refused rate decision) goes to the Koa app untouched and before any
 * side effect; the one side effect the fast path may already have taken, a rate-limit point,
 * is handed over with it, so no point is ever spent twice. `RADAR_FAST_PATH=0` turns it off;
 * the equivalence test (test/http/fast-path.test.ts) holds both paths to the same status,
 * headers and bytes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ArchiveMeta, ByteWindow, RateDecision } from '../domain/ports';
import { requestOrigin } from '../domain/origin-policy';
import { zxyToTileId } from '../pmtiles/tile-id';
import { EMPTY_TILE_PNG } from '../tiles/empty-tile';
import type { AppDeps } from './app';
import { readCredentials, type Caller } from './middleware/authenticate';
import { actualRequestCors } from './middleware/cors';
import { handOverDecision } from './middleware/rate-limit';
import { requestRecorder } from './middleware/request-log';
import { archiveHeaderCache, PMTILES_CONTENT_TYPE, planArchiveAnswer } from './routes/archive';
import { ARCHIVE_ROUTE, STATUS_ROUTE, TILE_ROUTE } from './routes/paths';
import { planTileHead, resolveTile } from './routes/tile';
import { answerStatus, STATUS_CACHE_CONTROL } from './routes/status';
import { immutableCacheControl } from './cache-control';

/** What the fast path needs: the same ports and settings as the Koa app it stands in for. */
export type FastPathDeps = Pick<
  AppDeps,
  | 'logger'
  | 'catalog'
  | 'store'
  | 'keys'
  | 'limiter'
  | 'statusDocument'
  | 'corsOrigins'
  | 'cacheControl'
  | 'onRateDecision'
  | 'metrics'
  | 'trustProxy'
  | 'tiles'
>;

/** Answers the request, or passes it to `koa` (before any side effect but a handed-over point). */
export type FastPath = (req: IncomingMessage, res: ServerResponse, koa: RequestListener) => void;

type RequestListener = (req: IncomingMessage, res: ServerResponse) => unknown;

/** `/tiles/{12 digits}.pmtiles`: the only archive targets the fast path takes. */
const ARCHIVE_TARGET = /^\/tiles\/([0-9]{12})\.pmtiles$/;
/** `/tiles/{12 digits}/{z}/{x}/{y}.png` (canonical numbers are checked by `resolveTile`). */
const TILE_TARGET = /^\/tiles\/([0-9]{12})\/([0-9]{1,9})\/([0-9]{1,9})\/([0-9]{1,9})\.png$/;

/** What the response carries beyond the guard's headers. */
interface Answer {
  readonly status: number;
  readonly route: string;
  /** Flat name/value pairs. */
  readonly headers: readonly string[];
  readonly vary: string;
  /** Sent for GET; its length is the Content-Length of GET and HEAD alike. */
  readonly body?: Buffer;
  /** The Content-Length of a body that is not in `body` (archive windows). */
  readonly length?: number;
  /** The archive window a GET sends, read from the block cache once the point is spent. */
  readonly read?: { readonly meta: ArchiveMeta; readonly window: ByteWindow };
}

export function createFastPath(deps: FastPathDeps): FastPath {
  const recorder = requestRecorder(deps.logger, deps.metrics);
  const corsHeaders = actualRequestCors(deps.corsOrigins);
  const headersOf = archiveHeaderCache(deps.cacheControl);
  const immutable = immutableCacheControl(deps.cacheControl);
  const tiles = deps.tiles;
  const onDecision = deps.onRateDecision ?? (() => {});

  /** A z/x/y tile whose header and window are in memory (`TileLocator.peek`), else Koa's. */
  const planTile = (
    req: IncomingMessage,
    [, timestamp, z, x, y]: RegExpExecArray,
  ): Answer | 'koa' => {
    const target = resolveTile(deps.catalog, timestamp!, z!, x!, y!);
    if (target instanceof Error) return 'koa';
    const { meta, coords } = target;
    const located = tiles.peek(meta, zxyToTileId(coords.z, coords.x, coords.y));
    if (located === undefined) return 'koa';
    const head = planTileHead(meta, coords, located.header, req.headers, immutable);
    if (head.kind === 'error') return 'koa';
    const headers = Object.entries(head.headers).flat();
    if (head.kind === 'not-modified') return { status: 304, route: TILE_ROUTE, headers, vary: '' };
    headers.push('Content-Type', 'image/png');
    if (located.window === undefined) {
      headers.push('OATiles-hint', 'empty');
      return { status: 200, route: TILE_ROUTE, headers, vary: '', body: EMPTY_TILE_PNG };
    }
    if (head.encoding !== undefined) headers.push('Content-Encoding', head.encoding);
    return {
      status: 200,
      route: TILE_ROUTE,
      headers,
      vary: '',
      length: located.window.length,
      ...(req.method === 'GET' ? { read: { meta, window: located.window } } : {}),
    };
  };

  /** The status, archive or tile answer, or `'koa'` when Koa must answer (no side effect yet). */
  const plan = (req: IncomingMessage, url: string): Answer | 'koa' => {
    if (url === STATUS_ROUTE) {
      const doc = deps.statusDocument();
      if (doc === undefined) return 'koa';
      const { rep, notModified } = answerStatus(req.headers, doc);
      const common = ['ETag', rep.etag, 'Cache-Control', STATUS_CACHE_CONTROL];
      if (notModified)
        return { status: 304, route: STATUS_ROUTE, headers: common, vary: 'Accept-Encoding' };
      const headers = [...common, 'Content-Type', 'application/json'];
      if (rep.encoding !== 'identity') headers.push('Content-Encoding', rep.encoding);
      return { status: 200, route: STATUS_ROUTE, headers, vary: 'Accept-Encoding', body: rep.body };
    }
    const tile = TILE_TARGET.exec(url);
    if (tile !== null) return planTile(req, tile);
    const timestamp = ARCHIVE_TARGET.exec(url)?.[1];
    if (timestamp === undefined) return 'koa';
    const archive = planArchiveAnswer(deps.catalog, timestamp, req.headers);
    if (archive.kind === 'error') return 'koa';
    const base = Object.entries(headersOf(archive.meta)).flat();
    if (archive.kind === 'not-modified')
      return { status: 304, route: ARCHIVE_ROUTE, headers: base, vary: '' };
    base.push('Content-Type', PMTILES_CONTENT_TYPE);
    if (archive.contentRange !== undefined) base.push('Content-Range', archive.contentRange);
    return {
      status: archive.status,
      route: ARCHIVE_ROUTE,
      headers: base,
      vary: '',
      length: archive.window.length,
      ...(req.method === 'GET' ? { read: { meta: archive.meta, window: archive.window } } : {}),
    };
  };

  /** Koa answers the request, with the rate decision (its point spent) handed over. */
  const handOver = (
    req: IncomingMessage,
    res: ServerResponse,
    koa: RequestListener,
    decision: RateDecision | Promise<RateDecision>,
  ): void => {
    handOverDecision(req, decision);
    void koa(req, res);
  };

  /** Sends the planned answer once the point is spent; Koa answers a window not in memory. */
  const respond = (
    req: IncomingMessage,
    res: ServerResponse,
    koa: RequestListener,
    answer: Answer,
    caller: Caller,
    rate: RateDecision,
    started: number,
  ): void => {
    // A client that left while a lease renewal was awaited: 499, as the Koa log records it.
    const gone = req.socket.destroyed;
    // Read after the decision: a refused request never reads, and a window not in memory is
    // read once, by the Koa route's abortable store read.
    let body = answer.body;
    if (answer.read !== undefined) {
      body = deps.store.readCached?.(answer.read.meta, answer.read.window);
      if (body === undefined) return handOver(req, res, koa, rate);
    }
    onDecision(true, rate.limit);

    const requestId = recorder.requestId(req.headers['x-request-id']);
    const length = body?.length ?? answer.length;
    const headers = [
      ...answer.headers,
      'X-Request-Id',
      requestId,
      'X-Content-Type-Options',
      'nosniff',
      'Vary',
      answer.vary === '' ? 'Origin' : `Origin, ${answer.vary}`,
      ...corsHeaders(req.headers.origin),
      'X-RateLimit-Limit',
      String(rate.limit),
      'X-RateLimit-Remaining',
      String(rate.remaining),
      'X-RateLimit-Reset',
      String(rate.resetAtS),
    ];
    if (length !== undefined && answer.status !== 304)
      headers.push('Content-Length', String(length));
    res.writeHead(answer.status, headers);
    if (req.method === 'GET' && body !== undefined) res.end(body);
    else res.end();
    deps.metrics?.fastPath.add();

    recorder.record({
      requestId,
      method: req.method ?? 'GET',
      route: answer.route,
      status: gone ? 499 : answer.status,
      bytes: length ?? 0,
      finished: !gone,
      seconds: (performance.now() - started) / 1000,
      caller,
      ip: () => clientAddress(req, deps.trustProxy ?? false),
      bytesWritten: () => res.socket?.bytesWritten ?? 0,
    });
  };

  /**
   * A fault inside the fast path (a bug, a store adapter throwing) must not crash the process
   * or lose the request: it is logged and the request goes to the Koa app, whose error handler
   * answers with the error record, unless the response has already begun.
   */
  const fail = (req: IncomingMessage, res: ServerResponse, koa: RequestListener, err: unknown) => {
    deps.logger.error({ err }, 'fast path failed; the Koa app answers the request');
    if (!res.headersSent) void koa(req, res);
    else res.destroy(err instanceof Error ? err : new Error(String(err)));
  };

  const serve: FastPath = (req, res, koa) => {
    const method = req.method;
    const url = req.url ?? '';
    if (
      (method !== 'GET' && method !== 'HEAD') ||
      (url !== STATUS_ROUTE && !url.startsWith('/tiles/')) ||
      // protocolGuard's refusals (another HTTP version, HTTP/1.1 without Host) are Koa's.
      req.httpVersionMajor !== 1 ||
      (req.httpVersionMinor >= 1 && req.headers.host === undefined)
    )
      return void koa(req, res);
    const started = performance.now();

    const credentials = readCredentials(req);
    if ('malformed' in credentials) return void koa(req, res);
    const decision = deps.keys.authenticate(credentials.apiKey, credentials.appId);
    if (decision instanceof Promise || decision.outcome !== 'allowed') return void koa(req, res);
    const caller: Caller = decision;
    const policy = caller.originPolicy;
    if (
      policy !== undefined &&
      !policy.allows(requestOrigin(req.headers.origin, req.headers.referer))
    )
      return void koa(req, res);

    // Error answers (400/404/412/416/503) are Koa's, and spend their point there.
    const answer = plan(req, url);
    if (answer === 'koa') return void koa(req, res);

    const rate = deps.limiter.consume(caller.keyId, caller.limit);
    if (rate instanceof Promise) {
      // A lease renewal (or a store-backed limiter): the answer waits for the decision; a
      // refusal or a limiter failure is answered by Koa with the decision handed over.
      rate
        .then(
          (settled) =>
            settled.allowed
              ? respond(req, res, koa, answer, caller, settled, started)
              : handOver(req, res, koa, settled),
          () => handOver(req, res, koa, rate),
        )
        .catch((err: unknown) => fail(req, res, koa, err));
      return;
    }
    if (!rate.allowed) return handOver(req, res, koa, rate);
    respond(req, res, koa, answer, caller, rate, started);
  };

  return (req, res, koa) => {
    try {
      serve(req, res, koa);
    } catch (err) {
      fail(req, res, koa, err);
    }
  };
}

/** The client address as Koa's `ctx.ip` reads it (`proxy: true`, `maxIpsCount: 1`). */
function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const hops = typeof forwarded === 'string' ? forwarded.split(/\s*,\s*/) : [];
    const last = hops[hops.length - 1];
    if (last) return last;
  }
  return req.socket.remoteAddress ?? '';
}
