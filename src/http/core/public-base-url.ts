/**
 * The public base URL a document names in absolute URLs (TileJSON's `tiles`), chosen so a
 * client can never make the service hand out a URL on another host to somebody else:
 * - `RADAR_PUBLIC_URL` when set: always that, whatever the request says;
 * - otherwise the request's own `Host`, which is part of every cache's key, so a forged one
 *   only ever reaches the client that forged it. Behind nginx (`RADAR_TRUST_PROXY=1`) the
 *   scheme comes from `X-Forwarded-Proto`, and `X-Forwarded-Host` is used only when it names a
 *   host of `RADAR_PUBLIC_HOSTS`; the answer then varies on those fields.
 * A host that is not exactly `name[:port]` (port 1-65535), a scheme other than http/https, or
 * a forwarded host outside the allow list is a 400: never rewritten, never guessed.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { BadRequestError } from '../../errors';
import { publicHost } from '../../shared/public-host';

export interface PublicUrlOptions {
  /** `RADAR_PUBLIC_URL` as the configuration gives it (validated, no trailing slash). */
  readonly publicUrl: string | undefined;
  /** `RADAR_PUBLIC_HOSTS`: forwarded hosts that may be named (`host[:port]`, lower-case). */
  readonly publicHosts: readonly string[];
  readonly trustProxy: boolean;
}

/** A base URL and the request fields it was read from (for `Vary`). */
export interface PublicBaseUrl {
  readonly url: string;
  readonly vary: string;
}

function first(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const comma = text.indexOf(',');
  return (comma < 0 ? text : text.slice(0, comma)).trim();
}

/** Decides each request's public base URL, or throws 400 for one it cannot name. */
export function createPublicUrlPolicy(
  options: PublicUrlOptions,
): (headers: IncomingHttpHeaders) => PublicBaseUrl {
  if (options.publicUrl !== undefined) {
    const fixed = { url: options.publicUrl, vary: '' };
    return () => fixed;
  }
  const allowed = new Set(options.publicHosts);
  return (headers) => {
    let scheme = 'http';
    const vary: string[] = [];
    let host = headers.host;
    if (options.trustProxy) {
      const proto = first(headers['x-forwarded-proto']);
      if (proto !== undefined) {
        scheme = proto.toLowerCase();
        vary.push('X-Forwarded-Proto');
      }
      const forwarded = first(headers['x-forwarded-host']);
      if (forwarded !== undefined && allowed.size > 0) {
        const named = publicHost(forwarded);
        if (named === undefined || !allowed.has(named)) throw new BadRequestError();
        host = named;
        vary.push('X-Forwarded-Host');
      }
    }
    const named = publicHost(host);
    if (named === undefined || (scheme !== 'http' && scheme !== 'https'))
      throw new BadRequestError();
    return { url: `${scheme}://${named}`, vary: vary.join(', ') };
  };
}
