/**
 * The Koa app behind the core: it composes what is not the API (the viewer, any other extra
 * routes, the final 404) and turns whatever it answers into an `Answer` for the one answer
 * writer, so its responses carry the same common headers and records as the core's, and its
 * errors (the last resort included) the same error records.
 */
import type Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { Readable } from 'node:stream';
import { NotFoundError } from '../errors';
import type { AnswerWriter } from './answer-writer';
import { type Answer, UNMATCHED_ROUTE } from './core/answer';
import type { Core } from './core/core';
import { nodeRequest } from './node-request';
import { jsonBytes } from '../shared/json-text';

export interface KoaAppDeps {
  readonly core: Core;
  readonly writer: AnswerWriter;
  readonly trustProxy: boolean;
  /** Routes without credentials (the viewer, the API reference), mounted in order. */
  readonly extraRoutes?: readonly Router[];
}

function routeOf(ctx: Context): string {
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  return typeof matched === 'string' ? matched : UNMATCHED_ROUTE;
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
      answer = answerOf(ctx);
    } catch (err) {
      answer = deps.core.fail(err, nodeRequest(ctx.req, ctx.res, deps.trustProxy), routeOf(ctx));
    }
    deps.writer.write(ctx.req, ctx.res, answer, started);
  });
  for (const router of deps.extraRoutes ?? []) app.use(router.routes());
  app.use(() => {
    throw new NotFoundError();
  });
  return app;
}
