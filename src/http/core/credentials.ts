/**
 * Parses the two Bearer headers. `Bearer` is case-insensitive; a value without it, with an
 * empty token, or with characters outside RFC 6750's b64token is invalid (401).
 */

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The token of a `Bearer <token>` header value, or `undefined` when absent or malformed. */
export function parseBearer(value: string | string[] | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  return BEARER.exec(value)?.[1];
}
