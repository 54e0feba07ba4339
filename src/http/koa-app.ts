/**
 * The Koa app behind the core: it serves the bodies of the pages (the viewer, the reference,
 * `/`) once the core has routed a GET or HEAD to one of them; the core decides every path's
 * 404, 405, `Allow` and OPTIONS from the one route table, so no request reaches Koa that the
 * table does not name a page. It turns whatever a page answers into an `Answer` for the one
 * answer writer, so its responses carry the same common headers and records as the core's,
 * its conditionals go through the core's evaluator, and its errors become the same error
 * records.
 */
import type Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { Readable } from 'node:stream';
import { NotFoundError, PreconditionFailedError } from '../errors';
import type { AnswerWriter } from './answer-writer';
import { type Answer, UNMATCHED_ROUTE } from './core/answer';
import { evaluatePreconditions } from './core/conditional';
import type { Core } from './core/core';
import { parseHttpDate } from './core/http-date';
import { matchPageRoute } from './core/route-table';
import { nodeRequest } from './node-request';
import { jsonBytes } from '../shared/json-text';

export interface KoaAppDeps {
  readonly core: Core;
  readonly writer: AnswerWriter;
  readonly trustProxy: boolean;
  /** The page routers (the viewer, the API reference), mounted in order. */
  readonly pages?: readonly Router[];
}

/** The route label of a page request, from the one table of page routes. */
function routeOf(ctx: Context): string {
  return matchPageRoute(ctx.path) ?? UNMATCHED_ROUTE;
}

/**
 * A page's conditional GET or HEAD through the core's one evaluator (`core/conditional.ts`): a
 * 200 with validators becomes a 304 (no body) or a 412, exactly as an API answer would.
 */
function applyPreconditions(ctx: Context): void {
  if (ctx.status !== 200 || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return;
  const etag = ctx.response.get('ETag');
  if (etag === '') return;
  const modified = parseHttpDate(ctx.response.get('Last-Modified'));
  const outcome = evaluatePreconditions(ctx.req.headers, {
    etag,
    ...(modified !== undefined ? { lastModified: new Date(modified * 1000) } : {}),
  });
  if (outcome === 'proceed') return;
  if (outcome === 'precondition-failed') throw new PreconditionFailedError();
  const body: unknown = ctx.body;
  if (body instanceof Readable) body.destroy();
  ctx.status = 304; // Koa empties the body and drops its type and length
}

/** What Koa decided, as an answer: its status, headers and body (string and JSON as bytes). */
function answerOf(ctx: Context): Answer {
  const status = ctx.status;
  const headers: string[] = [];
  // `Vary` is the writer's to write (it always varies on Origin): a route's own goes with it.
  const vary = ctx.response.get('Vary');
  for (const [name, value] of Object.entries(ctx.response.headers)) {
    if (name === 'content-length' || name === 'vary' || value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.push(name, String(one));
  }
  const raw: unknown = ctx.body;
  let body: Buffer | Readable | undefined;
  if (raw instanceof Readable) body = raw;
  else if (Buffer.isBuffer(raw)) body = raw;
  else if (typeof raw === 'string') body = Buffer.from(raw);
  else if (raw !== null && raw !== undefined) body = jsonBytes(raw);
  const length = Buffer.isBuffer(body) && ctx.method !== 'HEAD' ? body.length : ctx.response.length;
  return {
    status,
    route: routeOf(ctx),
    headers,
    ...(vary !== '' ? { vary } : {}),
    ...(body !== undefined ? { body } : {}),
    ...(length !== undefined && status !== 204 && status !== 304 ? { length } : {}),
  };
}

export function createKoaApp(deps: KoaAppDeps): Koa {
  const app = new Koa();
  // Failures become error answers below; Koa's default stderr printing would double-log.
  app.silent = true;
  app.use(async (ctx, next) => {
    const started = performance.now();
    // The answer writer writes the response; Koa only decides it.
    ctx.respond = false;
    let answer: Answer;
    try {
      await next();
      applyPreconditions(ctx);
      answer = answerOf(ctx);
    } catch (err) {
      answer = deps.core.fail(err, nodeRequest(ctx.req, ctx.res, deps.trustProxy), routeOf(ctx));
    }
    deps.writer.write(ctx.req, ctx.res, answer, started);
  });
  for (const router of deps.pages ?? []) app.use(router.routes());
  // A page of the table that no router serves (a replica wired without it): not found.
  app.use(() => {
    throw new NotFoundError();
  });
  return app;
}
