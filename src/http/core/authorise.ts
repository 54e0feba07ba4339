/**
 * Authentication (401), authorisation (403) and the key's origin policy (403), before any
 * other work: a request refused here costs no rate-limit point and learns nothing about the
 * resources.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { AuthDecision } from '../../domain/key-ports';
import type { OriginPolicy } from '../../domain/origin-policy';
import { requestOrigin } from '../../domain/origin-policy';
import { ForbiddenError, UnauthorizedError, type HttpError } from '../../errors';
import type { KeyStore } from '../../domain/key-ports';
import { parseBearer } from './credentials';

/** Identity of an authorised caller. */
export interface Caller {
  readonly keyId: string;
  readonly appId: string;
  readonly limit: number;
  /** The key's allowed origins; absent: any origin. */
  readonly originPolicy?: OriginPolicy;
}

/**
 * Every reason a request is refused at authentication or authorisation (401/403). A closed
 * list, so the metric exports each one at 0 from the start and a new reason cannot be counted
 * without being added here.
 */
export const AUTH_FAILURE_REASONS = [
  'malformed-key',
  'malformed-app',
  'unknown-key',
  'unknown-app',
  'key-disabled',
  'app-disabled',
  'app-not-bound',
  'origin-missing',
  'origin-not-allowed',
] as const;
export type AuthFailureReason = (typeof AUTH_FAILURE_REASONS)[number];

/** Observer for auth failures (metrics hook). */
export type AuthFailureListener = (reason: AuthFailureReason) => void;

/**
 * Whether a header repeated on the request carries another value than `first` (the one Node
 * keeps). A scan of the raw lines: Node's `headersDistinct` would build an object of every
 * header on every request.
 */
function repeatsDiffer(raw: readonly string[], lowerName: string, first: unknown): boolean {
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (
      name.length === lowerName.length &&
      name.toLowerCase() === lowerName &&
      raw[i + 1] !== first
    )
      return true;
  }
  return false;
}

/** The two credentials as a request carries them, or why they are malformed (401). */
export type Credentials =
  | { readonly apiKey: string; readonly appId: string }
  | { readonly malformed: 'malformed-key' | 'malformed-app' };

/** Reads `Authorization` and `X-App`. */
export function readCredentials(
  headers: IncomingHttpHeaders,
  rawHeaders: readonly string[],
): Credentials {
  // Node keeps only the first of repeated Authorization lines; two different keys are refused.
  // (Repeated X-App lines arrive joined with ", ", which is no valid token either.)
  const apiKey = repeatsDiffer(rawHeaders, 'authorization', headers.authorization)
    ? undefined
    : parseBearer(headers.authorization);
  if (apiKey === undefined) return { malformed: 'malformed-key' };
  const appId = parseBearer(headers['x-app']);
  if (appId === undefined) return { malformed: 'malformed-app' };
  return { apiKey, appId };
}

/**
 * A 401/403 to answer, with the key the request named when that key is known (a known key
 * with an unknown or unbound app, a disabled key or app, an origin the key refuses): usage
 * counts such refusals for their key.
 */
export interface Refusal {
  readonly error: HttpError;
  readonly keyId?: string;
}

/** The caller, or the refusal to answer. */
export type Authorisation = Caller | Refusal;

/**
 * Decides who is asking: credentials, the key registry's decision, then the key's origin
 * policy (`Origin`, else the origin of `Referer`; a request with neither passes unless the key
 * requires an origin). Synchronous when the registry is in memory.
 */
export function createAuthoriser(
  keys: KeyStore,
  onFailure: AuthFailureListener = () => {},
): (
  headers: IncomingHttpHeaders,
  rawHeaders: readonly string[],
) => Authorisation | Promise<Authorisation> {
  const refuse = (reason: AuthFailureReason, error: HttpError, keyId?: string): Refusal => {
    onFailure(reason);
    return keyId === undefined ? { error } : { error, keyId };
  };
  const conclude = (decision: AuthDecision, headers: IncomingHttpHeaders): Authorisation => {
    if (decision.outcome === 'unauthenticated')
      return refuse(
        decision.reason,
        new UnauthorizedError(),
        decision.reason === 'unknown-app' ? decision.keyId : undefined,
      );
    if (decision.outcome === 'forbidden')
      return refuse(decision.reason, new ForbiddenError(), decision.keyId);
    const policy = decision.originPolicy;
    if (policy !== undefined) {
      const origin = requestOrigin(headers.origin, headers.referer);
      if (!policy.allows(origin))
        return refuse(
          origin === undefined ? 'origin-missing' : 'origin-not-allowed',
          new ForbiddenError(),
          decision.keyId,
        );
    }
    // An allowed decision is a Caller: the (cached) decision itself, no copy per request.
    return decision;
  };
  return (headers, rawHeaders) => {
    const credentials = readCredentials(headers, rawHeaders);
    if ('malformed' in credentials) return refuse(credentials.malformed, new UnauthorizedError());
    const decision = keys.authenticate(credentials.apiKey, credentials.appId);
    return decision instanceof Promise
      ? decision.then((d) => conclude(d, headers))
      : conclude(decision, headers);
  };
}
