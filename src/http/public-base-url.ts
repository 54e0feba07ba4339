/**
 * The public base URL of a request (`https://radar.example.com`), for documents that must
 * name absolute URLs (TileJSON). Behind nginx with `RADAR_TRUST_PROXY=1`, Koa reads
 * `X-Forwarded-Proto` and `X-Forwarded-Host`; otherwise the socket's scheme and `Host`.
 * Anything that is not a plain scheme and host[:port] is refused, so a forged header can
 * never put markup or another path into a URL the service hands out.
 */
import type { Context } from 'koa';

const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9-]{1,63})*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/** `scheme://host[:port]`, or undefined when the request does not name a usable one. */
export function publicBaseUrl(ctx: Context): string | undefined {
  const protocol = ctx.protocol.toLowerCase();
  const host = ctx.host;
  if ((protocol !== 'http' && protocol !== 'https') || host.length > 255 || !HOST.test(host)) {
    return undefined;
  }
  return `${protocol}://${host.toLowerCase()}`;
}
