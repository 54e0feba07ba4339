/**
 * The core: one transport-free function from a request to its answer, for every API request.
 * The steps run in one order for every route:
 *
 *   protocol (400/417) ▸ CORS preflight (204, no credentials, no point) ▸ route (unknown:
 *   404) ▸ method (204 for OPTIONS, 405) ▸ a page: the Koa app serves it ▸ credentials, key
 *   and origin (401/403, no point) ▸ rate limit (one point; 429) ▸ the route: validation (400),
 *   lookup (404), conditionals (304/412), ranges (206/416), bytes.
 *
 * Every public path is the core's to route: the table (`route-table.ts`) holds the pages (the
 * viewer, the reference, `/`) beside the API, so a page path's 404, 405, `Allow` and OPTIONS
 * are decided here like an API path's; only a GET or HEAD of a page leaves the core, for the
 * Koa app to serve its body.
 *
 * A route the table marks as needing no credentials (the API description) goes from the
 * method step straight to its answer: no credentials, origin policy or rate-limit point.
 *
 * `handle` returns the answer synchronously when everything it needs is in memory (the status
 * document, the legend, a cached window, a tile whose directories are decoded, in any colour
 * scheme, a rendered TileJSON, every error) and a promise otherwise (a lease renewal, a store read, a directory load). Errors
 * come out as answers too, so a caller never sees a throw. The node:http listener and the
 * in-process test client both write what it returns through one answer writer.
 */
import type { ArchiveStore, CatalogReader, RateDecision, RateLimiter } from '../../domain/ports';
import type { StatusDocument } from '../../domain/status-document';
import { MethodNotAllowedError, NotFoundError, TooManyRequestsError } from '../../errors';
import type { KeyStore } from '../../domain/key-ports';
import type { Logger } from '../../logger';
import type { OpenApiDocument } from '../../openapi/openapi-document';
import type { TileLocator } from '../../tiles/tile-locator';
import { type Answer, errorAnswer, UNMATCHED_ROUTE } from './answer';
import { archiveHeaderCache, createArchiveAnswerer } from './archive-answer';
import {
  type AuthFailureListener,
  type Authorisation,
  type Caller,
  createAuthoriser,
} from './authorise';
import type { CorsPolicy } from './cors';
import { createFailureAnswerer } from './failure';
import { forecastFrames, observedFrames } from './frame-lookup';
import type { ForecastCatalogReader } from '../../domain/forecast-catalog';
import { createLegendAnswerer } from './legend-answer';
import { checkProtocol } from './protocol';
import type { PublicBaseUrl } from './public-base-url';
import type { CoreRequest } from './request';
import { createOpenApiAnswerer } from './openapi-answer';
import {
  ALLOWED_METHODS,
  type CredentialedRoute,
  type CredentialedRouteKind,
  matchPageRoute,
  matchRoute,
  needsCredentials,
  type OpenRouteKind,
  pathOf,
  ROUTES,
} from './route-table';
import { createStatusAnswerer } from './status-answer';
import { createTileAnswerer } from './tile-answer';
import { createTileJsonAnswerer } from './tilejson-answer';

/** Observer of every rate decision (metrics): allowed or not, and the key's tier (its limit). */
export type RateDecisionListener = (allowed: boolean, limit: number) => void;

export interface CoreDeps {
  readonly logger: Logger;
  readonly catalog: CatalogReader;
  /** Forecast frames readable now (`/forecasts/...`). */
  readonly forecasts: ForecastCatalogReader;
  readonly store: ArchiveStore;
  readonly keys: KeyStore;
  readonly limiter: RateLimiter;
  readonly tiles: TileLocator;
  readonly statusDocument: () => StatusDocument | undefined;
  readonly cors: CorsPolicy;
  readonly cacheControl: 'private' | 'public';
  /** The public base URL of a request, for TileJSON (`public-base-url.ts`). */
  readonly baseUrl: (headers: CoreRequest['headers']) => PublicBaseUrl;
  /** The API description served at `/openapi.json`, loaded once; undefined: never built (503). */
  readonly openApi: OpenApiDocument | undefined;
  readonly onAuthFailure?: AuthFailureListener;
  readonly onRateDecision?: RateDecisionListener;
}

export interface Core {
  /**
   * The answer to `request`, or undefined for a GET or HEAD of a page (`PAGE_ROUTES`): the Koa
   * app serves its body. Every other request, unknown paths and page paths included, is
   * answered here.
   */
  handle(request: CoreRequest): Answer | Promise<Answer> | undefined;
  /** The answer to an error raised outside the core (another route, the last resort). */
  fail(err: unknown, request: CoreRequest, route: string): Answer;
  /** The route templates, for metrics that must exist before the first request. */
  readonly routes: readonly string[];
}

/** What a route handler gets once the caller is known and the point is spent. */
type Handler = (
  request: CoreRequest,
  params: readonly string[],
  caller: Caller,
) => Answer | Promise<Answer>;

/** A request's route once it is known to need credentials, and its decoded parameters. */
interface CredentialedMatch {
  readonly route: CredentialedRoute;
  readonly params: readonly string[];
}

/** What the handler of a route without credentials gets: the request alone. */
type OpenHandler = (request: CoreRequest) => Answer | Promise<Answer>;

/** Completes a route's fresh answer with who asked and the point it spent. */
function decided(answer: Answer, caller: Caller, rate: RateDecision): Answer {
  answer.caller = caller;
  answer.rate = rate;
  return answer;
}

export function createCore(deps: CoreDeps): Core {
  const authorise = createAuthoriser(deps.keys, deps.onAuthFailure);
  const onDecision = deps.onRateDecision ?? (() => {});
  const failure = createFailureAnswerer(deps.logger);
  const status = createStatusAnswerer(deps.statusDocument);
  // One header cache per archive version for the three answers about archives.
  const versions = archiveHeaderCache(deps.cacheControl);
  const observed = observedFrames(deps.catalog);
  const forecast = forecastFrames(deps.forecasts);
  const archive = createArchiveAnswerer(deps, versions, observed);
  const tile = createTileAnswerer(deps, versions, observed);
  const tileJson = createTileJsonAnswerer(deps, versions, observed);
  const forecastArchive = createArchiveAnswerer(deps, versions, forecast);
  const forecastTile = createTileAnswerer(deps, versions, forecast);
  const forecastTileJson = createTileJsonAnswerer(deps, versions, forecast);
  const legend = createLegendAnswerer(deps.cacheControl);
  const openApi = createOpenApiAnswerer(deps.openApi);
  const handlers: Record<CredentialedRouteKind, Handler> = {
    status: (request) => status(request.headers),
    archive: (request, params, caller) => archive(request, params, caller),
    tile: (request, [timestamp, ...zxy], caller) => tile(request, [timestamp!], zxy, caller),
    tilejson: (request, params) => tileJson(request, params),
    'scheme-tile': (request, [timestamp, scheme, ...zxy], caller) =>
      tile(request, [timestamp!], zxy, caller, scheme!),
    'scheme-tilejson': (request, [timestamp, scheme]) => tileJson(request, [timestamp!], scheme!),
    'forecast-archive': (request, params, caller) => forecastArchive(request, params, caller),
    'forecast-tile': (request, [base, lead, ...zxy], caller) =>
      forecastTile(request, [base!, lead!], zxy, caller),
    'forecast-tilejson': (request, params) => forecastTileJson(request, params),
    'forecast-scheme-tile': (request, [base, lead, scheme, ...zxy], caller) =>
      forecastTile(request, [base!, lead!], zxy, caller, scheme!),
    'forecast-scheme-tilejson': (request, [base, lead, scheme]) =>
      forecastTileJson(request, [base!, lead!], scheme!),
    legend: (request) => legend(request.headers),
  };
  const openHandlers: Record<OpenRouteKind, OpenHandler> = {
    openapi: (request) => openApi(request.headers),
  };

  const fail = (
    err: unknown,
    request: CoreRequest,
    route: string,
    decided?: { caller: Caller; rate?: RateDecision },
  ): Answer =>
    failure(
      err,
      { method: request.method, path: pathOf(request.target), route, gone: request.gone() },
      decided,
    );

  /** The route's answer; a throw or a rejection becomes the error answer. */
  const run = (
    request: CoreRequest,
    match: CredentialedMatch,
    caller: Caller,
    rate: RateDecision,
  ): Answer | Promise<Answer> => {
    const route = match.route.template;
    let answer: Answer | Promise<Answer>;
    try {
      answer = handlers[match.route.kind](request, match.params, caller);
    } catch (err) {
      return fail(err, request, route, { caller, rate });
    }
    if (answer instanceof Promise)
      return answer.then(
        (settled) => decided(settled, caller, rate),
        (err: unknown) => fail(err, request, route, { caller, rate }),
      );
    return decided(answer, caller, rate);
  };

  /** The answer of a route without credentials; a throw or a rejection becomes the error answer. */
  const runOpen = (request: CoreRequest, kind: OpenRouteKind, route: string) => {
    try {
      const answer = openHandlers[kind](request);
      return answer instanceof Promise
        ? answer.catch((err: unknown) => fail(err, request, route))
        : answer;
    } catch (err) {
      return fail(err, request, route);
    }
  };

  const afterRate = (
    request: CoreRequest,
    match: CredentialedMatch,
    caller: Caller,
    rate: RateDecision,
  ): Answer | Promise<Answer> => {
    onDecision(rate.allowed, rate.limit);
    if (!rate.allowed)
      return errorAnswer(new TooManyRequestsError(rate.retryAfterS), match.route.template, {
        caller,
        rate,
      });
    return run(request, match, caller, rate);
  };

  const afterAuth = (
    request: CoreRequest,
    match: CredentialedMatch,
    authorisation: Authorisation,
  ): Answer | Promise<Answer> => {
    if ('error' in authorisation)
      return errorAnswer(
        authorisation.error,
        match.route.template,
        authorisation.keyId === undefined ? {} : { refusedKey: authorisation.keyId },
      );
    const caller = authorisation;
    const rate = deps.limiter.consume(caller.keyId, caller.limit);
    if (rate instanceof Promise)
      return rate.then(
        (settled) => afterRate(request, match, caller, settled),
        // The caller passed authentication: its failed request is still its usage.
        (err: unknown) => fail(err, request, match.route.template, { caller }),
      );
    return afterRate(request, match, caller, rate);
  };

  const handle = (request: CoreRequest): Answer | Promise<Answer> | undefined => {
    const refused = checkProtocol(request);
    if (refused !== undefined) return errorAnswer(refused, UNMATCHED_ROUTE);
    const path = pathOf(request.target);
    const match = matchRoute(path);
    const page = match === undefined ? matchPageRoute(path) : undefined;
    const template = match?.route.template ?? page;
    const method = request.method;
    if (deps.cors.isPreflight(method, request.headers))
      return { status: 204, route: template ?? UNMATCHED_ROUTE, headers: [], preflight: true };
    if (template === undefined) return errorAnswer(new NotFoundError(), UNMATCHED_ROUTE);
    if (method !== 'GET' && method !== 'HEAD') {
      if (method === 'OPTIONS')
        return { status: 204, route: template, headers: ['Allow', ALLOWED_METHODS] };
      return errorAnswer(new MethodNotAllowedError(ALLOWED_METHODS), template);
    }
    if (match === undefined) return undefined; // a page: the Koa app serves its body
    const route = match.route;
    if (!needsCredentials(route)) return runOpen(request, route.kind, route.template);
    const credentialed: CredentialedMatch = { route, params: match.params };
    const authorisation = authorise(request.headers, request.rawHeaders);
    if (authorisation instanceof Promise)
      return authorisation.then(
        (settled) => afterAuth(request, credentialed, settled),
        (err: unknown) => fail(err, request, route.template),
      );
    return afterAuth(request, credentialed, authorisation);
  };

  return {
    handle(request) {
      try {
        return handle(request);
      } catch (err) {
        return fail(err, request, UNMATCHED_ROUTE);
      }
    },
    fail: (err, request, route) => fail(err, request, route),
    routes: ROUTES.map((route) => route.template),
  };
}
